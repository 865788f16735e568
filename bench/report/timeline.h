/* A cycle's suspend and resume drawn to scale, for the HTML report. */
#ifndef SLAB_TIMELINE_H
#define SLAB_TIMELINE_H

#include <stdio.h>

#include "lab.h"

/* Two inline SVGs (or a note where a side was not measured). */
void timeline_cycle(FILE *f, const struct cycle_record *rec);
/* s as HTML text or attribute value: <, >, &, " and ' escaped; control
 * bytes other than tab, CR and LF, and invalid UTF-8, as \xNN. */
void html_text(FILE *f, const char *s);

#endif

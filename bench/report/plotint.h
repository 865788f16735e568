/*
 * Inside report_plot(): what its two charts share.  plot.c draws latency
 * against size and owns the gnuplot plumbing (quoting, the provenance
 * title, one run over a private temporary directory); plotgroup.c draws
 * the one-size sweep as grouped bars.  Not for the other writers.  Every
 * string reaches gnuplot through escape.h (gp_text() for what is shown,
 * gp_path() for file names): never as code.
 */
#ifndef SLAB_PLOTINT_H
#define SLAB_PLOTINT_H

#include <stdbool.h>
#include <stdio.h>

#include "escape.h"
#include "report.h"

#define MIB 1048576.0
#define LOG_SPAN 20.0	/* values this far apart in a panel: a log y axis */

/* One rendering: where gnuplot writes and what it reads. */
struct plot_job {
	const struct lab_view *v;
	const char *out;		/* *.svg or *.png, gnuplot's output */
	bool svg;
	char *dir, *data, *script;	/* plot_render()'s, any length */
};

/* Writes the data file or the script for j; 0 or -1. */
typedef int (*plot_fn)(FILE *f, const struct plot_job *j, const void *ctx);

/*
 * The script's head: terminal (png_w x png_h pixels for a PNG, four fifths
 * of that for an SVG), output, D = the data file, and a multiplot of
 * rows x cols under the provenance title, then what (NULL: nothing) on a
 * line of its own.
 */
void plot_begin(FILE *f, const struct plot_job *j, int png_w, int png_h, int rows, int cols,
		const char *what);

/* Writes data and script into a fresh temporary directory, runs gnuplot
 * (or $GNUPLOT) on them and removes them; 0, or -1 after one line. */
int plot_render(struct plot_job *j, plot_fn data, plot_fn script, const void *ctx);

/* The two charts: 0, or -1 after one line on stderr. */
int plot_by_size(struct plot_job *j);
int plot_grouped(struct plot_job *j);

#endif

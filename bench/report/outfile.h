/*
 * Results written whole or not at all: each report goes to a temporary
 * file beside its name and is renamed over it only once complete, so a full
 * disk or a crash never leaves half a report in place of a good one.
 */
#ifndef SLAB_OUTFILE_H
#define SLAB_OUTFILE_H

#include <stdio.h>

typedef int (*outfile_fn)(FILE *f, const void *ctx);	/* 0 or -1 */

/* 0 when path holds what fn wrote; -1 after one line on stderr, with any
 * earlier file at path untouched. */
int outfile_write(const char *path, outfile_fn fn, const void *ctx);

#endif

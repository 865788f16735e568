/*
 * --out belongs to one run at a time: a lock held for the run's life, so a
 * second run with the same --out is refused instead of sharing (and
 * formatting) the first one's data image.  Holding it, a run sweeps what a
 * killed run left there: its temporary images and half-written reports.
 */
#ifndef SLAB_OUTDIR_H
#define SLAB_OUTDIR_H

#include <stddef.h>

/* 0, or 2 after one line naming the run that holds dir. */
int outdir_claim(const char *dir);
/* Marks path (an image in --out) as this run's temporary, swept by a later
 * run if this one is killed; *h for cleanup_forget().  0 or -1. */
int outdir_mark_temporary(const char *path, int *h);
/* The mark's name for path. */
void outdir_mark_name(char *buf, size_t n, const char *path);

#endif

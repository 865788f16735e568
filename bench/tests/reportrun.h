/*
 * A synthetic lab run for the report tests: mem x sync {off, on} x dirty
 * {64, 8} MiB x 2 cycles on an emmc profile, figures from lab_derive();
 * the second sync on/64M cycle fails with ResumeTimeout.
 */
#ifndef REPORTRUN_H
#define REPORTRUN_H

#include "lab.h"

/* Fills o and r (records in static storage); *failed = the failed index. */
void reportrun_make(struct lab_opts *o, struct lab_result *r, int *failed);

/* The synthetic runs' firmware, profile, memory and provenance. */
void reportrun_provenance(struct lab_opts *o, struct lab_result *r);

/*
 * mkdtemp(dir), then TMPDIR=dir/tmp (made, mode 0700) in tmp, so that the
 * plot's own temporary directory lands where a test can count it.  0, or
 * -1 with errno.
 */
int reportrun_scratch(char *dir, char *tmp, size_t n);

#endif

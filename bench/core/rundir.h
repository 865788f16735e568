/*
 * A run's private directories under $TMPDIR (QEMU's sockets, the drive
 * model's): each holds an owner file naming the process that made it, so a
 * later run can sweep the ones a killed run (SIGKILL: no cleanup) left.
 */
#ifndef SLAB_RUNDIR_H
#define SLAB_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

/* "<base>/<prefix>.XXXXXX", base $TMPDIR or /tmp: what rundir_make() fills
 * in, as --show-command prints it. */
void rundir_template(char *buf, size_t n, const char *prefix);
/*
 * Sweeps prefix's directories of dead owners, then makes a new one in buf
 * with its owner file (both registered with cleanup.h).  0, or -1 with
 * errno set.
 */
int rundir_make(char *buf, size_t n, const char *prefix, int *h_dir, int *h_owner);
/* An owner file for this process at path (registered with cleanup.h
 * through *h); 0 or -1. */
int rundir_owner_write(const char *path, int *h);
/* True only when path is an owner file whose process no longer runs. */
bool rundir_owner_gone(const char *path);
/* Directories of prefix whose owner is gone, removed; how many. */
int rundir_sweep(const char *prefix);

#endif

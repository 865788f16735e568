/*
 * A run's private directories under $TMPDIR (QEMU's sockets, the drive
 * model's): each holds an owner file naming the process that made it, so a
 * later run can sweep the ones a killed run (SIGKILL: no cleanup) left.
 * The same owner record marks a run's temporaries in --out (outdir.h).
 */
#ifndef SLAB_RUNDIR_H
#define SLAB_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A unix socket's path holds 107 bytes (sun_path, with its NUL).  Under
 * the base go "/slabd.XXXXXX" (13) and "/agent.sock" or "/nbdkit.pid"
 * (11): a longer $TMPDIR is refused, never swapped for /tmp.
 */
#define RUNDIR_SUN_PATH 108
#define RUNDIR_BASE_MAX (RUNDIR_SUN_PATH - 1 - 13 - 11)
/* Room for a private directory's name (and a socket's, in it). */
#define RUNDIR_PATH_SIZE RUNDIR_SUN_PATH

/* $TMPDIR, or /tmp when it is unset or empty. */
const char *rundir_base(void);
/* 0 when the base is a writable directory that fits RUNDIR_BASE_MAX;
 * otherwise -1 with one line in why that names the variable and path. */
int rundir_check_base(char *why, size_t n);
/* "<base>/<prefix>.XXXXXX": what rundir_make() fills in, as
 * --show-command prints it.  0, or -1 when it does not fit n. */
int rundir_template(char *buf, size_t n, const char *prefix);
/*
 * Sweeps prefix's directories of dead owners, then makes a new one in buf
 * with its owner file (both registered with cleanup.h).  0, or -1 with
 * errno set (ENAMETOOLONG when it does not fit n).
 */
int rundir_make(char *buf, size_t n, const char *prefix, int *h_dir, int *h_owner);
/* An owner file for this process at path (registered with cleanup.h
 * through *h); 0 or -1. */
int rundir_owner_write(const char *path, int *h);
/* The same, recording that the process owns the file covers (a name in
 * the same directory). */
int rundir_owner_write_for(const char *path, const char *covers, int *h);
/* True only when path is an owner file whose process no longer runs. */
bool rundir_owner_gone(const char *path);
/* The same, and the file records that it covers exactly covers. */
bool rundir_owner_gone_for(const char *path, const char *covers);
/* Directories of prefix whose owner is gone, removed; how many. */
int rundir_sweep(const char *prefix);

#endif

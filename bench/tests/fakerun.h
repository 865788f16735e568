/*
 * Offline runs of the lab and power-cut against fakeqemu (tests/fake/):
 * a scratch directory, base timeouts small enough for a unit test, the
 * scenario in $FAKEQEMU, and stderr captured for what the user would read.
 */
#ifndef FAKERUN_H
#define FAKERUN_H

#include <stdbool.h>

#include "hx.h"

/* Base timeouts of a few hundred ms to a few s. */
extern const struct hx_timeouts fakerun_timeouts;

/* A file that passes the kernel and the initrd checks (hx_check_boot_files()). */
void fakerun_boot_file(const char *path);
/* A scratch directory (removed by fakerun_done) and SLAB_QEMU checked. */
const char *fakerun_dir(void);
/* Sets the scenario ($FAKEQEMU); NULL or "" for a healthy guest. */
void fakerun_scenario(const char *s);
/* Options of a run in the scratch directory, with dummy kernel files. */
void fakerun_opts(struct hx_opts *o);

/* Starts sending stderr to a file; fakerun_stderr_end() returns its text
 * (static buffer) and restores stderr. */
void fakerun_stderr_begin(void);
const char *fakerun_stderr_end(void);

/* Our children named comm (fakeqemu, nbdkit): none may be left. */
int fakerun_live_children(const char *comm);
/* Entries of dir whose names start with prefix. */
int fakerun_count(const char *dir, const char *prefix);
void fakerun_done(void);

#endif

/* Host commands the lab runs itself (mkfs, e2fsck, debugfs): always an
 * argument vector, never a shell, so no name in them is ever code. */
#ifndef SLAB_HOSTRUN_H
#define SLAB_HOSTRUN_H

#include <stdbool.h>
#include <stddef.h>

/* Runs argv without a shell; its exit status, or -1 (not run, or killed). */
int host_run(char *const argv[], bool quiet);

/*
 * host_run() with stdout captured: *out gets its first cap bytes, NUL
 * terminated (free it; NULL when not run), stderr goes to /dev/null.
 * The exit status, or -1.
 */
int host_run_out(char *const argv[], char **out, size_t cap);

/* path as an argument that no program takes for an option: "./" before
 * one that starts with '-'.  A malloc'd copy (NULL: out of memory). */
char *host_path_arg(const char *path);

#endif

/*
 * Everything a run leaves behind, undone whatever happens: child processes
 * (QEMU, nbdkit) are killed and files and directories removed at exit and
 * on SIGINT, SIGTERM or SIGHUP.  Owners forget an entry once they have
 * cleaned it up themselves.
 */
#ifndef SLAB_CLEANUP_H
#define SLAB_CLEANUP_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Installs the handlers (sigaction, so a handler re-raises the signal with
 * its default action afterwards) and ignores SIGPIPE: a peer that went away
 * is an error to report, not a reason to die.  Idempotent.
 */
void cleanup_install(void);

/* Each returns a handle for cleanup_forget(), or -1 when the table is full. */
int cleanup_pid(pid_t pid);
int cleanup_file(const char *path);
int cleanup_dir(const char *path);	/* removed after the files in it */
void cleanup_forget(int handle);

/* Async-signal-safe: SIGKILL every pid, then unlink every file and rmdir
 * every directory, newest first. */
void cleanup_run(void);

#endif

/*
 * The drive model: one nbdkit between QEMU and a data image, for what QEMU
 * cannot model itself.  Chain, client side first:
 *   log        every request with its UTC time (devstats.h reads it)
 *   slabflush  our filter (bench/nbdkit/): the profile's flush latency,
 *              and the test-only drop-flush mode
 *   cache      cache=writeback, when the profile has a volatile cache:
 *              writes wait in nbdkit until a flush, so a SIGKILL loses them
 *   fua        fuamode=discard: the host's own fdatasync is not the
 *              modelled drive's (1.2 s for 256 MiB here), so it is skipped;
 *              what reached the image survives nbdkit's death anyway
 *   file       the image
 * QEMU keeps the bandwidth and IOPS throttling and shows the guest a
 * volatile write cache exactly when the profile has one.
 *
 * nbdkit runs like QEMU: PR_SET_PDEATHSIG, in the cleanup registry, reaped,
 * its socket in a short private directory, its stderr kept for a failure.
 */
#ifndef SLAB_DRIVE_H
#define SLAB_DRIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "profile.h"
#include "vm.h"

#define DRIVE_FILTER_NAME "nbdkit-slabflush-filter.so"

struct drive_config {
	const char *image;
	const struct disk_profile *profile;
	bool drop_flushes;	/* test only: no flush reaches the cache */
	const char *logdir;	/* keep nbdkit.log and nbdkit.stderr here; NULL: temporary */
	int timeout_ms;		/* until nbdkit accepts connections; 0: 10 s */
};

struct drive {
	pid_t pid;
	int pidfd;
	int status;		/* wait status once reaped */
	bool reaped;
	bool started;		/* by drive_start, until drive_stop */
	bool killed;		/* by drive_kill: a cut, not a failure */
	char dir[RUNDIR_PATH_SIZE];	/* private: nbd.sock, nbdkit.pid (and logs) */
	char uri[RUNDIR_PATH_SIZE + 48];	/* QEMU's file=: nbd+unix:///?socket=... */
	char log[600];		/* the request log */
	char err[600];		/* nbdkit's stderr */
	char why[700];		/* why drive_start failed */
	int h_pid, h_files[5], h_dir;	/* cleanup handles */
};

/* Whether a profile gets the drive model: a flush latency or a volatile
 * write cache, which QEMU's throttling cannot give, or limits whose cost
 * the log then places inside the sync. */
bool drive_wanted(const struct disk_profile *p);

/* Sets d's URI to a placeholder directory until drive_start() runs. */
void drive_init(struct drive *d);
/*
 * The data disk for QEMU: file is d->uri (so it follows drive_start()),
 * opts the write-cache mode and the profile's throttling, written to buf.
 */
struct vm_drive drive_vm(const struct drive *d, const struct disk_profile *p,
			 char *buf, size_t n);

/* Starts nbdkit and waits until it accepts connections: 0, or -1 with
 * d->why set (one line, nbdkit's own last words in it) and nothing left
 * running.  drive_stop() afterwards either way. */
int drive_start(struct drive *d, const struct drive_config *c);
bool drive_alive(struct drive *d);
/* Started, not killed by us, and gone: nbdkit failed. */
bool drive_died(struct drive *d);
/* The power cut: SIGKILL now, reaped; true if nbdkit died of exactly that.
 * Files stay until drive_stop(). */
bool drive_kill(struct drive *d);
/* SIGTERM (nbdkit leaves once QEMU has gone), SIGKILL after 3 s; reaps and
 * removes the socket, the private directory and temporary logs. */
void drive_stop(struct drive *d);
/* One line on why it failed or how it exited, then nbdkit's stderr. */
void drive_report(struct drive *d);

#endif

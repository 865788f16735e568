/*
 * Stable verdict names: what the lab reports for a cycle or a cut.  Names
 * are part of the reports' schema: add, never rename.
 */
#ifndef SLAB_VERDICT_H
#define SLAB_VERDICT_H

#include <stdbool.h>

enum verdict {
	VERDICT_OK = 0,
	VERDICT_QEMU_START_FAILED,	/* QEMU exited before the agent was ready */
	VERDICT_BOOT_TIMEOUT,		/* no QMP or no agent READY in time */
	VERDICT_AGENT_TIMEOUT,		/* agent silent on a request */
	VERDICT_NO_SUSPEND_EVENT,	/* mem: no QMP SUSPEND in time */
	VERDICT_WAKE_FAILED,		/* system_wakeup / send-key refused */
	VERDICT_RESUME_TIMEOUT,		/* no RESUMED after the wake */
	VERDICT_SUSPEND_FAILED,		/* the state write returned an error */
	VERDICT_NOT_SUSPENDED,		/* returned, but never reached the platform */
	VERDICT_QEMU_DIED,		/* QEMU exited during the cycle */
	VERDICT_PROTOCOL,		/* QMP or agent sent nonsense */
	VERDICT_FS_UNMOUNTABLE,		/* after a power cut */
	VERDICT_SETUP_FAILED,		/* a step before the cycle failed */
	VERDICT_NOT_RUN,		/* never started: no guest to run it on */
	VERDICT_NBDKIT_FAILED,		/* the drive model (nbdkit) died or never started */
	VERDICT_IMAGE_FAILED,		/* the data image could not be made (mkfs, a full disk) */
	VERDICT_HOST_STALL,		/* the host held QEMU back: not a measurement */
	VERDICT_HOST_IO_ERROR,		/* QEMU stopped the guest on a host write error */
	VERDICT__COUNT
};

const char *verdict_name(enum verdict v);
/* The host's or a process's failure, not the step's: a caller wrapping a
 * step's verdict in its own (SetupFailed) keeps these as they are. */
bool verdict_is_host(enum verdict v);

#endif

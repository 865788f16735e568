/* Stable verdict names: what the lab reports when a step fails. */
#ifndef SLAB_VERDICT_H
#define SLAB_VERDICT_H

#include "agent_proto.h"

enum verdict {
	VERDICT_OK = 0,
	VERDICT_QEMU_START_FAILED,
	VERDICT_BOOT_TIMEOUT,		/* no QMP or no agent READY in time */
	VERDICT_AGENT_TIMEOUT,		/* agent silent on a request */
	VERDICT_NO_SUSPEND_EVENT,	/* mem: no QMP SUSPEND in time */
	VERDICT_WAKE_FAILED,		/* system_wakeup / send-key refused */
	VERDICT_RESUME_TIMEOUT,		/* no RESUMED after the wake */
	VERDICT_SUSPEND_FAILED,		/* the state write returned an error */
	VERDICT_NOT_SUSPENDED,		/* returned, but never reached the platform */
	VERDICT_QEMU_DIED,
	VERDICT_PROTOCOL,		/* QMP or agent sent nonsense */
	VERDICT_FS_UNMOUNTABLE,		/* after a power cut */
	VERDICT__COUNT
};

const char *verdict_name(enum verdict v);

#endif

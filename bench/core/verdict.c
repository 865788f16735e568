#include "verdict.h"

static const char *const names[VERDICT__COUNT] = {
	[VERDICT_OK] = "OK",
	[VERDICT_QEMU_START_FAILED] = "QemuStartFailed",
	[VERDICT_BOOT_TIMEOUT] = "BootTimeout",
	[VERDICT_AGENT_TIMEOUT] = "AgentTimeout",
	[VERDICT_NO_SUSPEND_EVENT] = "NoSuspendEvent",
	[VERDICT_WAKE_FAILED] = "WakeFailed",
	[VERDICT_RESUME_TIMEOUT] = "ResumeTimeout",
	[VERDICT_SUSPEND_FAILED] = "SuspendFailed",
	[VERDICT_NOT_SUSPENDED] = "NotSuspended",
	[VERDICT_QEMU_DIED] = "QemuDied",
	[VERDICT_PROTOCOL] = "ProtocolError",
	[VERDICT_FS_UNMOUNTABLE] = "FsUnmountable",
	[VERDICT_SETUP_FAILED] = "SetupFailed",
	[VERDICT_NOT_RUN] = "NotRun",
	[VERDICT_NBDKIT_FAILED] = "NbdkitFailed",
	[VERDICT_IMAGE_FAILED] = "ImageFailed",
	[VERDICT_HOST_STALL] = "HostStall",
	[VERDICT_HOST_IO_ERROR] = "HostIoError",
};

const char *verdict_name(enum verdict v)
{
	return v < VERDICT__COUNT && names[v] ? names[v] : "Unknown";
}

bool verdict_is_host(enum verdict v)
{
	return v == VERDICT_QEMU_DIED || v == VERDICT_NBDKIT_FAILED ||
	       v == VERDICT_HOST_IO_ERROR;
}

/* Waiting for a mem suspend to happen, or to be given up by the kernel. */
#ifndef SLAB_VMSUSPEND_H
#define SLAB_VMSUSPEND_H

#include <stddef.h>

#include "vm.h"

/*
 * After the agent's REQUEST for a mem suspend: waits for QEMU's SUSPEND
 * event.  OK with the event's time in *event_ts.  SuspendFailed when the
 * agent's RESUMED comes first: the write to /sys/power/state returned
 * without sleeping (tasks that would not freeze, a device that failed to
 * suspend, a wakeup event), and *rest is that message for the caller to
 * read.  NoSuspendEvent after timeout_ms, with the serial console's last
 * line; QemuDied or ProtocolError otherwise.  why gets one line.
 */
enum verdict vm_await_suspend(struct vm *vm, int timeout_ms, double *event_ts,
			      char **rest, char *why, size_t n);

#endif

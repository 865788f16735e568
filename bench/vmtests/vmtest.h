/* Shared set-up of the VM tests: the guest comes from the environment
 * (KERNEL, INITRD; SLAB_LOGDIR keeps logs), so any kernel can be tested. */
#ifndef SLAB_VMTEST_H
#define SLAB_VMTEST_H

#include <string.h>

#include "tap.h"
#include "vm.h"

/*
 * Boots with cfg's kernel, initrd and logs taken from the environment, and
 * signal handlers that kill QEMU.  On failure prints why to stderr (QEMU's
 * stderr included) and leaves nothing running.
 */
enum verdict vmtest_boot(struct vm *vm, struct vm_config *cfg,
			 const char *logname);

/*
 * An agent line callback: the in-guest test's TAP lines become ours, each
 * "not ok" counted in *(int *)ctx.  Inline, like tap.h, so that it counts
 * in the calling test's own TAP state.
 */
static inline void vmtest_relay_tap(void *ctx, enum agent_msg m, char *rest)
{
	int *guest_failed = ctx;
	const char *desc;

	if (m != AGENT_MSG_OUT)
		return;
	desc = strstr(rest, " - ");
	desc = desc ? desc + 3 : rest;
	if (!strncmp(rest, "ok ", 3)) {
		tap_ok(true, "guest: %s", desc);
	} else if (!strncmp(rest, "not ok ", 7)) {
		tap_ok(false, "guest: %s", desc);
		(*guest_failed)++;
	} else if (rest[0] == '#') {
		tap_diag("guest:%s", rest + 1);
	}
}

#endif

/* Shared set-up of the VM tests: the guest comes from the environment
 * (KERNEL, INITRD; SLAB_LOGDIR keeps logs), so any kernel can be tested. */
#ifndef SLAB_VMTEST_H
#define SLAB_VMTEST_H

#include <stdlib.h>
#include <string.h>

#include "hx.h"
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

/*
 * A cycle the host took (HostStall) on every attempt the lab made (it
 * measures such a cycle again, lab.h): not a measurement of the guest, so
 * not a failure of what a test guards.  true after a SKIP line naming it.
 */
static inline bool vmtest_host_took(enum verdict v, const char *why, const char *what)
{
	if (v != VERDICT_HOST_STALL)
		return false;
	tap_skip("the host took the cycle on every attempt (HostStall), not a measurement",
		 "%s: %.200s", what, why);
	return true;
}

/*
 * The harness options of a lab VM test: quiet, logs kept when SLAB_LOGDIR
 * is set, results in a new directory made from the template dir.  false
 * after one TAP line: a SKIP when KERNEL, INITRD or TOOLS_DISK is not
 * given, a failure when dir cannot be made.  Inline, like the relay.
 */
static inline bool vmtest_lab_opts(struct hx_opts *o, char *dir, const char *what)
{
	if (!getenv("KERNEL") || !getenv("INITRD") || !getenv("TOOLS_DISK")) {
		tap_skip("KERNEL, INITRD and TOOLS_DISK are needed", "%s", what);
		return false;
	}
	if (!mkdtemp(dir)) {
		tap_ok(false, "%s: no directory for the results (%s)", what, dir);
		return false;
	}
	hx_opts_defaults(o);
	o->out_dir = dir;
	o->quiet = true;
	o->keep_logs = getenv("SLAB_LOGDIR") != NULL;
	return true;
}

#endif

/*
 * t_vm_knob: boots a guest and proves kernel.suspend_sync end to end.
 *
 * Guards: the knob exists and behaves (the in-guest knobtest: default, one
 * state with /sys/power/sync_on_suspend, malformed and unprivileged writes
 * refused); and that it gates the sync on real suspends: for mem and freeze,
 * suspend_sync=0 gives no "Filesystems sync" line and no sync_filesystems
 * trace event, suspend_sync=1 gives both, and every cycle really reached
 * the platform (machine_suspend traced, suspend_stats/success counted).
 * Where the kernel has the at-risk report (patch 3): every suspend with the
 * sync off gives exactly one "PM: Sync skipped" line, one
 * power:suspend_sync_skipped event and one more suspend_stats/sync_skipped;
 * a suspend with the sync on gives none of them.
 *
 * Environment: KERNEL, INITRD; EXPECT_DEFAULT=0 for a kernel built with
 * CONFIG_SUSPEND_SKIP_SYNC=y; KNOB_ONLY=1 skips the suspend cycles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cycle.h"
#include "tap.h"
#include "vmtest.h"

static void relay(void *ctx, enum agent_msg m, char *rest)
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

static void first_number(void *ctx, enum agent_msg m, char *rest)
{
	long long *v = ctx;

	if (m == AGENT_MSG_OUT && *v < 0)
		*v = atoll(rest);
}

static long long get_ll(struct vm *vm, const char *path)
{
	char req[256];
	long long v = -1;
	int status;

	snprintf(req, sizeof(req), "GET %s", path);
	if (vm_agent_request(vm, req, first_number, &v, 10000, &status) || status)
		return -1;
	return v;
}

static bool has_report;	/* the kernel has the at-risk report */

static void check_report(struct vm *vm, const char *state, int sync,
			 const struct cycle *c, long long skipped_before)
{
	long long after = get_ll(vm, "/sys/power/suspend_stats/sync_skipped");
	int want = sync ? 0 : 1;

	if (!has_report) {
		tap_skip("kernel has no power:suspend_sync_skipped event",
			 "%s sync=%d: at-risk report", state, sync);
		return;
	}
	tap_ok(c->skip_events == want, "%s sync=%d: %d suspend_sync_skipped event(s)",
	       state, sync, c->skip_events);
	tap_ok(c->skip_lines == want, "%s sync=%d: %d \"PM: Sync skipped\" line(s)",
	       state, sync, c->skip_lines);
	tap_ok(after == skipped_before + want,
	       "%s sync=%d: suspend_stats/sync_skipped %lld -> %lld", state, sync,
	       skipped_before, after);
	if (want && c->skip_events && c->skip_lines)
		tap_ok(c->skip_dirty_kb == c->skip_line_dirty_kb &&
		       c->skip_writeback_kb == c->skip_line_writeback_kb,
		       "%s sync=0: event and line agree (%lld/%lld kB)", state,
		       c->skip_dirty_kb, c->skip_writeback_kb);
}

static void one_cycle(struct vm *vm, const char *state, int sync)
{
	char req[128];
	struct cycle c;
	enum verdict v;
	long long before, after, skipped;
	int status = -1;
	bool fs, tr;

	snprintf(req, sizeof(req), "SET /proc/sys/kernel/suspend_sync %d", sync);
	v = vm_agent_request(vm, req, NULL, NULL, 10000, &status);
	if (!tap_ok(v == VERDICT_OK && status == 0, "%s sync=%d: knob set (%s, status %d)",
		    state, sync, verdict_name(v), status))
		return;
	skipped = get_ll(vm, "/sys/power/suspend_stats/sync_skipped");
	before = get_ll(vm, "/sys/power/suspend_stats/success");
	v = cycle_run(vm, state, &cycle_default_timeouts, &c);
	after = get_ll(vm, "/sys/power/suspend_stats/success");
	if (!tap_ok(v == VERDICT_OK, "%s sync=%d: cycle completes (%s, rc %d)",
		    state, sync, verdict_name(v), c.rc)) {
		vm_report_death(vm);
		return;
	}
	tap_ok(after == before + 1, "%s sync=%d: suspend_stats/success %lld -> %lld",
	       state, sync, before, after);
	fs = c.fs_sync_lines > 0;
	tr = cycle_phase_count(&c, "sync_filesystems") > 0;
	tap_ok(fs == (sync == 1), "%s sync=%d: \"Filesystems sync\" line %s",
	       state, sync, fs ? "present" : "absent");
	tap_ok(tr == (sync == 1), "%s sync=%d: sync_filesystems trace event %s",
	       state, sync, tr ? "present" : "absent");
	check_report(vm, state, sync, &c, skipped);
	tap_diag("%s sync=%d: %d phases traced, machine_suspend %.3f s",
		 state, sync, c.n_phases, cycle_phase_s(&c, "machine_suspend"));
}

int main(void)
{
	struct vm_config cfg = { .mem_mb = 512, .smp = 2 };
	const char *def = getenv("EXPECT_DEFAULT");
	int guest_failed = 0, status = -1;
	char req[64];
	struct vm vm;
	enum verdict v;

	v = vmtest_boot(&vm, &cfg, "knob");
	if (!tap_ok(v == VERDICT_OK, "guest boots to agent READY (%s)",
		    verdict_name(v)))
		return tap_done();
	tap_diag("kernel %s, boot to agent READY %.2f s", vm.release,
		 vm.t_ready - vm.t_spawn);
	tap_ok(!strcmp(vm.knob, "suspend_sync"),
	       "kernel has /proc/sys/kernel/suspend_sync (agent saw knob=%s)", vm.knob);

	snprintf(req, sizeof(req), "RUN /bin/knobtest %s", def ? def : "1");
	v = vm_agent_request(&vm, req, relay, &guest_failed, 60000, &status);
	tap_ok(v == VERDICT_OK && status == 0 && !guest_failed,
	       "guest knobtest exits 0 (%s, status %d)", verdict_name(v), status);

	has_report = !vm_agent_request(&vm, "RUN test -e /sys/kernel/tracing/events/power/suspend_sync_skipped",
				       NULL, NULL, 10000, &status) && status == 0;
	if (!getenv("KNOB_ONLY")) {
		one_cycle(&vm, "mem", 0);
		one_cycle(&vm, "mem", 1);
		one_cycle(&vm, "freeze", 0);
		one_cycle(&vm, "freeze", 1);
	}
	vm_stop(&vm);
	return tap_done();
}

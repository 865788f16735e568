/*
 * t_lab_faults: the lab's verdicts, driven end to end against fakeqemu
 * (a fake QEMU with a fake agent), under ASan/UBSan in make check.
 *
 * Guards, one fault each, the verdict a tester reads:
 * - a healthy guest: every cycle OK, mem and freeze;
 * - the resume spans add up, and a delay injected before RESUMED shows in
 *   the agent's span alone;
 * - QEMU exits at start-up (a kernel panic): QemuStartFailed with the
 *   panic line shown, boots stop at the limit, every cycle NotRun with
 *   null figures;
 * - an agent of another protocol version, a QMP greeting that is not JSON,
 *   replies numbered for another request, an overlong line with a forged
 *   DONE, output past the cap: ProtocolError, never OK or QemuDied;
 * - a guest that never says READY: BootTimeout, bounded by the boot limit;
 * - QEMU dying between two requests: QemuDied, and the lab lives on (no
 *   SIGPIPE) to report it;
 * - a REQUEST without its keys: ProtocolError;
 * - no SUSPEND event: NoSuspendEvent; wake refused: WakeFailed;
 * - a 1.5 s stall before suspending: NoSuspendEvent at --timeout-scale 1,
 *   OK at 4 (the scale reaches every wait);
 * - a missing tools disk, a refused knob, a failed fio: SetupFailed, not
 *   QemuDied, with the cycle's figures null;
 * - sockets of a long --out with --keep-logs, and a comma in a path;
 * - no fakeqemu left behind, no fd leaked per boot.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakerun.h"
#include "lab.h"
#include "tap.h"

static struct lab_opts opts(const char *states, int cycles)
{
	struct lab_opts o;

	memset(&o, 0, sizeof(o));
	fakerun_opts(&o.hx);
	o.n_states = 0;
	if (strstr(states, "mem"))
		o.states[o.n_states++] = "mem";
	if (strstr(states, "freeze"))
		o.states[o.n_states++] = "freeze";
	o.syncs[0] = 1;
	o.n_syncs = 1;
	o.dirty[0] = 1 << 20;
	o.n_dirty = 1;
	o.cycles = cycles;
	o.mem_mb = 512;
	o.workloads[0] = workload_by_name("bigfile");
	o.n_workloads = 1;
	o.wbs[0] = WB_HELD;
	o.n_wbs = 1;
	o.window_ms = 500;
	o.runtime_s = 1;
	o.seed = 1;
	return o;
}

/* Runs with a scenario; verdict counts in n[], stderr in *err. */
static int run(const char *scenario, struct lab_opts *o, struct lab_result *r,
	       int n[VERDICT__COUNT], const char **err)
{
	int rc;

	fakerun_scenario(scenario);
	fakerun_stderr_begin();
	rc = lab_run(o, r, &fakerun_timeouts);
	*err = fakerun_stderr_end();
	memset(n, 0, sizeof(int) * VERDICT__COUNT);
	for (int i = 0; i < r->n; i++)
		n[r->rec[i].c.verdict]++;
	return rc;
}

static bool all_null(const struct cycle_record *rec)
{
	return isnan(rec->suspend_latency_s) && isnan(rec->resume_latency_s) &&
	       isnan(rec->guest_resume_s) && isnan(rec->sync_phase_s) &&
	       isnan(rec->floor_s) && rec->c.dirty_kb < 0;
}

static void healthy(void)
{
	struct lab_opts o = opts("mem,freeze", 2);
	struct lab_result r;
	int n[VERDICT__COUNT];
	const char *err;
	int rc = run(NULL, &o, &r, n, &err);

	tap_ok(rc == 0 && n[VERDICT_OK] == 4 && r.n == 4,
	       "healthy guest: 4 of 4 cycles OK (rc %d)", rc);
	tap_ok(r.rec[0].resume_latency_s > 0 && !isnan(r.rec[0].suspend_latency_s) &&
	       !strcmp(r.kernel_release, "6.1.0-fake"),
	       "healthy guest: latencies measured, provenance from READY");
	lab_result_free(&r);
}

/* A delay injected before RESUMED lands in the agent's span alone. */
static void spans(void)
{
	struct lab_opts o = opts("mem,freeze", 1);
	struct lab_result r;
	int n[VERDICT__COUNT];
	const char *err;
	bool ok = true;

	o.resume_delay_ms = 300;
	run(NULL, &o, &r, n, &err);
	for (int i = 0; i < r.n; i++) {
		const struct cycle_record *c = &r.rec[i];

		tap_diag("%s: resume %.3f s = wake %.3f + kernel %.3f + agent %.3f + channel %.3f, remainder %.4f",
			 c->state, c->resume_latency_s, c->span_wake_s, c->span_kernel_s,
			 c->span_agent_s, c->span_channel_s, c->span_remainder_s);
		ok &= c->c.verdict == VERDICT_OK && c->span_agent_s >= 0.29 &&
		      c->span_agent_s < 0.4 && fabs(c->span_wake_s) < 0.2 &&
		      fabs(c->span_channel_s) < 0.1 && c->span_remainder_s < 0.02 &&
		      fabs(c->clock_step_s) < 0.02;
	}
	tap_ok(ok && r.n == 2, "a 300 ms delay before RESUMED shows in the agent span alone, mem and freeze");
	lab_result_free(&r);
}

/* Every workload in both writeback modes makes its own configuration. */
static void workloads_and_modes(void)
{
	struct lab_opts o = opts("mem", 1);
	struct lab_result r;
	int n[VERDICT__COUNT], defaults = 0;
	const char *err;

	o.n_workloads = 0;
	for (const struct workload *w = workloads; w->name; w++)
		o.workloads[o.n_workloads++] = w;
	o.wbs[1] = WB_DEFAULT;
	o.n_wbs = 2;
	run(NULL, &o, &r, n, &err);
	for (int i = 0; i < r.n; i++)
		defaults += r.rec[i].wb == WB_DEFAULT && r.rec[i].request_after_s >= 0 &&
			    r.rec[i].request_after_s < 0.5;
	tap_ok(n[VERDICT_OK] == 8 && r.n == 8 && defaults == 4,
	       "4 workloads x 2 writeback modes: 8 cycles OK, default ones requested within the window");
	lab_result_free(&r);
}

static void start_failures(void)
{
	struct lab_opts o = opts("mem", 2);
	struct lab_result r;
	int n[VERDICT__COUNT];
	const char *err;

	run("exit-at-start", &o, &r, n, &err);
	tap_ok(n[VERDICT_NOT_RUN] == 2 && r.boots == 3 && strstr(err, "QemuStartFailed") &&
	       strstr(err, "Kernel panic - not syncing"),
	       "QEMU exits at start: QemuStartFailed with the panic line, 3 boots, cycles NotRun");
	tap_ok(all_null(&r.rec[0]) && !strcmp(r.rec[0].suspend_latency_source, "none"),
	       "a cycle that never ran has null figures, not zeros");
	lab_result_free(&r);

	run("version=1", &o, &r, n, &err);
	tap_ok(n[VERDICT_NOT_RUN] == 2 && strstr(err, "ProtocolError") &&
	       strstr(err, "rebuild the initramfs"),
	       "agent of protocol 1: ProtocolError, 'rebuild the initramfs'");
	lab_result_free(&r);

	run("qmp-garbage", &o, &r, n, &err);
	tap_ok(strstr(err, "ProtocolError") && !strstr(err, "QemuDied"),
	       "a QMP greeting that is not JSON: ProtocolError, not QemuDied");
	lab_result_free(&r);

	run("no-ready", &o, &r, n, &err);
	tap_ok(n[VERDICT_NOT_RUN] == 2 && r.boots == 3 && strstr(err, "BootTimeout"),
	       "no READY: BootTimeout, 3 boots, then no more");
	lab_result_free(&r);
}

static void protocol_faults(void)
{
	struct lab_opts o = opts("mem", 1);
	struct lab_result r;
	int n[VERDICT__COUNT];
	const char *err;

	run("wrong-seq", &o, &r, n, &err);
	tap_ok(n[VERDICT_OK] == 0 && strstr(err, "ProtocolError") &&
	       strstr(err, "while waiting for"),
	       "replies numbered for another request: ProtocolError");
	lab_result_free(&r);

	run("forge", &o, &r, n, &err);
	tap_ok(n[VERDICT_OK] == 0 && strstr(err, "ProtocolError") && !strstr(err, "status 7"),
	       "a DONE forged at byte 9000 of a line: ProtocolError, never status 7");
	lab_result_free(&r);

	run("flood", &o, &r, n, &err);
	tap_ok(n[VERDICT_OK] == 0 && strstr(err, "more than"),
	       "output past the cap: ProtocolError");
	lab_result_free(&r);

	run("missing-keys", &o, &r, n, &err);
	tap_ok(!n[VERDICT_OK] && strstr(err, "ProtocolError (REQUEST without its keys)"),
	       "REQUEST without dirty_kb: ProtocolError");
	lab_result_free(&r);

	run("die-after=6", &o, &r, n, &err);
	tap_ok(n[VERDICT_OK] == 0 && (n[VERDICT_QEMU_DIED] + n[VERDICT_NOT_RUN]) == 1 &&
	       strstr(err, "QemuDied"),
	       "QEMU dies between requests: QemuDied reported, the lab lives (no SIGPIPE)");
	lab_result_free(&r);
}

static void suspend_faults(void)
{
	struct lab_opts o = opts("mem", 1);
	struct lab_result r;
	int n[VERDICT__COUNT];
	const char *err;

	run("no-suspend", &o, &r, n, &err);
	tap_ok(!n[VERDICT_OK] && strstr(err, "NoSuspendEvent"),
	       "a guest that never suspends: NoSuspendEvent");
	lab_result_free(&r);

	run("freeze-fails", &o, &r, n, &err);
	tap_ok(!n[VERDICT_OK] && strstr(err, "SuspendFailed (writing mem: Device or resource busy"
					" (kernel: Freezing of tasks failed") &&
	       !strstr(err, "NoSuspendEvent"),
	       "the kernel gives up on the suspend: SuspendFailed with its reason, not NoSuspendEvent");
	lab_result_free(&r);

	run("wake-refused", &o, &r, n, &err);
	tap_ok(!n[VERDICT_OK] && strstr(err, "WakeFailed"), "system_wakeup refused: WakeFailed");
	lab_result_free(&r);

	run("stall-ms=1500", &o, &r, n, &err);
	tap_ok(n[VERDICT_OK] == 0 && strstr(err, "NoSuspendEvent"),
	       "a 1.5 s stall, 1 s wait at scale 1: NoSuspendEvent");
	lab_result_free(&r);
	o.hx.timeout_scale = 4;
	run("stall-ms=1500", &o, &r, n, &err);
	tap_ok(n[VERDICT_OK] == 1, "the same stall at --timeout-scale 4: OK (%s)",
	       r.n ? verdict_name(r.rec[0].c.verdict) : "none");
	lab_result_free(&r);
}

static void setup_faults(void)
{
	struct lab_opts o = opts("mem", 2);
	struct lab_result r;
	int n[VERDICT__COUNT];
	const char *err;

	run("fail-run=test -x", &o, &r, n, &err);
	tap_ok(n[VERDICT_NOT_RUN] == 2 && !n[VERDICT_QEMU_DIED] && strstr(err, "SetupFailed") &&
	       all_null(&r.rec[1]),
	       "no tools disk: SetupFailed, cycles NotRun with null figures, never QemuDied");
	lab_result_free(&r);

	run("knob-refused", &o, &r, n, &err);
	tap_ok(!n[VERDICT_OK] && !n[VERDICT_QEMU_DIED] && strstr(err, "SetupFailed"),
	       "a refused knob: SetupFailed");
	lab_result_free(&r);

	run("fail-run=bigfile.fio", &o, &r, n, &err);
	tap_ok(n[VERDICT_SETUP_FAILED] >= 1 && !n[VERDICT_QEMU_DIED] &&
	       all_null(&r.rec[0]), "a failed fio: SetupFailed with null figures (%s)",
	       verdict_name(r.rec[0].c.verdict));
	lab_result_free(&r);
}

static int open_fds(void)
{
	return fakerun_count("/proc/self/fd", "");
}

static void paths(void)
{
	struct lab_opts o = opts("mem", 1);
	struct lab_result r;
	int n[VERDICT__COUNT], fds;
	const char *err;
	char deep[400], cmd[4096], want[600];
	const char *q;
	struct hx h;

	/* a long --out: logs there, sockets in their own short directory */
	snprintf(deep, sizeof(deep), "%s/%0200d", fakerun_dir(), 0);
	mkdir(deep, 0755);
	o.hx.out_dir = deep;
	o.hx.keep_logs = true;
	fds = open_fds();
	run(NULL, &o, &r, n, &err);
	tap_ok(n[VERDICT_OK] == 1, "a 230-byte --out with --keep-logs boots (%s)",
	       r.n ? verdict_name(r.rec[0].c.verdict) : "none");
	tap_ok(open_fds() == fds, "no descriptor left open after the run (%d, %d)", fds,
	       open_fds());
	lab_result_free(&r);

	snprintf(deep, sizeof(deep), "%s/a,b", fakerun_dir());
	mkdir(deep, 0755);
	o.hx.out_dir = deep;
	o.hx.keep_logs = false;
	run(NULL, &o, &r, n, &err);
	tap_ok(n[VERDICT_OK] == 1, "a comma in --out: the disk image is found (%s)",
	       r.n ? verdict_name(r.rec[0].c.verdict) : "none");
	lab_result_free(&r);

	hx_init(&h, &o.hx);
	snprintf(h.img, sizeof(h.img), "%s/data.img", deep);
	hx_format_command(&h, true, cmd, sizeof(cmd));
	snprintf(want, sizeof(want), "%s/slab.XXXXXX/qmp.sock", getenv("TMPDIR"));
	for (q = strstr(cmd, "qmp.sock"); q && q > cmd && q[-1] != '='; q--)
		;
	tap_ok(strstr(cmd, "a,,b/data.img") && strstr(cmd, want) &&
	       !strstr(cmd, "path=/qmp.sock"),
	       "--show-command: commas doubled, sockets in a placeholder directory under $TMPDIR (%.*s)",
	       q ? (int)strcspn(q, ", ") : 11, q ? q : "no qmp.sock");
	tap_ok(fakerun_live_children("fakeqemu") == 0 && fakerun_count(fakerun_dir(), "slab.") == 0,
	       "no fakeqemu and no slab.* directory left behind");
}

int main(void)
{
	/* private sockets land here, to be counted */
	setenv("TMPDIR", fakerun_dir(), 1);
	healthy();
	spans();
	workloads_and_modes();
	start_failures();
	protocol_faults();
	suspend_faults();
	setup_faults();
	paths();
	fakerun_done();
	return tap_done();
}

/*
 * t_vm_knob: boots a guest and proves kernel.suspend_sync end to end.
 *
 * Guards: the knob exists and behaves (the in-guest knobtest: default, one
 * state with /sys/power/sync_on_suspend, writes exactly as the sysctl core
 * handles its own integers, the same answer from both views for every
 * writer); that it gates the sync on real suspends: for mem and freeze,
 * suspend_sync=0 gives no "Filesystems sync" line and no sync_filesystems
 * trace event, suspend_sync=1 gives both, the sync ending before the
 * freezer starts (as the ABI entry now says), and every cycle really reached
 * the platform (machine_suspend traced, suspend_stats/success counted).
 * Where the kernel has the at-risk report: every suspend gives exactly one
 * power:suspend_page_cache event, whose dirty figure is what /proc/meminfo
 * said was dirty at the request (16 MiB written, sync off) or about nothing
 * (sync on), within the slack of the per-CPU vmstat counters; the "PM: Dirty
 * page cache at risk" line comes once with the same figures when
 * pm_debug_messages is on, and never when it is off.  Then a second boot
 * with sysctl.kernel.suspend_sync= on the kernel command line: both views
 * show the value given there.
 *
 * Environment: KERNEL, INITRD; EXPECT_DEFAULT=0 for a kernel built with
 * CONFIG_SUSPEND_SKIP_SYNC=y; KNOB_ONLY=1 skips the suspend cycles.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cycle.h"
#include "guestcmd.h"
#include "hostrun.h"
#include "powercut.h"
#include "tap.h"
#include "vmtest.h"

#define MNT		"/mnt/data"
#define EVENT		"/sys/kernel/tracing/events/power/suspend_page_cache"
#define DIRTY_KB	(16 * 1024LL)	/* what each cycle leaves dirty */

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

static bool has_report;		/* the kernel has power:suspend_page_cache */
static long long slack_kb = -1;	/* how far the per-CPU counters may lag */

/* The event's lines from the trace buffer (the agent clears it on SUSPEND). */
static void event_line(void *ctx, enum agent_msg m, char *rest)
{
	struct cycle *ev = ctx;

	if (m == AGENT_MSG_OUT && strstr(rest, ": suspend_page_cache: "))
		cycle_parse_trace(ev, rest);
}

static void check_report(struct vm *vm, const char *what, int sync, int dbg,
			 struct cycle *c)
{
	struct cycle ev;
	int status = -1;
	long long lo, hi, d;

	if (!has_report) {
		tap_skip("kernel has no power:suspend_page_cache event",
			 "%s: at-risk report", what);
		return;
	}
	/* read the buffer ourselves: the agent relays only the events it knows */
	memset(&ev, 0, sizeof(ev));
	if (vm_agent_request(vm, "GET /sys/kernel/tracing/trace", event_line, &ev,
			     10000, &status) || status)
		ev.skip_events = -1;
	tap_ok(ev.skip_events == 1, "%s: one suspend_page_cache event (%d)", what,
	       ev.skip_events);
	if (ev.skip_events != 1)
		return;
	/*
	 * Synced, nothing should be left; else what /proc/meminfo said was
	 * dirty at the request.  The kernel's two counters may each lag by
	 * cpus * threshold pages (slack_kb for both), Dirty at the request
	 * by that much again for its one counter.
	 */
	d = ev.skip_dirty_kb + ev.skip_writeback_kb;	/* both are lost in a cut */
	lo = sync ? 0 : c->dirty_kb - slack_kb - slack_kb / 2;
	hi = sync ? slack_kb : c->dirty_kb + slack_kb + slack_kb / 2;
	tap_ok(slack_kb >= 0 && d >= lo && d <= hi,
	       "%s: kernel says %lld kB not on storage, want %lld..%lld (%s, Dirty at the "
	       "request %lld kB, slack %lld kB; of it under writeback %lld kB)", what, d,
	       lo, hi, sync ? "synced" : "left dirty", c->dirty_kb, slack_kb,
	       ev.skip_writeback_kb);
	if (dbg)
		tap_ok(c->skip_lines == 1 && c->skip_line_dirty_kb == ev.skip_dirty_kb &&
		       c->skip_line_writeback_kb == ev.skip_writeback_kb,
		       "%s: one \"PM: Page cache not on storage\" line, as the event "
		       "(%d line(s), %lld + %lld kB)", what, c->skip_lines, c->skip_line_dirty_kb,
		       c->skip_line_writeback_kb);
	else
		tap_ok(c->skip_lines == 0, "%s: no at-risk line without pm_debug_messages "
		       "(%d)", what, c->skip_lines);
}

static void one_cycle(struct vm *vm, const char *state, int sync, int dbg)
{
	static int n;
	char what[64];
	struct cycle c;
	enum verdict v;
	long long before, after;
	bool fs, tr;

	snprintf(what, sizeof(what), "%s sync=%d pm_debug_messages=%d", state, sync, dbg);
	n++;
	if (!tap_ok(!guest_cmd(vm, 10000, NULL, "SET /proc/sys/kernel/suspend_sync %d", sync) &&
		    !guest_cmd(vm, 10000, NULL, "SET /sys/power/pm_debug_messages %d", dbg) &&
		    !guest_cmd(vm, 60000, NULL, "WRITE " MNT "/dirty%d %d 0 %lld 0", n, n,
			       DIRTY_KB * 1024),
		    "%s: knob set, %lld kB written without fsync", what, DIRTY_KB))
		return;
	before = get_ll(vm, "/sys/power/suspend_stats/success");
	v = cycle_run(vm, state, &cycle_default_timeouts, &c);
	after = get_ll(vm, "/sys/power/suspend_stats/success");
	if (!tap_ok(v == VERDICT_OK, "%s: cycle completes (%s, rc %d)", what,
		    verdict_name(v), c.rc)) {
		vm_report_death(vm);
		return;
	}
	tap_ok(after == before + 1, "%s: suspend_stats/success %lld -> %lld", what,
	       before, after);
	fs = c.fs_sync_lines > 0;
	tr = cycle_phase_count(&c, "sync_filesystems") > 0;
	tap_ok(fs == (sync == 1), "%s: \"Filesystems sync\" line %s", what,
	       fs ? "present" : "absent");
	tap_ok(tr == (sync == 1), "%s: sync_filesystems trace event %s", what,
	       tr ? "present" : "absent");
	if (tr)	/* the ABI entry: the sync runs before the freezer */
		tap_ok(cycle_phase_end(&c, "sync_filesystems") >= 0 &&
		       cycle_phase_end(&c, "sync_filesystems") <=
		       cycle_phase_begin(&c, "freeze_processes"),
		       "%s: the sync ends (%.6f) before the freezer starts (%.6f)", what,
		       cycle_phase_end(&c, "sync_filesystems"),
		       cycle_phase_begin(&c, "freeze_processes"));
	/* the set-up, not the kernel: writeback really was held off */
	tap_ok(c.dirty_kb >= DIRTY_KB - 1024,
	       "%s: the data was still dirty at the request (Dirty %lld kB)", what,
	       c.dirty_kb);
	check_report(vm, what, sync, dbg, &c);
	/* unlinking drops the dirty pages unwritten: the next cycle starts clean */
	guest_cmd(vm, 30000, NULL, "RUN rm -f " MNT "/dirty%d", n);
	tap_diag("%s: %d phases traced, machine_suspend %.3f s", what, c.n_phases,
		 cycle_phase_s(&c, "machine_suspend"));
}

static int make_disk(char *dir, char *img, size_t n)
{
	char *mkfs[] = { "mkfs.ext4", "-q", "-F", "-L", "ssdata", "-E",
			 "lazy_itable_init=0,lazy_journal_init=0", img, NULL };
	FILE *f;

	if (!mkdtemp(dir))
		return -1;
	snprintf(img, n, "%s/data.img", dir);
	f = fopen(img, "w");
	if (!f || fclose(f) || truncate(img, 256LL << 20))
		return -1;
	return host_run(mkfs, true);
}

static void cycles(struct vm *vm)
{
	char *out = NULL;

	if (guest_cmd(vm, 30000, NULL, "RUN mount -t ext4 LABEL=ssdata " MNT " && "
		      "sysctl -q -w vm.dirty_writeback_centisecs=0 "
		      "vm.dirty_expire_centisecs=360000 vm.dirty_ratio=90 "
		      "vm.dirty_background_ratio=80")) {
		tap_ok(false, "data disk mounted, writeback held off");
		return;
	}
	/*
	 * Warm-up: the first buffered writes to a fresh filesystem see part
	 * of their pages written back before the request (as the lab's
	 * warm-up cycle does, write and drop as much once).
	 */
	if (guest_cmd(vm, 60000, NULL, "WRITE " MNT "/warmup 0 0 %lld 1", DIRTY_KB * 1024) ||
	    guest_cmd(vm, 30000, NULL, "RUN rm -f " MNT "/warmup && sync"))
		tap_diag("warm-up write failed");
	has_report = !guest_cmd(vm, 10000, NULL, "RUN test -e " EVENT) &&
		     !guest_cmd(vm, 10000, NULL, "SET " EVENT "/enable 1");
	if (!guest_cmd(vm, 10000, &out, "RUN echo cpus=$(grep -c ^processor /proc/cpuinfo)"
		       " threshold=$(awk '/vm stats threshold/ { if ($4 > m) m = $4 }"
		       " END { print m + 0 }' /proc/zoneinfo)"))
		slack_kb = pc_counter_slack_kb(out);
	tap_diag("counter slack %lld kB (%s)", slack_kb, out ? out : "?");
	free(out);

	one_cycle(vm, "mem", 0, 1);
	one_cycle(vm, "mem", 1, 1);
	one_cycle(vm, "freeze", 0, 1);
	one_cycle(vm, "freeze", 1, 1);
	one_cycle(vm, "mem", 0, 0);
	one_cycle(vm, "freeze", 1, 0);
	guest_cmd(vm, 10000, NULL, "SET /sys/power/pm_debug_messages 0");
}

/* sysctl.kernel.suspend_sync=<the other value> on the kernel command line */
static void command_line(int def)
{
	struct vm_config cfg = { .mem_mb = 512, .smp = 2 };
	char append[64];
	char *out = NULL;
	struct vm vm;
	enum verdict v;
	long long a, b;
	int r;

	snprintf(append, sizeof(append), "sysctl.kernel.suspend_sync=%d", !def);
	cfg.append = append;
	v = vmtest_boot(&vm, &cfg, "knob-cmdline");
	if (!tap_ok(v == VERDICT_OK, "boot with %s (%s)", append, verdict_name(v)))
		return;
	a = get_ll(&vm, "/proc/sys/kernel/suspend_sync");
	b = get_ll(&vm, "/sys/power/sync_on_suspend");
	tap_ok(a == !def && b == !def, "%s: sysctl %lld, sysfs %lld", append, a, b);
	r = guest_cmd(&vm, 10000, &out, "RUN sysctl -a 2>/dev/null | grep suspend_sync");
	tap_ok(!r && out && strstr(out, "kernel.suspend_sync") &&
	       strchr(out, '0' + !def), "sysctl -a lists it (%s)", out ? out : "nothing");
	free(out);
	out = NULL;
	r = guest_cmd(&vm, 10000, &out, "RUN dmesg | grep -i 'sysctl param' || true");
	tap_ok(!r && out && !*out, "no complaint from do_sysctl_args() (%s)",
	       out && *out ? out : "none");
	free(out);
	vm_stop(&vm);
}

int main(void)
{
	struct vm_config cfg = { .mem_mb = 512, .smp = 2 };
	const char *def_s = getenv("EXPECT_DEFAULT");
	int def = def_s ? atoi(def_s) : 1;
	bool knob_only = getenv("KNOB_ONLY") != NULL;
	char dir[] = "/tmp/t_vm_knob.XXXXXX", img[64] = "";
	int guest_failed = 0, status = -1;
	char req[64];
	struct vm vm;
	enum verdict v;

	if (!knob_only) {
		int r = make_disk(dir, img, sizeof(img));

		if (!tap_ok(!r, "ext4 data disk made (%s)", r ? strerror(errno) : img))
			return tap_done();
		cfg.drives[cfg.n_drives++] = (struct vm_drive){ .file = img };
	}
	v = vmtest_boot(&vm, &cfg, "knob");
	if (tap_ok(v == VERDICT_OK, "guest boots to agent READY (%s)", verdict_name(v))) {
		tap_diag("kernel %s, boot to agent READY %.2f s", vm.release,
			 vm.t_ready - vm.t_spawn);
		tap_ok(!strcmp(vm.knob, "suspend_sync"),
		       "kernel has /proc/sys/kernel/suspend_sync (agent saw knob=%s)",
		       vm.knob);
		snprintf(req, sizeof(req), "RUN /bin/knobtest %d", def);
		v = vm_agent_request(&vm, req, vmtest_relay_tap, &guest_failed, 180000, &status);
		tap_ok(v == VERDICT_OK && status == 0 && !guest_failed,
		       "guest knobtest exits 0 (%s, status %d)", verdict_name(v), status);
		if (!knob_only)
			cycles(&vm);
		vm_stop(&vm);
	}
	command_line(def);
	if (!knob_only) {
		unlink(img);
		rmdir(dir);
	}
	return tap_done();
}

/*
 * t_vm_fs: every filesystem of the matrix (fskind.h) in a real guest.
 *
 * Guards, per filesystem: the guest mounts it and runs a short mem cycle
 * with the sync on (a sync_filesystems phase) and off (none); a cut while
 * suspended with sync=1 loses 0 bytes on the emmc profile (a volatile
 * cache, so only the sync's flushes make it durable) and one with sync=0
 * loses data, no more than the kernel said was at risk plus the counters'
 * slack, and keeps the fsync'd file; the same sync=1 cut with the drive
 * dropping flushes loses the fsync'd file, and the oracle says so; the
 * filesystem's own checker (on the host) is clean after each honest cut.
 * One crash-state recording of a sync=1 mem cycle is judged: every state
 * from the sync's last flush on loses 0 bytes, the checker is
 * clean on every state, and a replay that drops a flush is caught at least
 * once (each drop is caught only where nothing later rewrote what it
 * dropped; ext4's vm-crash needs every one).
 *
 * ext4 has its own, longer groups (vm-lab, vm-powercut, vm-drive,
 * vm-crash); FS_LIST="xfs f2fs" picks kinds (default: all but ext4).
 * Environment: KERNEL, INITRD, TOOLS_DISK; SLAB_LOGDIR keeps logs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash.h"
#include "lab.h"
#include "powercut.h"
#include "tap.h"
#include "vmcrash.h"
#include "vmtest.h"

static char dir[] = "/tmp/t_vm_fs.XXXXXX";
static struct hx_opts hxo;

static void lab(const struct fs_kind *k)
{
	static char *argv[] = { "t_vm_fs", "--quiet", NULL };
	struct lab_result r;
	struct lab_opts o;
	int rc, stalled = 0;

	if (lab_parse_args(2, argv, &o)) {
		tap_ok(false, "%s: lab options", k->name);
		return;
	}
	o.hx = hxo;
	o.hx.fs = k;
	o.n_states = 1;
	o.states[0] = "mem";
	o.n_syncs = 2;
	o.syncs[0] = 1;
	o.syncs[1] = 0;
	o.n_dirty = 1;
	o.dirty[0] = 16ULL << 20;
	o.cycles = 1;
	rc = lab_run(&o, &r, NULL);
	/* a cycle the host took on every attempt is a SKIP below, not a failure */
	for (int i = 0; i < r.n; i++)
		stalled += r.rec[i].c.verdict == VERDICT_HOST_STALL;
	tap_ok((rc == 0 || (rc == 1 && stalled)) && r.n == 2,
	       "%s: mounted, the lab ran %d cycles (rc %d, %d HostStall)", k->name, r.n, rc,
	       stalled);
	for (int i = 0; i < r.n; i++) {
		const struct cycle_record *c = &r.rec[i];
		int phases = cycle_phase_count(&c->c, "sync_filesystems");

		if (vmtest_host_took(c->c.verdict, c->c.why, k->name))
			continue;
		tap_ok(c->c.verdict == VERDICT_OK && (phases > 0) == (c->sync == 1),
		       "%s mem sync=%d: %s, %d sync_filesystems phase(s), sync %.3f s, resume %.3f s",
		       k->name, c->sync, verdict_name(c->c.verdict), phases, c->sync_phase_s,
		       c->resume_latency_s);
	}
	lab_result_free(&r);
}

static bool cut(const struct fs_kind *k, int sync, bool drop, int idx, struct pc_record *r)
{
	struct pc_opts o = {
		.state = "mem", .sync = sync, .cut = CUT_SUSPENDED, .cut_offset_ms = -1,
		.cycles = 1, .big_bytes = 4 << 20, .seed = 13,
	};

	o.hx = hxo;
	o.hx.fs = k;
	o.hx.profile = disk_profile("emmc");
	o.hx.drop_flushes = drop;
	pc_cycle(&o, idx, r, NULL);
	return tap_ok(r->verdict == VERDICT_OK && r->cut_by_sigkill && r->judged,
		      "%s mem sync=%d%s: cut while suspended and judged (%s)", k->name, sync,
		      drop ? ", flushes dropped" : "", verdict_name(r->verdict));
}

static void cuts(const struct fs_kind *k, int *idx)
{
	struct pc_record r;

	if (cut(k, 1, false, (*idx)++, &r)) {
		tap_ok(r.bytes_lost == 0 && r.n[FV_INTACT] == r.n_files,
		       "%s sync=1: %llu of %llu bytes lost, %d/%d files intact", k->name,
		       (unsigned long long)r.bytes_lost, (unsigned long long)r.bytes_written,
		       r.n[FV_INTACT], r.n_files);
		tap_ok(r.fs_clean, "%s sync=1: %s after the cut: %s", k->name, k->checker,
		       r.fs_clean ? "clean" : "not clean");
	}
	if (cut(k, 0, false, (*idx)++, &r)) {
		tap_ok(r.bytes_lost > 0 && r.fsync_intact &&
		       (r.kernel_at_risk_kb < 0 || pc_loss_within_risk(&r)),
		       "%s sync=0: lost %llu bytes (kernel's at-risk %lld kB + slack %lld kB), "
		       "the fsync'd file %s", k->name, (unsigned long long)r.bytes_lost,
		       r.kernel_at_risk_kb, r.at_risk_slack_kb,
		       r.fsync_intact ? "intact" : "lost");
		tap_ok(r.fs_clean, "%s sync=0: %s after the cut: %s", k->name, k->checker,
		       r.fs_clean ? "clean" : "not clean");
	}
	if (cut(k, 1, true, (*idx)++, &r))
		tap_ok(!r.fsync_intact || !r.fs_clean || r.n[FV_UNREADABLE] > 0,
		       "%s, flushes dropped: caught (%llu bytes lost, the fsync'd file %s, "
		       "checker %s, %d/%d files intact)", k->name,
		       (unsigned long long)r.bytes_lost, r.fsync_intact ? "intact" : "lost",
		       r.fs_clean ? "clean" : "not clean", r.n[FV_INTACT], r.n_files);
}

static void judged(const struct fs_kind *k, const struct cs_run *run)
{
	const struct cs_cycle *c = &run->cy[0];
	struct vmcrash_tally t;
	int drops = 0, caught = 0;

	for (int i = 0; i < run->n; i++) {
		const struct cs_result *r = &run->res[i];

		if (r->kind != CS_DROP)
			continue;
		drops++;
		caught += r->judged && (!r->fsync_intact || !r->mounted || !r->fs_clean);
	}
	vmcrash_tally(run, c, 1, k->name, &t);
	tap_ok(c->sync_last_flush > c->m.request && t.after > 0 && t.zero == t.after,
	       "%s crash states: %d of %d from the sync's last flush (%d) on lose 0 bytes",
	       k->name, t.zero, t.after, c->sync_last_flush);
	tap_ok(t.n > 0 && t.clean == t.n, "%s crash states: mounted and %s clean in %d of %d",
	       k->name, k->checker, t.clean, t.n);
	/* a dropped flush shows only where nothing later rewrote what it
	 * dropped: f2fs masks some of its own */
	tap_ok(drops > 0 && caught >= 1,
	       "%s crash states: a dropped flush's ordering caught in %d of %d", k->name,
	       caught, drops);
}

static void crash(const struct fs_kind *k)
{
	char *argv[] = { "crash-states", "judge", "--prefixes", "4", "--gap-states", "2",
			 "--per-boot", "24", "--drop-flush", "--quiet", NULL };
	char rec[600], path[1200], cmd[700];
	char *paths[1] = { path };
	struct cs_backend be;
	struct cs_opts o;
	struct cs_run run;
	int rc;

	if (cs_parse_args(10, argv, &o)) {
		tap_ok(false, "%s: crash-states options", k->name);
		return;
	}
	o.hx = hxo;
	o.hx.fs = k;
	snprintf(rec, sizeof(rec), "%s/crash-%s", dir, k->name);
	o.rec_dir = rec;
	snprintf(path, sizeof(path), "%s/cycle-1", rec);
	if (mkdir(rec, 0755) ||
	    !tap_ok(cs_record(&o, 1, 1, path) == VERDICT_OK,
		    "%s mem sync=1: recorded, the whole log replays to the recorded disk", k->name))
		goto out;
	be = cs_vm_backend(&o);
	rc = cs_judge(&o, &be, path, sizeof(path));
	cs_vm_backend_done(&be);
	if (tap_ok(rc == 0, "%s: every crash state judged (%d)", k->name, rc) &&
	    !cs_merge(paths, 1, &run)) {
		judged(k, &run);
		cs_run_free(&run);
	}
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rec);
	if (system(cmd))
		tap_diag("could not remove %s", rec);
}

/* FS_LIST names kinds, separated by spaces or commas; without it every
 * kind but ext4. */
static bool wanted(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (!list)
		return strcmp(name, "ext4") != 0;
	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || strchr(" ,", p[-1])) && (!p[n] || strchr(" ,", p[n])))
			return true;
	return false;
}

int main(void)
{
	const char *list = getenv("FS_LIST");
	int idx = 0;

	if (!vmtest_lab_opts(&hxo, dir, "every filesystem in a guest"))
		return tap_done();
	for (size_t i = 0; i < fs_n_kinds; i++) {
		const struct fs_kind *k = &fs_kinds[i];

		if (!wanted(list, k->name))
			continue;
		lab(k);
		cuts(k, &idx);
		crash(k);
	}
	rmdir(dir);
	return tap_done();
}

/*
 * t_vm_crash: crash states of real suspend cycles, judged in real guests.
 *
 * Records one mem cycle with suspend_sync=1 and one with 0 (emmc profile,
 * every write logged by QEMU's blklogwrites), enumerates their crash
 * states (after each flush, seeded subsets between flushes, a sample of
 * write prefixes) plus the test-only states that drop a flush's ordering,
 * and judges them all, many per boot.
 *
 * Guards: the whole log replays to exactly the disk QEMU wrote; with the
 * sync on, every state from the sync's last flush to the suspend loses 0
 * bytes, and e2fsck is clean on every state; with it off, every state from
 * the request on loses exactly the unsynced data; the fsync'd control
 * file is intact in every state after its fsync returned, in both; a
 * replay that drops a flush is caught by the oracle; every state judged.
 *
 * Environment: KERNEL, INITRD, TOOLS_DISK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "crash.h"
#include "tap.h"
#include "vmcrash.h"

static const struct cs_cycle *cycle_of(const struct cs_run *run, int sync)
{
	for (int i = 0; i < run->n_cycles; i++)
		if (run->cy[i].sync == sync)
			return &run->cy[i];
	return NULL;
}

static void sync_on(const struct cs_run *run)
{
	const struct cs_cycle *c = cycle_of(run, 1);
	struct vmcrash_tally t;

	if (!tap_ok(c && c->sync_last_flush > c->m.request, "sync=1: the sync flushed (last"
		    " flush at %d, request at %d)", c ? c->sync_last_flush : -1,
		    c ? c->m.request : -1))
		return;
	vmcrash_tally(run, c, 1, "sync=1", &t);
	tap_ok(t.after > 0 && t.zero == t.after, "sync=1: %d of %d states from the sync's last flush"
	       " (%d) to the suspend lose 0 bytes", t.zero, t.after, c->sync_last_flush);
	tap_ok(t.n > 0 && t.clean == t.n, "sync=1: e2fsck -fn clean after journal replay in %d of %d"
	       " states", t.clean, t.n);
}

static void sync_off(const struct cs_run *run)
{
	const struct cs_cycle *c = cycle_of(run, 0);
	int after = 0, exact = 0;

	if (!tap_ok(c != NULL, "sync=0 cycle recorded"))
		return;
	for (int i = 0; i < run->n; i++) {
		const struct cs_result *r = &run->res[i];
		uint64_t unsynced = r->expected_bytes - r->durable_bytes;

		if (r->sync != 0 || r->kind == CS_DROP || !r->judged || r->pos < c->m.request)
			continue;
		after++;
		exact += r->lost_bytes == unsynced && unsynced > 0;
		if (r->lost_bytes != unsynced)
			tap_diag("%s lost %llu bytes of %llu unsynced", r->name,
				 (unsigned long long)r->lost_bytes, (unsigned long long)unsynced);
	}
	tap_ok(after > 0 && exact == after, "sync=0: %d of %d states from the request on lose"
	       " exactly the unsynced data", exact, after);
}

static void fsync_kept(const struct cs_run *run)
{
	for (int sync = 1; sync >= 0; sync--) {
		const struct cs_cycle *c = cycle_of(run, sync);
		int n = 0, ok = 0;

		for (int i = 0; c && i < run->n; i++) {
			const struct cs_result *r = &run->res[i];

			if (r->sync != sync || r->kind == CS_DROP || !r->judged ||
			    r->pos < c->fsync_pos)
				continue;
			n++;
			ok += r->fsync_intact;
		}
		tap_ok(c && c->fsync_pos > 0 && n > 0 && ok == n, "sync=%d: the fsync'd control"
		       " file intact in %d of %d states after its fsync (%d)", sync, ok, n,
		       c ? c->fsync_pos : -1);
	}
}

static void drops(const struct cs_run *run)
{
	int n = 0, caught = 0;

	for (int i = 0; i < run->n; i++) {
		const struct cs_result *r = &run->res[i];

		if (r->kind != CS_DROP)
			continue;
		n++;
		caught += r->judged && (!r->fsync_intact || !r->mounted || !r->fs_clean);
		tap_diag("%s (sync=%d): %s, fsync'd data %s, fs %s", r->name, r->sync, r->verdict,
			 r->fsync_intact ? "intact" : "lost", r->fs_clean ? "clean" : "damaged");
	}
	tap_ok(n > 0 && caught == n, "a replay that drops a flush's ordering is caught:"
	       " %d of %d states", caught, n);
}

int main(void)
{
	char dir[] = "/tmp/t_vm_crash.XXXXXX", path[1200], cyc[600], cmd[1300];
	char *argv[] = { "crash-states", "judge", "--prefixes", "6", "--gap-states", "2",
			 "--per-boot", "24", "--drop-flush", "--quiet", NULL };
	char *paths[1] = { path };
	struct cs_backend be;
	struct cs_opts o;
	struct cs_run run;
	int rc;

	if (!getenv("KERNEL") || !getenv("INITRD") || !getenv("TOOLS_DISK")) {
		tap_skip("KERNEL, INITRD and TOOLS_DISK are needed", "crash states");
		return tap_done();
	}
	if (!mkdtemp(dir) || cs_parse_args(10, argv, &o))
		return 1;
	cleanup_install();
	o.hx.out_dir = dir;
	o.hx.keep_logs = getenv("SLAB_LOGDIR") != NULL;
	snprintf(cyc, sizeof(cyc), "%s/crash-rec", dir);
	o.rec_dir = cyc;
	if (mkdir(cyc, 0755))
		return 1;
	for (int sync = 1; sync >= 0; sync--) {
		snprintf(path, sizeof(path), "%s/cycle-%d", cyc, 2 - sync);
		tap_ok(cs_record(&o, 2 - sync, sync, path) == VERDICT_OK,
		       "mem sync=%d: cycle recorded, the whole log replays to the recorded disk",
		       sync);
	}
	be = cs_vm_backend(&o);
	rc = cs_judge(&o, &be, path, sizeof(path));
	cs_vm_backend_done(&be);
	tap_ok(rc == 0, "every state judged (%d)", rc);
	if (!cs_merge(paths, 1, &run)) {
		sync_on(&run);
		sync_off(&run);
		fsync_kept(&run);
		drops(&run);
		cs_report_table(stdout, &run);
	}
	cs_run_free(&run);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	return tap_done();
}

/*
 * t_pc_faults: power cuts end to end against fakeqemu, whose disk model
 * loses what was never made durable when it is SIGKILLed.
 *
 * Guards the verdicts and the oracle on a whole cycle:
 * - sync=1, cut while suspended: judged, 0 bytes lost, fsync'd intact;
 * - sync=0: the unsynced data lost, the fsync'd head of append.log and the
 *   control file intact, and the kernel's figure read from the console;
 * - an unmountable filesystem: FsUnmountable, the whole dataset lost;
 * - a symlink in a file's place, a file longer than written, the rename's
 *   old name still there: not-regular, corrupted with the extra bytes lost,
 *   an unexpected entry; a file or directory the filesystem refuses to
 *   read (EUCLEAN, as f2fs gives): the cut still judged, the file
 *   unreadable with its bytes lost, the directory an unexpected entry;
 * - a guest that never suspends (QEMU stopped on its way down):
 *   NoSuspendEvent, nothing judged, no fsync or fs verdict, and quickly;
 * - QEMU gone before the cut: QemuDied, not judged; QEMU exiting at
 *   start-up: QemuStartFailed;
 * - --timeout-scale reaches the wait for the suspend: a stall longer than
 *   the wait is NoSuspendEvent, the same stall at scale 4 is cut and judged;
 * - power-cut's numbers are strict (' 5', '+5' refused);
 * - the summary counts the unmountable and the corrupted;
 * - --fs: the guest mounts the kind asked for, and its checker runs on the
 *   host's image after the cut (xfs_repair: clean); a checker that reports
 *   damage (a fake in $SLAB_FSCK) makes a judged cut not clean, counted in
 *   the summary; one that cannot check is not clean and says why on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "fakerun.h"
#include "powercut.h"
#include "summary.h"
#include "tap.h"

static int idx;
static const char *last_err;	/* the last cut's stderr */

static struct pc_opts opts(int sync)
{
	struct pc_opts o;

	memset(&o, 0, sizeof(o));
	fakerun_opts(&o.hx);
	o.state = "mem";
	o.sync = sync;
	o.cut = CUT_SUSPENDED;
	o.cut_offset_ms = -1;
	o.cycles = 1;
	o.big_bytes = 1 << 20;
	o.seed = 3;
	return o;
}

static enum verdict cut(const char *scenario, struct pc_opts *o, struct pc_record *r)
{
	enum verdict v;
	char img[600];

	fakerun_scenario(scenario);
	fakerun_stderr_begin();
	v = pc_cycle(o, idx, r, &fakerun_timeouts);
	last_err = fakerun_stderr_end();
	snprintf(img, sizeof(img), "%s/.fakeqemu-cut-%d.img", o->hx.out_dir, ++idx);
	unlink(img);
	return v;
}

static const struct pc_file *file(const struct pc_record *r, const char *path)
{
	for (int i = 0; i < r->n_files; i++)
		if (!strcmp(r->files[i].path, path))
			return &r->files[i];
	return NULL;
}

static void settings(void)
{
	struct pc_opts o = opts(1);
	struct pc_record r;

	cut(NULL, &o, &r);
	tap_ok(r.verdict == VERDICT_OK && r.judged && r.bytes_lost == 0 && r.fsync_intact &&
	       r.n[FV_INTACT] == r.n_files && !r.n_unexpected,
	       "sync=1 cut while suspended: judged, 0 bytes lost (%s, %llu lost)",
	       verdict_name(r.verdict), (unsigned long long)r.bytes_lost);
	o = opts(0);
	cut(NULL, &o, &r);
	tap_ok(r.verdict == VERDICT_OK && r.bytes_lost > 0 && r.fsync_intact &&
	       file(&r, "pc/control.bin")->v == FV_INTACT &&
	       file(&r, "pc/append.log")->first_bad >= 256 * 1024,
	       "sync=0: %llu bytes lost, the fsync'd control file and head of append.log kept",
	       (unsigned long long)r.bytes_lost);
	tap_ok(r.kernel_at_risk_kb > 0 && r.at_risk_slack_kb == 256,
	       "sync=0: the kernel's figure (%lld kB) and the counter slack read",
	       r.kernel_at_risk_kb);
}

static void damage(void)
{
	struct pc_opts o = opts(1);
	struct pc_record r;

	cut("unmountable", &o, &r);
	tap_ok(r.verdict == VERDICT_FS_UNMOUNTABLE && r.judged &&
	       r.bytes_lost == r.dataset_bytes && !r.fsync_intact,
	       "unmountable: FsUnmountable, all %llu bytes of the dataset lost",
	       (unsigned long long)r.dataset_bytes);
	cut("symlink=pc/mid.bin", &o, &r);
	tap_ok(file(&r, "pc/mid.bin")->v == FV_NOT_REGULAR && r.bytes_lost == 1 << 20,
	       "a symlink in place of mid.bin: not-regular, its 1 MiB lost");
	cut("extend=pc/odd.bin", &o, &r);
	tap_ok(file(&r, "pc/odd.bin")->v == FV_CORRUPTED && r.bytes_lost == 64,
	       "odd.bin 64 bytes longer: corrupted, 64 bytes lost (%llu)",
	       (unsigned long long)r.bytes_lost);
	cut("leftover=pc/tmp.name", &o, &r);
	tap_ok(r.n_unexpected == 1 && !strcmp(r.unexpected[0], "pc/tmp.name"),
	       "the rename's old name left behind: flagged as unexpected");
	cut("euclean=pc/mid.bin", &o, &r);
	tap_ok(r.verdict == VERDICT_OK && r.judged && file(&r, "pc/mid.bin")->v == FV_UNREADABLE &&
	       r.bytes_lost == 1 << 20 && r.n[FV_INTACT] == r.n_files - 1,
	       "reading mid.bin fails with EUCLEAN: judged (%s), mid.bin %s, %llu bytes lost, "
	       "%d/%d files intact", verdict_name(r.verdict),
	       file_verdict_name(file(&r, "pc/mid.bin")->v), (unsigned long long)r.bytes_lost,
	       r.n[FV_INTACT], r.n_files);
	cut("list-euclean", &o, &r);
	tap_ok(r.verdict == VERDICT_OK && r.judged && r.n_unexpected == 1 &&
	       strstr(r.unexpected[0], "errno 117") && !strstr(last_err, "request failed"),
	       "LIST fails with EUCLEAN: judged (%s), %d unexpected entr%s (%s), a failure printed %d",
	       verdict_name(r.verdict), r.n_unexpected, r.n_unexpected == 1 ? "y" : "ies",
	       r.n_unexpected ? r.unexpected[0] : "none", !!strstr(last_err, "request failed"));
}

static void no_cut(void)
{
	struct pc_opts o = opts(1);
	struct pc_record r;
	double t0 = mono_now();

	cut("no-suspend", &o, &r);
	t0 = mono_now() - t0;
	tap_ok(r.verdict == VERDICT_NO_SUSPEND_EVENT && !r.judged && !r.fs_clean &&
	       r.n[FV_NOT_JUDGED] == 0 && t0 < 15,
	       "never suspended: NoSuspendEvent, nothing judged, after %.1f s", t0);
	cut("freeze-fails", &o, &r);
	tap_ok(r.verdict == VERDICT_SUSPEND_FAILED && !r.judged &&
	       strstr(r.why, "gave up") && strstr(r.why, "nothing was cut"),
	       "the kernel gives up on the suspend: SuspendFailed, nothing cut (%s)", r.why);
	cut("die-after=12", &o, &r);
	tap_ok(r.verdict == VERDICT_QEMU_DIED && !r.judged,
	       "QEMU gone before the cut: QemuDied, not judged (%s)", verdict_name(r.verdict));
	cut("exit-at-start", &o, &r);
	tap_ok(r.verdict == VERDICT_QEMU_START_FAILED && !r.judged,
	       "QEMU exits at start: QemuStartFailed, not judged (%s)", verdict_name(r.verdict));
	/* the wait for the suspend: 1 s + twice the dataset's time at the
	 * profile's rate (emmc, 20 MiB/s), under 3 s for this dataset */
	cut("stall-ms=3000", &o, &r);
	tap_ok(r.verdict == VERDICT_NO_SUSPEND_EVENT && !r.judged,
	       "a 3 s stall before suspending, %llu bytes of dataset, at scale 1: NoSuspendEvent (%s)",
	       (unsigned long long)r.dataset_bytes, verdict_name(r.verdict));
	o.hx.timeout_scale = 4;
	cut("stall-ms=3000", &o, &r);
	tap_ok(r.verdict == VERDICT_OK && r.judged,
	       "the same stall at --timeout-scale 4: cut and judged (%s)", verdict_name(r.verdict));
}

static void summary(void)
{
	struct pc_record rec[3];
	struct pc_result run = { .n = 3, .rec = rec };
	struct pc_summary *s = NULL;
	struct pc_opts o = opts(1);
	int n;

	cut(NULL, &o, &rec[0]);
	cut("unmountable", &o, &rec[1]);
	cut("extend=pc/odd.bin", &o, &rec[2]);
	run.o = &o;
	n = pc_summarise(&run, &s);
	/* rows: sync=1 suspended, sync=1 all */
	tap_ok(n == 2 && s[1].cut == CUT__COUNT && s[1].judged == 3 && s[1].unmountable == 1 &&
	       s[1].files[FV_CORRUPTED] == 1 && s[1].lost == rec[1].dataset_bytes + 64,
	       "summary: 3 judged, 1 unmountable, 1 corrupted file, losses summed");
	free(s);
}

/* A checker that prints msg and exits with status, in $SLAB_FSCK. */
static void fake_checker(int status, const char *msg)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/fake-fsck", fakerun_dir());
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "#!/bin/sh\necho '%s'\nexit %d\n", msg, status);
		fclose(f);
	}
	chmod(path, 0755);
	setenv("SLAB_FSCK", path, 1);
}

static void checker(void)
{
	struct pc_opts o = opts(1);
	struct pc_result run = { .n = 1 };
	struct pc_summary *s = NULL;
	struct pc_record r;
	char mounts[600], line[64] = "";
	const char *err;
	FILE *f;
	int n;

	snprintf(mounts, sizeof(mounts), "%s/mounts", fakerun_dir());
	unlink(mounts);
	setenv("FAKEQEMU_MOUNTS", mounts, 1);
	o.hx.fs = fs_kind_find("xfs");
	cut(NULL, &o, &r);
	f = fopen(mounts, "re");
	if (!f || !fgets(line, sizeof(line), f))
		line[0] = '\0';
	if (f)
		fclose(f);
	unsetenv("FAKEQEMU_MOUNTS");
	tap_ok(r.verdict == VERDICT_OK && r.judged && r.fs_clean && !strcmp(line, "xfs\n"),
	       "--fs xfs: the guest mounted '%.*s', judged (%s), xfs_repair -n %s",
	       (int)strcspn(line, "\n"), line, verdict_name(r.verdict),
	       r.fs_clean ? "clean" : "not clean");

	fake_checker(1, "Phase 3: inode 131 has a bad extent");
	cut(NULL, &o, &r);
	run.o = &o;
	run.rec = &r;
	n = pc_summarise(&run, &s);
	tap_ok(r.verdict == VERDICT_OK && r.judged && !r.fs_clean && n >= 1 &&
	       s[n - 1].fs_clean == 0 && s[n - 1].judged == 1,
	       "a checker that finds damage: judged (%s), fs %s, the summary's clean count %d of %d",
	       verdict_name(r.verdict), r.fs_clean ? "clean" : "not clean",
	       n >= 1 ? s[n - 1].fs_clean : -1, n >= 1 ? s[n - 1].judged : -1);
	free(s);

	fake_checker(2, "a dirty log");
	cut(NULL, &o, &r);
	err = last_err;
	tap_ok(r.judged && !r.fs_clean && strstr(err, "xfs_repair -n could not check") &&
	       strstr(err, "a dirty log"),
	       "a checker that cannot check (xfs_repair's 2): fs %s, stderr says %s",
	       r.fs_clean ? "clean" : "not clean",
	       strstr(err, "could not check") ? "why" : "nothing");
	unsetenv("SLAB_FSCK");
}

static void numbers(void)
{
	static const char *const bad[] = { " 5", "+5", "5x", "" };
	struct pc_opts o;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { "power-cut", "--cycles", (char *)bad[i], "--kernel", "k",
				 "--initrd", "i", NULL };
		int rc;

		fakerun_stderr_begin();
		rc = pc_parse_args(7, argv, &o);
		tap_ok(rc == 2 && strstr(fakerun_stderr_end(), "--cycles"),
		       "power-cut --cycles '%s' refused", bad[i]);
	}
}

int main(void)
{
	setenv("TMPDIR", fakerun_dir(), 1);
	settings();
	damage();
	no_cut();
	summary();
	checker();
	numbers();
	tap_ok(fakerun_live_children("fakeqemu") == 0 && fakerun_count(fakerun_dir(), "slab.") == 0 &&
	       fakerun_count(fakerun_dir(), "cut-") == 0,
	       "no fakeqemu, private directory or disk image left behind");
	fakerun_done();
	return tap_done();
}

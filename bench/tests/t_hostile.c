/*
 * t_hostile: what a hostile tester tried, against fakeqemu (issue
 * hostile-v2).
 *
 * Guards: a second run with the same --out is refused while the first
 * runs, and the first's image is not touched; a run killed by SIGKILL
 * leaves directories and an image that the next run sweeps (and a kept
 * image, one without a mark, and a user's "*.tmp.*" file stay); a results set in which one file fails
 * replaces none of the earlier ones; a data image that cannot be made is
 * ImageFailed for every cycle; a QEMU stopped mid-suspend is HostStall, not
 * a measurement; a QEMU that stopped the guest on a full host disk is
 * HostIoError at once, not an agent timeout; nomtime-bench and suspend-lab refuse a
 * kernel or initrd that is not one before starting QEMU, in one line.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakerun.h"
#include "outdir.h"
#include "outset.h"
#include "powercut.h"
#include "progrun.h"
#include "rundir.h"
#include "tap.h"

static char kernel[600], out[600];

static bool exists(const char *dir, const char *name)
{
	char p[1200];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[1200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

#define LAB(...) (char *[]){ "--kernel", kernel, "--initrd", kernel, "--tools-disk", kernel, \
			      "--out", out, "--state", "mem", "--dirty", "0", "--sync", "1", \
			      "--cycles", "1", "--quiet", __VA_ARGS__, NULL }

static void shared_out(void)
{
	pid_t first;
	int rc, status;
	char want[64];

	fakerun_scenario("no-suspend");	/* the first run waits for its SUSPEND */
	first = progrun_spawn("suspend-lab", LAB("--timeout-scale", "100"));
	usleep(500000);
	rc = progrun("suspend-lab", LAB("--timeout-scale", "1"), 0, 0);
	snprintf(want, sizeof(want), "pid %d", (int)first);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "in use") &&
	       strstr(progrun_err, want) && exists(out, "data.img"),
	       "a second run with the same --out: exit %d, %d line(s): %.160s", rc,
	       progrun_lines(progrun_err), progrun_err);

	/* SIGKILL: no cleanup runs; the next run sweeps */
	kill(first, SIGKILL);
	waitpid(first, &status, 0);
	usleep(200000);
	tap_ok(exists(out, "data.img") && fakerun_count(fakerun_dir(), "slab.") == 1,
	       "after SIGKILL: data.img %s, %d slab.* director(ies) left", exists(out, "data.img") ?
	       "left" : "gone", fakerun_count(fakerun_dir(), "slab."));
	put(out, "kept.img", "a --keep-logs image: no mark");
	put(out, "latency.json.tmp.AbCdEf", "a user's file, named like an old temporary");
	fakerun_scenario(NULL);
	rc = progrun("suspend-lab", LAB("--timeout-scale", "1"), 0, 0);
	tap_ok(rc == 0 && !exists(out, "data.img") && !exists(out, ".slab-owner.data.img") &&
	       exists(out, "latency.json.tmp.AbCdEf") && exists(out, "kept.img") &&
	       fakerun_count(fakerun_dir(), "slab.") == 0,
	       "the next run swept the dead run's own (exit %d; data.img %d, user's .tmp. file %d, kept.img %d, slab.* %d)",
	       rc, exists(out, "data.img"), exists(out, "latency.json.tmp.AbCdEf"),
	       exists(out, "kept.img"), fakerun_count(fakerun_dir(), "slab."));
}

static void sweeps(void)
{
	char d[800], other[700];
	int h;

	/* a directory of a process that is gone, one of ours, one unmarked */
	snprintf(d, sizeof(d), "%s/slab.Dead01", fakerun_dir());
	mkdir(d, 0700);
	put(d, "owner", "suspend-lab owner 999999999 1\n");
	put(d, "qmp.sock", "");
	snprintf(other, sizeof(other), "%s/slab.Mine01", fakerun_dir());
	mkdir(other, 0700);
	snprintf(d, sizeof(d), "%s/owner", other);
	rundir_owner_write(d, &h);
	snprintf(d, sizeof(d), "%s/slab.None01", fakerun_dir());
	mkdir(d, 0700);
	tap_ok(rundir_sweep("slab") == 1 && !exists(fakerun_dir(), "slab.Dead01") &&
	       exists(fakerun_dir(), "slab.Mine01") && exists(fakerun_dir(), "slab.None01"),
	       "rundir_sweep: the dead owner's directory only (dead %d, ours %d, unmarked %d)",
	       exists(fakerun_dir(), "slab.Dead01"), exists(fakerun_dir(), "slab.Mine01"),
	       exists(fakerun_dir(), "slab.None01"));
	rmdir(d);
	snprintf(d, sizeof(d), "%s/owner", other);
	unlink(d);
	rmdir(other);
}

static void results_set(void)
{
	struct outset s;
	char p[1200];
	int rc;

	put(out, "latency.json", "old json");
	put(out, "latency.svg", "old svg");
	snprintf(p, sizeof(p), "%s/latency.csv", out);
	unlink(p);
	mkdir(p, 0755);		/* a target that is a directory */
	outset_begin(&s, out);
	put(s.stage, "latency.json", "new json");
	outset_path(&s, "latency.json");
	put(s.stage, "latency.csv", "new csv");
	outset_path(&s, "latency.csv");
	put(s.stage, "latency.svg", "new svg");
	outset_path(&s, "latency.svg");
	rc = outset_commit(&s, 0);
	snprintf(p, sizeof(p), "%s/latency.json", out);
	tap_ok(rc == -1 && fakerun_count(out, ".slab-") == 0 &&
	       !system("grep -qx 'old json' \"$OUT\"/latency.json") &&
	       !system("grep -qx 'old svg' \"$OUT\"/latency.svg"),
	       "a set with a directory in the way: none replaced (rc %d)", rc);
	snprintf(p, sizeof(p), "%s/latency.csv", out);
	rmdir(p);
	outset_begin(&s, out);
	put(s.stage, "latency.json", "new json");
	outset_path(&s, "latency.json");
	rc = outset_commit(&s, 1);
	tap_ok(rc == -1 && !system("grep -qx 'old json' \"$OUT\"/latency.json"),
	       "a set with a failed file: none replaced (rc %d)", rc);
	outset_begin(&s, out);
	put(s.stage, "latency.json", "new json");
	outset_path(&s, "latency.json");
	put(s.stage, "latency.svg", "new svg");
	outset_path(&s, "latency.svg");
	rc = outset_commit(&s, 0);
	tap_ok(rc == 0 && !system("grep -qx 'new json' \"$OUT\"/latency.json") &&
	       !system("grep -qx 'new svg' \"$OUT\"/latency.svg"),
	       "a whole set: every file replaced (rc %d)", rc);
}

static void image_failed(void)
{
	char bin[700], path[2000];
	int rc;

	/* mkfs as on a full disk */
	snprintf(bin, sizeof(bin), "%s/bin", fakerun_dir());
	mkdir(bin, 0755);
	put(bin, "mkfs.ext4", "#!/bin/sh\necho 'mkfs.ext4: No space left on device' >&2\nexit 1\n");
	snprintf(path, sizeof(path), "%s/mkfs.ext4", bin);
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s:%s", bin, getenv("PATH"));
	setenv("PATH", path, 1);
	rc = progrun("suspend-lab", LAB("--timeout-scale", "1"), 0, 0);
	tap_ok(rc == 1 && strstr(progrun_err, "ImageFailed") && strstr(progrun_out, "ImageFailed") &&
	       !strstr(progrun_err, "wrote") && !system("grep -qx 'new json' \"$OUT\"/latency.json"),
	       "mkfs failing: exit %d, ImageFailed on stderr %d, in the table %d; earlier results kept",
	       rc, !!strstr(progrun_err, "ImageFailed"), !!strstr(progrun_out, "ImageFailed"));
	setenv("PATH", strchr(path, ':') + 1, 1);
}

static void host_stall(void)
{
	const char *why;
	int rc;

	fakerun_scenario("host-stop-ms=1500");	/* SIGSTOP between REQUEST and suspend */
	rc = progrun("suspend-lab", LAB("--timeout-scale", "1"), 0, 0);
	why = strstr(progrun_out, "failed: ");
	tap_ok(rc == 1 && why && strstr(why, "HostStall: the host took") && strstr(why, "QEMU stopped 1."),
	       "QEMU stopped 1.5 s mid-suspend: exit %d, %.200s", rc, why ? why : progrun_out);
	fakerun_scenario(NULL);
}

static void host_io_error(void)
{
	const char *why;
	int rc;

	fakerun_scenario("enospc=rm -rf");	/* the cycle's first write fills the host */
	rc = progrun("suspend-lab", LAB("--timeout-scale", "1"), 0, 0);
	why = strstr(progrun_out, "failed: ");
	tap_ok(rc == 1 && why && strstr(why, "HostIoError") &&
	       strstr(progrun_err, "write error of drive #block123: No space left on device"),
	       "the host's disk full mid-cycle: exit %d, %.200s; stderr %.300s", rc,
	       why ? why : progrun_out, progrun_err);
	fakerun_scenario(NULL);
}

static void boot_files(void)
{
	static const char *const progs[] = { "suspend-lab", "nomtime-bench" };
	char text[700], dir[700];
	int rc;

	snprintf(dir, sizeof(dir), "%s", fakerun_dir());
	put(fakerun_dir(), "initrd.txt", "not an initramfs\n");
	snprintf(text, sizeof(text), "%s/initrd.txt", fakerun_dir());
	for (int i = 0; i < 2; i++) {
		/* nomtime-bench has no tools disk: the list ends before it */
		char *tools = i ? NULL : "--tools-disk";

		rc = progrun(progs[i], (char *[]){ "--kernel", dir, "--initrd", kernel,
			     tools, kernel, NULL }, 0, 0);
		tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "--kernel"),
		       "%s --kernel <dir>: exit %d: %.120s", progs[i], rc, progrun_err);
		rc = progrun(progs[i], (char *[]){ "--kernel", kernel, "--initrd", text,
			     tools, kernel, NULL }, 0, 0);
		tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "cpio"),
		       "%s --initrd <text>: exit %d: %.120s", progs[i], rc, progrun_err);
	}
	rc = progrun("nomtime-bench", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		     "--fs", "ext4,ext4", NULL }, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "ext4,ext4"),
	       "nomtime-bench --fs ext4,ext4: exit %d: %.120s", rc, progrun_err);
	rc = progrun("nomtime-bench", (char *[]){ "--bogus", NULL }, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1,
	       "nomtime-bench --bogus: exit %d, %d line(s)", rc, progrun_lines(progrun_err));
}

static void idle_options(void)
{
	struct pc_opts o;
	int rc;

	fakerun_scenario("exit-at-start");
	rc = progrun("power-cut", (char *[]){ "--kernel", kernel, "--initrd", kernel, "--tools-disk",
		     kernel, "--out", out, "--cycles", "1", "--size", "1M", "--sync", "1", NULL }, 0, 0);
	tap_ok(rc == 1 && strstr(progrun_err, "power-cut: QEMU") && !strstr(progrun_err, "suspend-lab"),
	       "power-cut's VM errors carry its own name: exit %d: %.160s", rc, progrun_err);
	fakerun_scenario(NULL);

	rc = progrun("power-cut", (char *[]){ "--kernel", kernel, "--initrd", kernel, "--tools-disk",
		     kernel, "--out", out, "--cut", "suspended", "--cut-offset", "5", NULL }, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "--cut-offset"),
	       "power-cut --cut suspended --cut-offset 5: exit %d: %.120s", rc, progrun_err);
	rc = pc_parse_args(9, (char *[]){ "power-cut", "--kernel", "k", "--initrd", "i", "--cut",
			   "sync", "--cut-offset", "5", NULL }, &o);
	tap_ok(rc == 0 && o.cut_offset_ms == 5, "--cut sync --cut-offset 5: parsed (%d, offset %d)",
	       rc, o.cut_offset_ms);
}

int main(int argc, char **argv)
{
	(void)argc;
	progrun_init(argv[0]);
	setenv("TMPDIR", fakerun_dir(), 1);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", fakerun_dir());
	snprintf(out, sizeof(out), "%s/out", fakerun_dir());
	mkdir(out, 0755);
	setenv("OUT", out, 1);
	shared_out();
	sweeps();
	results_set();
	image_failed();
	host_stall();
	host_io_error();
	boot_files();
	idle_options();
	fakerun_done();
	return tap_done();
}

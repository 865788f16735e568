/*
 * t_out_paths: paths that do not fit, and folders in the way, refused in
 * one line before anything starts (issue 33, items 4 and 8).
 *
 * Guards: a --out of 1,113 characters is refused (exit 2, one line naming
 * the limit) with no lock file anywhere; a TMPDIR of 60 characters is used
 * as given (its sockets are under it, not /tmp), one too long for a
 * socket is refused naming TMPDIR, and TMPDIR=/nonexistent is refused
 * naming the path, before --out is even made; --fs all with one part's
 * folder blocked, and a results name that is a directory (in --out, or in
 * a part) are refused before the first measurement.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakerun.h"
#include "progrun.h"
#include "tap.h"

static char kernel[600], out[600];
static const char *base;

#define LAB(o, ...) (char *[]){ "--kernel", kernel, "--initrd", kernel, "--tools-disk", \
				 kernel, "--out", (o), "--state", "mem", "--dirty", "0", \
				 "--sync", "1", "--cycles", "1", "--quiet", __VA_ARGS__ NULL }

static bool exists(const char *dir, const char *name)
{
	char p[1400];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

/* dir/name (name may hold a '/') made as a directory, or as a file */
static void make(const char *dir, const char *name, bool as_dir)
{
	char p[1400];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (as_dir) {
		mkdir(p, 0755);
		return;
	}
	f = fopen(p, "w");
	if (f)
		fclose(f);
}

/* base/name made as a directory, its path in p */
static void folder(char *p, size_t n, const char *name)
{
	snprintf(p, n, "%s/%s", base, name);
	mkdir(p, 0755);
}

static void long_out(void)
{
	char *deep = calloc(1, 1200), *probe;
	size_t len;
	int rc, locks = 0;

	/* made for real, in levels of 200: the run would otherwise use it */
	len = (size_t)sprintf(deep, "%s", base);
	while (len + 201 <= 1113) {
		deep[len++] = '/';
		memset(deep + len, 'd', 200);
		len += 200;
		deep[len] = '\0';
		mkdir(deep, 0755);
	}
	deep[len++] = '/';
	memset(deep + len, 'e', 1113 - len);
	deep[1113] = '\0';
	mkdir(deep, 0755);
	rc = progrun("suspend-lab", LAB(deep, ), 0, 0);
	/* no lock file in it, nor in any folder above it */
	for (probe = deep + strlen(deep); probe > deep + strlen(base); probe--)
		if (*probe == '/' || !probe[0]) {
			char c = *probe;

			*probe = '\0';
			locks += exists(deep, ".suspend-lab.lock");
			*probe = c;
		}
	locks += exists(base, ".suspend-lab.lock");
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "--out") &&
	       strstr(progrun_err, "1113") && strstr(progrun_err, "400") && locks == 0,
	       "--out of %zu characters: exit %d, %d line(s), %d lock file(s): %.160s",
	       strlen(deep), rc, progrun_lines(progrun_err), locks, progrun_err);
	free(deep);
}

static void tmpdir(void)
{
	char t60[200], t90[200], fresh[700];
	int rc, live, status;
	pid_t pid;

	/* 60 characters: the sockets fit under it, and go there */
	snprintf(t60, sizeof(t60), "%s/%0*d", base, (int)(59 - strlen(base)), 0);
	mkdir(t60, 0700);
	setenv("TMPDIR", t60, 1);
	rc = progrun("suspend-lab", LAB(out, ), 0, 0);
	fakerun_scenario("no-suspend");	/* a run that waits, to look at */
	pid = progrun_spawn("suspend-lab", LAB(out, "--timeout-scale", "100", ));
	usleep(700000);
	live = fakerun_count(t60, "slab.");
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	fakerun_scenario(NULL);
	tap_ok(rc == 0 && strlen(t60) == 60 && live == 1 && fakerun_count(t60, "slab.") == 0,
	       "TMPDIR of %zu characters: exit %d; mid-run %d slab.* director(ies) under it, %d after",
	       strlen(t60), rc, live, fakerun_count(t60, "slab."));

	/* 90: an agent.sock under it would not fit sun_path */
	snprintf(t90, sizeof(t90), "%s/%0*d", base, (int)(89 - strlen(base)), 0);
	mkdir(t90, 0700);
	setenv("TMPDIR", t90, 1);
	rc = progrun("suspend-lab", LAB(out, ), 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "TMPDIR") &&
	       strstr(progrun_err, "90 characters") && strstr(progrun_err, "83"),
	       "TMPDIR of %zu characters: exit %d, %d line(s): %.160s", strlen(t90), rc,
	       progrun_lines(progrun_err), progrun_err);

	/* missing: refused naming it, and --out not even made */
	snprintf(fresh, sizeof(fresh), "%s/fresh", base);
	setenv("TMPDIR", "/nonexistent", 1);
	rc = progrun("suspend-lab", LAB(fresh, ), 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "TMPDIR") &&
	       strstr(progrun_err, "'/nonexistent'") && access(fresh, F_OK),
	       "TMPDIR=/nonexistent: exit %d, %d line(s), --out made %d: %.160s", rc,
	       progrun_lines(progrun_err), !access(fresh, F_OK), progrun_err);
	setenv("TMPDIR", base, 1);
}

static void fs_all(void)
{
	char all[700];
	int rc;

	/* the btrfs part's folder is a file: found before ext4 runs */
	folder(all, sizeof(all), "all");
	make(all, "btrfs", false);
	rc = progrun("suspend-lab", LAB(all, "--fs", "all", ), 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "btrfs") &&
	       !exists(all, "ext4") && !exists(all, ".suspend-lab.lock"),
	       "--fs all, btrfs blocked by a file: exit %d, %d line(s), ext4 part made %d: %.160s",
	       rc, progrun_lines(progrun_err), exists(all, "ext4"), progrun_err);
	unlink(strcat(all, "/btrfs"));
	*strrchr(all, '/') = '\0';

	/* a part's results name in the way */
	make(all, "f2fs", true);
	make(all, "f2fs/latency.svg", true);
	rc = progrun("suspend-lab", LAB(all, "--fs", "all", ), 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "f2fs/latency.svg") &&
	       !exists(all, "ext4"),
	       "--fs all, f2fs/latency.svg a directory: exit %d, %d line(s), ext4 part made %d: %.160s",
	       rc, progrun_lines(progrun_err), exists(all, "ext4"), progrun_err);
}

static void results_in_the_way(void)
{
	char way[700];
	int rc;

	folder(way, sizeof(way), "way");
	make(way, "latency.csv", true);
	rc = progrun("suspend-lab", LAB(way, ), 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "latency.csv") &&
	       strstr(progrun_err, "a directory") && !exists(way, "data.img") &&
	       !exists(way, ".suspend-lab.lock"),
	       "suspend-lab, latency.csv a directory: exit %d, %d line(s), measured %d: %.160s",
	       rc, progrun_lines(progrun_err), exists(way, "data.img"), progrun_err);
	make(way, "powercut.json", true);
	rc = progrun("power-cut", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		     "--tools-disk", kernel, "--out", way, "--cycles", "1", "--size", "1M",
		     "--quiet", NULL }, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "powercut.json") &&
	       !exists(way, ".suspend-lab.lock"),
	       "power-cut, powercut.json a directory: exit %d, %d line(s): %.160s",
	       rc, progrun_lines(progrun_err), progrun_err);
}

int main(int argc, char **argv)
{
	(void)argc;
	progrun_init(argv[0]);
	base = fakerun_dir();
	setenv("TMPDIR", base, 1);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", base);
	folder(out, sizeof(out), "out");
	long_out();
	tmpdir();
	fs_all();
	results_in_the_way();
	fakerun_done();
	return tap_done();
}

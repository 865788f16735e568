/*
 * t_cli: the programs as a user runs them, against fakeqemu.
 *
 * Guards: bad input is one line and exit 2 before anything starts (an
 * --out that is a file, a kernel that is not there); a run where nothing
 * boots exits 1, never says "wrote", and keeps the earlier results whole;
 * a report that cannot be written exits 1 without "wrote";
 * SIGTERM or SIGINT mid-run leaves no QEMU, no private directory and no
 * disk image;
 * power-cut writes its JSON with summary[] and says "wrote" only then.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "fakerun.h"
#include "progrun.h"
#include "tap.h"

static char *err = progrun_err;

static int prog(const char *name, char *const args[], int sig_after_ms, int sig)
{
	return progrun(name, args, sig_after_ms, sig);
}

#define lines progrun_lines

static void bad_input(const char *dir, const char *kernel)
{
	char file[600];
	int rc;

	snprintf(file, sizeof(file), "%s/not-a-dir", dir);
	close(open(file, O_WRONLY | O_CREAT, 0644));
	rc = prog("suspend-lab", (char *[]){ "--kernel", (char *)kernel, "--initrd",
		  (char *)kernel, "--tools-disk", (char *)kernel, "--out", file, NULL }, 0, 0);
	tap_ok(rc == 2 && lines(err) == 1 && strstr(err, "is not a directory"),
	       "--out naming a file: one line, exit 2 (%d)", rc);
	rc = prog("suspend-lab", (char *[]){ "--kernel", "/nonexistent/bzImage", "--initrd",
		  (char *)kernel, "--tools-disk", (char *)kernel, "--out", (char *)dir, NULL }, 0, 0);
	tap_ok(rc == 2 && lines(err) == 1 && strstr(err, "/nonexistent/bzImage"),
	       "a kernel that is not there: one line, exit 2, no QEMU started");
	rc = prog("power-cut", (char *[]){ "--kernel", (char *)kernel, "--initrd",
		  (char *)kernel, "--tools-disk", (char *)kernel, "--out", file, NULL }, 0, 0);
	tap_ok(rc == 2 && lines(err) == 1, "power-cut: the same check, one line, exit 2");
	unlink(file);
}

static char *slurp(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
	}
	return buf;
}

static void keeps_results(const char *dir, const char *kernel)
{
	char json[600];
	FILE *f;
	int rc;

	snprintf(json, sizeof(json), "%s/latency.json", dir);
	f = fopen(json, "w");
	fputs("{\"earlier\": true}\n", f);
	fclose(f);
	fakerun_scenario("exit-at-start");
	rc = prog("suspend-lab", (char *[]){ "--kernel", (char *)kernel, "--initrd",
		  (char *)kernel, "--tools-disk", (char *)kernel, "--out", (char *)dir,
		  "--state", "mem", "--dirty", "0", "--sync", "1", "--cycles", "1", NULL }, 0, 0);
	tap_ok(rc == 1 && !strstr(err, "wrote") && strstr(err, "earlier results") &&
	       !strcmp(slurp(json), "{\"earlier\": true}\n"),
	       "nothing booted: exit 1, no 'wrote', the earlier latency.json intact");
	unlink(json);
}

/* A report that cannot be written (a directory in its place) is an error. */
static void unwritable(const char *dir, const char *kernel)
{
	char json[600], name[700];
	int rc;

	snprintf(json, sizeof(json), "%s/latency.json", dir);
	mkdir(json, 0700);
	fakerun_scenario(NULL);
	rc = prog("suspend-lab", (char *[]){ "--kernel", (char *)kernel, "--initrd",
		  (char *)kernel, "--tools-disk", (char *)kernel, "--out", (char *)dir,
		  "--state", "mem", "--dirty", "0", "--sync", "1", "--cycles", "1", NULL }, 0, 0);
	/* the name in the way is found before anything is measured */
	tap_ok(rc == 2 && !strstr(err, "wrote") && strstr(err, "latency.json"),
	       "a report that cannot be written: exit 2 naming latency.json, no 'wrote' (rc %d: %.200s)",
	       rc, err);
	rmdir(json);
	for (const char *const *e = (const char *const[]){ "csv", "svg", "png", NULL }; *e; e++) {
		snprintf(name, sizeof(name), "%s/latency.%s", dir, *e);
		unlink(name);
	}
}

/* A process that runs, not a zombie waiting for a reaper. */
static bool running(int pid)
{
	char path[64], stat[256];
	FILE *f;
	bool r = false;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (f && fgets(stat, sizeof(stat), f) && strrchr(stat, ')'))
		r = strrchr(stat, ')')[2] != 'Z';
	if (f)
		fclose(f);
	return r;
}

static void interrupted(const char *dir, const char *kernel, int sig)
{
	int rc, pid, started = 0, alive = 0;
	char pids[600];
	FILE *f;

	fakerun_scenario("no-suspend");
	snprintf(pids, sizeof(pids), "%s/fake.pids", dir);
	setenv("FAKEQEMU_PIDS", pids, 1);
	rc = prog("suspend-lab", (char *[]){ "--kernel", (char *)kernel, "--initrd",
		  (char *)kernel, "--tools-disk", (char *)kernel, "--out", (char *)dir,
		  "--state", "mem", "--dirty", "0", "--cycles", "1", NULL }, 1500, sig);
	usleep(300000);
	f = fopen(pids, "r");
	while (f && fscanf(f, "%d", &pid) == 1) {
		started++;
		alive += running(pid);
	}
	if (f)
		fclose(f);
	unlink(pids);
	unsetenv("FAKEQEMU_PIDS");
	tap_ok(rc == 128 + sig && started == 1 && !alive &&
	       fakerun_count(dir, "slab.") == 0 && fakerun_count(dir, "data.img") == 0,
	       "SIG%s mid-run: its QEMU ended, no private directory or disk image left (rc %d, %d started, %d alive)",
	       sigabbrev_np(sig), rc, started, alive);
}

static void powercut_json(const char *dir, const char *kernel)
{
	char json[600];
	json_error_t e;
	json_t *j;
	int rc;

	fakerun_scenario(NULL);
	rc = prog("power-cut", (char *[]){ "--kernel", (char *)kernel, "--initrd",
		  (char *)kernel, "--tools-disk", (char *)kernel, "--out", (char *)dir,
		  "--cycles", "1", "--size", "1M", "--quiet", NULL }, 0, 0);
	snprintf(json, sizeof(json), "%s/powercut.json", dir);
	j = json_load_file(json, 0, &e);
	tap_ok(rc == 0 && strstr(err, "wrote") && j &&
	       json_array_size(json_object_get(j, "summary")) == 4 &&
	       json_array_size(json_object_get(j, "cycles")) == 2,
	       "power-cut: powercut.json with 2 cuts and summary[] (rc %d)", rc);
	json_decref(j);
	unlink(json);
	snprintf(json, sizeof(json), "%s/powercut.csv", dir);
	unlink(json);
}

int main(int argc, char **argv)
{
	const char *dir = fakerun_dir();
	char kernel[600];

	(void)argc;
	progrun_init(argv[0]);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
	setenv("TMPDIR", dir, 1);
	bad_input(dir, kernel);
	keeps_results(dir, kernel);
	unwritable(dir, kernel);
	interrupted(dir, kernel, SIGTERM);
	interrupted(dir, kernel, SIGINT);
	powercut_json(dir, kernel);
	fakerun_done();
	return tap_done();
}

/*
 * t_stall: a cycle the host disturbed, and cycles that never had a guest,
 * as suspend-lab reports them (fakeqemu; issue 30 item 6, issue 33 item 6).
 *
 * Guards:
 * - a HostStall attempt is measured again: the first attempt stalled (a
 *   QEMU stopped 1.5 s mid-suspend) and the second not gives exit 0, the
 *   cycle OK, and the stalled attempt listed in the table, latency.json
 *   (per cycle and per configuration) and report.html;
 * - every attempt stalled: exit 1 after the retry bound, one stderr line
 *   naming the configuration that lacks its cycle;
 * - a tools disk of random bytes (the guest's set-up fails) and a kernel
 *   that panics: each cycle not run names the boot's verdict and cause
 *   (SetupFailed, QemuStartFailed), not a bare NotRun.
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
#include "slurp.h"
#include "tap.h"

static char kernel[600], out[600], pids[600], lab[600];

#define LAB(...) (char *[]){ "--kernel", kernel, "--initrd", kernel, "--tools-disk", kernel, \
			      "--out", out, "--state", "mem", "--dirty", "0", "--sync", "1", \
			      "--cycles", "1", "--quiet", "--timeout-scale", "1", __VA_ARGS__ NULL }

static char proc_state(pid_t pid)
{
	char p[64], s[512], *rp;
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	n = fread(s, 1, sizeof(s) - 1, f);
	fclose(f);
	s[n] = '\0';
	rp = strrchr(s, ')');
	return rp && rp[1] ? rp[2] : 0;
}

/* The last pid fakeqemu wrote to $FAKEQEMU_PIDS, 0 before it did. */
static pid_t qemu_pid(void)
{
	FILE *f = fopen(pids, "r");
	int p = 0, last = 0;

	while (f && fscanf(f, "%d", &p) == 1)
		last = p;
	if (f)
		fclose(f);
	return last;
}

/*
 * A host that stops QEMU a set number of times: fakeqemu stops itself
 * (SIGSTOP) after each REQUEST, and its own helper continues it 1.5 s
 * later; this parent lets the first keep stops last that long (a helper
 * must not end a later stop early) and continues every later one at once.
 * Stop 1 is the warm-up.
 * The run's exit status; its stdout and stderr in progrun_out and _err.
 */
static int run_stopped_once(int keep, int *stops)
{
	char *argv[] = { lab, "--kernel", kernel, "--initrd", kernel, "--tools-disk", kernel,
			 "--out", out, "--state", "mem", "--dirty", "0", "--sync", "1",
			 "--cycles", "1", "--quiet", "--timeout-scale", "1", NULL };
	char path[700], *s;
	bool was = false;
	int status, fd;
	pid_t pid;

	*stops = 0;
	unlink(pids);
	pid = fork();
	if (!pid) {
		snprintf(path, sizeof(path), "%s/run.err", fakerun_dir());
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		snprintf(path, sizeof(path), "%s/run.out", fakerun_dir());
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		execv(lab, argv);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		pid_t q = qemu_pid();
		bool stopped = q && proc_state(q) == 'T';

		if (stopped && !was && ++*stops > keep)
			kill(q, SIGCONT);
		was = stopped && *stops <= keep;
		usleep(2000);
	}
	s = test_slurp_in(fakerun_dir(), "run.out", NULL);
	snprintf(progrun_out, sizeof(progrun_out), "%s", s ? s : "");
	free(s);
	s = test_slurp_in(fakerun_dir(), "run.err", NULL);
	snprintf(progrun_err, sizeof(progrun_err), "%s", s ? s : "");
	free(s);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void stalled_once(void)
{
	json_t *j, *c0, *st;
	char p[700], *html;
	const char *line;
	int rc, stops;

	fakerun_scenario("host-stop-ms=1500");
	rc = run_stopped_once(2, &stops);
	line = strstr(progrun_out, "stalled: mem sync on bigfile/held 0 MiB cycle 1 attempt 1");
	tap_ok(rc == 0 && line && strstr(line, "HostStall: the host took 1.") &&
	       !strstr(progrun_out, "failed:"),
	       "first attempt stalled, second not: exit %d, %d stop(s) seen; table: %.160s", rc,
	       stops, line ? line : progrun_out);
	snprintf(p, sizeof(p), "%s/latency.json", out);
	j = json_load_file(p, 0, NULL);
	c0 = json_array_get(json_object_get(j, "cycles"), 0);
	st = json_array_get(json_object_get(c0, "stalled_attempts"), 0);
	tap_ok(st && !strcmp(json_string_value(json_object_get(c0, "verdict")), "OK") &&
	       json_integer_value(json_object_get(st, "attempt")) == 1 &&
	       json_real_value(json_object_get(st, "host_taken_s")) > 1.0 &&
	       json_integer_value(json_object_get(json_array_get(json_object_get(j, "summary"), 0),
						  "n_stalled")) == 1 &&
	       json_integer_value(json_object_get(json_object_get(j, "host_stalls"),
						  "n_stalled")) == 1,
	       "latency.json: cycle %s, stalled attempt %lld taking %.3f s of %.3f s (%s), summary count %lld",
	       c0 ? json_string_value(json_object_get(c0, "verdict")) : "missing",
	       json_integer_value(json_object_get(st, "attempt")),
	       json_real_value(json_object_get(st, "host_taken_s")),
	       json_real_value(json_object_get(st, "window_s")),
	       json_string_value(json_object_get(st, "window")) ?: "-",
	       json_integer_value(json_object_get(json_array_get(json_object_get(j, "summary"), 0),
						  "n_stalled")));
	json_decref(j);
	html = test_slurp_in(out, "report.html", NULL);
	line = html ? strstr(html, "attempt 1: HostStall, measured again: the host took") : NULL;
	tap_ok(line != NULL, "report.html lists the stalled attempt: %.80s", line ? line : "(absent)");
	free(html);
	fakerun_scenario(NULL);
}

static void stalled_always(void)
{
	const char *line;
	int rc, lines = 0;

	fakerun_scenario("host-stop-ms=1500");	/* every SUSPEND */
	rc = progrun("suspend-lab", LAB(), 0, 0);
	for (const char *s = progrun_err; (s = strstr(s, "cycles measured")); s++)
		lines++;
	line = strstr(progrun_err, "suspend-lab: mem sync=1 bigfile/held 0M: 0 of 1 cycles measured");
	tap_ok(rc == 1 && lines == 1 && line && strstr(line, "HostStall") &&
	       strstr(progrun_out, "attempt 3, measured again") &&
	       !strstr(progrun_out, "attempt 4,"),
	       "every attempt stalled: exit %d, %d line(s) naming a configuration: %.220s", rc, lines,
	       line ? line : progrun_err);
	fakerun_scenario(NULL);
}

static void not_run_cause(void)
{
	char tools[700], *failed;
	int rc, fd;
	char junk[65536];

	/* fakeqemu reads no tools disk; a guest given random bytes finds no
	 * fio on it, and that check failing is what the scenario plays */
	snprintf(tools, sizeof(tools), "%s/random.img", fakerun_dir());
	fd = open("/dev/urandom", O_RDONLY);
	if (fd < 0 || read(fd, junk, sizeof(junk)) != (ssize_t)sizeof(junk))
		memset(junk, 0xa5, sizeof(junk));
	if (fd >= 0)
		close(fd);
	fd = open(tools, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, junk, sizeof(junk)) != (ssize_t)sizeof(junk))
		tap_diag("cannot write %s", tools);
	if (fd >= 0)
		close(fd);
	fakerun_scenario("fail-run=test -x");
	rc = progrun("suspend-lab", (char *[]){ "--kernel", kernel, "--initrd", kernel, "--tools-disk",
		     tools, "--out", out, "--state", "mem", "--dirty", "0", "--sync", "1", "--cycles",
		     "2", "--quiet", NULL }, 0, 0);
	failed = strstr(progrun_out, "failed: mem sync on bigfile/held 0 MiB cycle 2: ");
	tap_ok(rc == 1 && failed && strstr(failed, "NotRun: no guest to run it on: boot-") &&
	       strstr(failed, "set-up: SetupFailed: ") &&
	       strstr(progrun_err, "0 of 2 cycles measured; the rest: 2 NotRun (no guest to run it on"),
	       "a tools disk of random bytes: exit %d: %.200s", rc, failed ? failed : progrun_out);

	fakerun_scenario("exit-at-start");	/* a kernel that panics */
	rc = progrun("suspend-lab", LAB(), 0, 0);
	failed = strstr(progrun_out, "failed: mem sync on bigfile/held 0 MiB cycle 1: ");
	tap_ok(rc == 1 && failed && strstr(failed, "NotRun: no guest to run it on: boot-") &&
	       strstr(failed, "the guest did not boot: QemuStartFailed"),
	       "a kernel that panics: exit %d: %.200s", rc, failed ? failed : progrun_out);
	fakerun_scenario(NULL);
}

int main(int argc, char **argv)
{
	char self[600];

	(void)argc;
	progrun_init(argv[0]);
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(lab, sizeof(lab), "%s/suspend-lab", dirname(self));
	setenv("TMPDIR", fakerun_dir(), 1);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", fakerun_dir());
	snprintf(out, sizeof(out), "%s/out", fakerun_dir());
	snprintf(pids, sizeof(pids), "%s/qemu.pids", fakerun_dir());
	setenv("FAKEQEMU_PIDS", pids, 1);
	mkdir(out, 0755);
	stalled_once();
	stalled_always();
	not_run_cause();
	fakerun_done();
	return tap_done();
}

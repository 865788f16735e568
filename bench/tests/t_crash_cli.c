/*
 * t_crash_cli: crash-states as a user runs it, on a hand-made recording
 * and against fakeqemu.
 *
 * Guards: replay refuses an --image that is a file of the recording (by
 * path, through a symlink, a hard link, or a new file inside it) with one
 * line and exit 2 and leaves base.img as it was, and still writes a new
 * file elsewhere; an option that does nothing for the subcommand is one
 * line naming both, exit 2, before any QEMU, while the documented command
 * lines parse; `all` whose record fails exits 1 (not 3), says what failed,
 * prints the QEMU failure once, leaves no crash-rec/ it made (and keeps
 * one that was there), no QEMU, and the earlier results.
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

#include "crash.h"
#include "fakerun.h"
#include "image.h"
#include "recfix.h"
#include "tap.h"

#define SS 512

static char bindir[512], err[16384], kernel[600];

/* crash-states with args: its exit status, stderr in err. */
static int cs(char *const args[])
{
	char path[600], errfile[700], *argv[40];
	int n = 0, status, fd;
	pid_t pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/crash-states", bindir);
	snprintf(errfile, sizeof(errfile), "%s/cs.err", fakerun_dir());
	argv[n++] = path;
	for (int i = 0; args[i] && n < 39; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid = fork();
	if (!pid) {
		fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execv(path, argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	err[0] = '\0';
	f = fopen(errfile, "r");
	if (f) {
		err[fread(err, 1, sizeof(err) - 1, f)] = '\0';
		fclose(f);
	}
	unlink(errfile);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* err on one line, for a test line */
static const char *shown(void)
{
	static char buf[sizeof(err)];
	size_t n = 0;

	for (const char *s = err; *s && n < sizeof(buf) - 4; s++) {
		if (*s == '\n' && s[1])
			buf[n++] = '|';
		else if (*s != '\n')
			buf[n++] = *s;
	}
	buf[n] = '\0';
	return buf;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* FNV-1a of a file's bytes, its inode in *ino; 0 if unreadable. */
static unsigned long long digest(const char *path, ino_t *ino)
{
	unsigned long long h = 1469598103934665603ULL;
	unsigned char buf[4096];
	struct stat st;
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0 || fstat(fd, &st))
		return 0;
	*ino = st.st_ino;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t k = 0; k < got; k++)
			h = (h ^ buf[k]) * 1099511628211ULL;
	close(fd);
	return h;
}

/* One recorded cycle: a base of zeros and a log of 6 writes and 2 flushes. */
static void recording(const char *rec)
{
	struct cs_cycle c;
	struct lw_writer w;
	unsigned char buf[SS];
	char p[900];

	recfix_cycle(&c, rec, 1);
	snprintf(p, sizeof(p), "%s/write.log", c.dir);
	lw_writer_open(&w, p, SS);
	for (int i = 0; i < 8; i++) {
		memset(buf, 'a' + i, sizeof(buf));
		lw_writer_add(&w, i % 4 == 3 ? 0 : i, i % 4 == 3 ? 0 : 1,
			      i % 4 == 3 ? LW_FLUSH : 0, buf);
	}
	lw_writer_super(&w);
	lw_writer_close(&w);
	c.at_request = c.at_suspended = c.at_end = w.next * SS;
	recfix_seal(&c, false);
}

static void replay_guard(const char *dir)
{
	char rec[600], base[700], sym[700], hard[700], inside[700], out[700], want[700];
	unsigned long long h0, h;
	ino_t i0, i;
	int rc;

	snprintf(rec, sizeof(rec), "%s/rec", dir);
	recording(rec);
	snprintf(base, sizeof(base), "%s/cycle-1/base.img", rec);
	h0 = digest(base, &i0);
	snprintf(sym, sizeof(sym), "%s/link.img", dir);
	snprintf(hard, sizeof(hard), "%s/hard.img", dir);
	snprintf(inside, sizeof(inside), "%s/cycle-1/new.img", rec);
	if (symlink(base, sym) || link(base, hard))
		tap_diag("cannot link %s", base);
	{
		const char *bad[] = { base, sym, hard, inside };

		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			rc = cs((char *[]){ "replay", "--rec", rec, "--cycle", "1", "--name", "P6",
					    "--image", (char *)bad[k], NULL });
			h = digest(base, &i);
			tap_ok(rc == 2 && lines(err) == 1 && strstr(err, "the recording") &&
			       !strstr(err, "wrote") && h == h0 && i == i0 && access(inside, F_OK),
			       "replay --image %s: exit %d, %d line(s), base.img %s: %.120s",
			       bad[k] + strlen(dir), rc, lines(err),
			       h == h0 && i == i0 ? "unchanged" : "CHANGED", shown());
		}
	}
	snprintf(out, sizeof(out), "%s/P6.img", dir);
	snprintf(want, sizeof(want), "%s/want.img", dir);
	rc = cs((char *[]){ "replay", "--rec", rec, "--cycle", "1", "--name", "P6", "--image",
			    out, NULL });
	{
		struct cs_state s = { .kind = CS_PREFIX, .pos = 6 };
		struct lw_log l;
		char why[300], logp[700];

		snprintf(logp, sizeof(logp), "%s/cycle-1/write.log", rec);
		if (lw_open(&l, logp, SS, why, sizeof(why)) ||
		    cs_build_image(&l, &s, base, want, why, sizeof(why)))
			tap_diag("reference image: %s", why);
		lw_close(&l);
	}
	h = digest(out, &i);
	tap_ok(rc == 0 && strstr(err, "wrote") && h && h == digest(want, &i) && h != h0 &&
	       fakerun_count(dir, "P6.img.tmp") == 0,
	       "a new file outside the recording: exit %d, the state's bytes %s: %.100s", rc,
	       h == digest(want, &i) ? "as replayed" : "WRONG", shown());
	h = digest(base, &i);
	tap_ok(h == h0 && i == i0, "base.img after all replays: digest %llx inode %lu (before:"
	       " %llx, %lu)", h, (unsigned long)i, h0, (unsigned long)i0);
}

static void not_applying(const char *dir)
{
	static char *const cases[][8] = {
		{ "record", "--shard", "1/2" }, { "all", "--shard", "1/2" },
		{ "merge", "--cycles", "3" }, { "merge", "--kernel", kernel },
		{ "judge", "--cycles", "2" }, { "judge", "--state", "freeze" },
		{ "record", "--prefixes", "5" }, { "merge", "--quiet" },
		{ "judge", "--drive-model", "off" },
		{ "replay", "--seed", "2", "--cycle", "1", "--name", "F3" },
	};
	char out[700], pids[700], want[200];

	snprintf(out, sizeof(out), "%s/na-out", dir);
	snprintf(pids, sizeof(pids), "%s/na.pids", dir);
	setenv("FAKEQEMU_PIDS", pids, 1);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *args[20];
		int n = 0, rc;

		for (int a = 0; a < 8 && cases[k][a]; a++)
			args[n++] = cases[k][a];
		for (char **x = (char *[]){ "--out", out, "--kernel", kernel, "--initrd", kernel,
					    "--tools-disk", kernel, "--image", "/tmp/x.img", NULL };
		     *x; x += 2) {
			/* the case's own options plus what each subcommand needs */
			if (!strcmp(x[0], "--image") && strcmp(cases[k][0], "replay"))
				continue;
			if (strcmp(x[0], "--out") && strcmp(x[0], "--image") &&
			    (!strcmp(cases[k][0], "merge") || !strcmp(cases[k][0], "replay")))
				continue;
			args[n++] = x[0];
			args[n++] = x[1];
		}
		args[n] = NULL;
		rc = cs(args);
		snprintf(want, sizeof(want), "%s does not apply to crash-states %s", cases[k][1],
			 cases[k][0]);
		tap_ok(rc == 2 && lines(err) == 1 && strstr(err, want) && access(pids, F_OK) &&
		       access(out, F_OK), "%s %s: exit %d, %d line(s): %.100s", cases[k][0],
		       cases[k][1], rc, lines(err), shown());
	}
	unsetenv("FAKEQEMU_PIDS");
	{
		static char *good[][16] = {	/* cs_parse_args() shifts argv */
			{ "x", "all", "--profile", "emmc", "--sync", "both", "--cycles", "1",
			  "--prefixes", "all", "--gap-states", "4", "--per-boot", "24", NULL },
			{ "x", "judge", "--shard", "3/32", "--quiet", "--drop-flush", NULL },
			{ "x", "record", "--rec", "r", "--seed", "3", NULL },
			{ "x", "merge", "--out", "o", NULL },
			{ "x", "replay", "--cycle", "1", "--name", "F3", "--image", "i", "--rec",
			  "r", NULL },
		};
		struct cs_opts o;
		int bad = 0;

		setenv("KERNEL", kernel, 1);
		setenv("INITRD", kernel, 1);
		for (size_t k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
			int argc = 0;

			while (good[k][argc])
				argc++;
			if (cs_parse_args(argc, good[k], &o)) {
				tap_diag("refused: %s %s", good[k][1], good[k][2]);
				bad++;
			}
		}
		tap_ok(!bad, "the documented command lines still parse (%d refused)", bad);
	}
}

static void failed_all(const char *dir)
{
	char out[600], rec[700], pids[700], json[700], keep[800];
	char *args[] = { "all", "--out", out, "--kernel", kernel, "--initrd", kernel,
			 "--tools-disk", kernel, "--sync", "1", "--size", "1M", NULL };
	int rc, alive = 0;
	FILE *f;

	snprintf(out, sizeof(out), "%s/all-out", dir);
	snprintf(rec, sizeof(rec), "%s/crash-rec", out);
	snprintf(json, sizeof(json), "%s/crash.json", out);
	snprintf(pids, sizeof(pids), "%s/all.pids", dir);
	mkdir(out, 0755);
	f = fopen(json, "w");
	fputs("earlier\n", f);
	fclose(f);
	setenv("FAKEQEMU_PIDS", pids, 1);
	fakerun_scenario("exit-at-start");
	rc = cs(args);
	tap_ok(rc == 1, "all, record failing: exit %d", rc);
	tap_ok(strstr(err, "1 of 1 cycles not recorded") && strstr(err, "nothing judged") &&
	       !strstr(err, "record first") && !strstr(err, "wrote"),
	       "says the recording failed, not 'record first': %.300s", shown());
	tap_ok(count(err, "before the agent was ready") == 1 && count(err, "Kernel panic") == 2,
	       "the QEMU failure printed once (%d times; panic lines %d)",
	       count(err, "before the agent was ready"), count(err, "Kernel panic"));
	tap_ok(access(rec, F_OK) != 0, "no crash-rec/ left behind (%s)",
	       access(rec, F_OK) ? "absent" : "PRESENT");
	f = fopen(pids, "r");
	for (int pid; f && fscanf(f, "%d", &pid) == 1;)
		alive += !kill(pid, 0);
	if (f)
		fclose(f);
	tap_ok(f && !alive, "no fakeqemu left (%d alive)", alive);
	{
		char buf[32] = "";

		f = fopen(json, "r");
		if (f && !fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		if (f)
			fclose(f);
		tap_ok(!strcmp(buf, "earlier\n"), "the earlier crash.json kept: '%.*s'",
		       (int)strcspn(buf, "\n"), buf);
	}
	/* a crash-rec/ that was there stays, with what else it holds */
	mkdir(rec, 0755);
	snprintf(keep, sizeof(keep), "%s/notes.txt", rec);
	close(open(keep, O_WRONLY | O_CREAT, 0644));
	rc = cs(args);
	tap_ok(rc == 1 && !access(keep, F_OK), "a crash-rec/ that was there is kept: exit %d, %s",
	       rc, access(keep, F_OK) ? "notes.txt GONE" : "notes.txt there");
	fakerun_scenario(NULL);
	unsetenv("FAKEQEMU_PIDS");
}

int main(int argc, char **argv)
{
	const char *dir = fakerun_dir();
	char self[512];

	(void)argc;
	snprintf(self, sizeof(self), "%s", argv[0]);
	snprintf(bindir, sizeof(bindir), "%s", dirname(self));
	snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
	setenv("TMPDIR", dir, 1);
	replay_guard(dir);
	not_applying(dir);
	failed_all(dir);
	fakerun_done();
	return tap_done();
}

/*
 * t_rec_whole: a recording proves it is whole before anything is judged
 * (issue 33, item 2).
 *
 * Guards: a write.log cut mid-entry or at an entry boundary, a byte
 * flipped in write.log, base.img or meta.json, a write.log that is a
 * directory, a meta.json whose log_bytes_at.end disagrees with its own
 * size record, and a recording made before the digests are each refused
 * by judge and replay with one line naming the file and exit 2: no QEMU
 * started, no shard, no image, and merge after it has nothing to merge
 * (exit 2, no report).  The intact recording still judges and replays,
 * and meta.json's digests are those sha256sum gives.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash.h"
#include "fakerun.h"
#include "progrun.h"
#include "recdigest.h"
#include "recfix.h"
#include "tap.h"

#define SS 512

static char rec[500], out[500], kernel[500], pids[500];
static long long end_off;	/* log_bytes_at.end off by this many bytes */

/* Cycle 1: 9 dataset files along a log of writes and flushes (F). */
static void recording(void)
{
	struct cs_cycle c;

	recfix_cycle(&c, rec, 1);
	snprintf(c.date, sizeof(c.date), "2026-01-01T00:00:00Z");
	snprintf(c.kernel_release, sizeof(c.kernel_release), "6.1.0-toy");
	recfix_log(&c, "WWFWWWWWWWWWFWWFWWWF");
	c.at_end += end_off;
	recfix_seal(&c, true);
}

static void path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/cycle-1/%s", rec, name);
}

static long long size_of(const char *name)
{
	char p[800];
	struct stat st;

	path(p, sizeof(p), name);
	return stat(p, &st) ? -1 : st.st_size;
}

static void flip(const char *name, long long at)
{
	char p[800];
	unsigned char b;
	int fd;

	path(p, sizeof(p), name);
	fd = open(p, O_RDWR);
	if (fd < 0 || pread(fd, &b, 1, at) != 1)
		tap_diag("cannot read %s", p);
	b ^= 0x20;
	if (fd < 0 || pwrite(fd, &b, 1, at) != 1)
		tap_diag("cannot flip %s", p);
	close(fd);
}

static void cut(const char *name, long long to)
{
	char p[800];

	path(p, sizeof(p), name);
	if (truncate(p, to))
		tap_diag("cannot cut %s", p);
}

static bool exists(const char *p)
{
	return !access(p, F_OK);
}

/* judge, replay and merge on the damaged recording: each refuses. */
static void refused(const char *what, const char *says)
{
	char shard[800], image[800], json[800];
	char *judge[] = { "judge", "--out", out, "--rec", rec, "--kernel", kernel,
			  "--initrd", kernel, "--tools-disk", kernel, NULL };
	char *replay[] = { "replay", "--rec", rec, "--cycle", "1", "--name", "P6", "--image",
			   image, NULL };
	char *merge[] = { "merge", "--out", out, NULL };
	int rc;

	snprintf(shard, sizeof(shard), "%s/crash-shard-1-of-1.json", out);
	snprintf(image, sizeof(image), "%s/P6.img", out);
	snprintf(json, sizeof(json), "%s/crash.json", out);
	/* each case on its own: nothing left from the one before */
	unlink(shard);
	unlink(image);
	unlink(json);
	unlink(pids);
	rc = progrun("crash-states", judge, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, says) &&
	       !exists(shard) && !exists(pids),
	       "%s: judge exit %d, %d line(s), shard %s, QEMU %s: %.220s", what, rc,
	       progrun_lines(progrun_err), exists(shard) ? "WRITTEN" : "none",
	       exists(pids) ? "STARTED" : "never started", progrun_err);
	rc = progrun("crash-states", replay, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, says) &&
	       !exists(image), "%s: replay exit %d, image %s: %.220s", what, rc,
	       exists(image) ? "WRITTEN" : "none", progrun_err);
	rc = progrun("crash-states", merge, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && !exists(json),
	       "%s: merge after it: exit %d, crash.json %s: %.160s", what, rc,
	       exists(json) ? "WRITTEN" : "none", progrun_err);
}

/* The intact recording: its digests are sha256sum's; it judges and
 * replays. */
static void intact(void)
{
	struct cs_backend be = { .batch = recfix_intact_batch };
	char p[800], hex[65], why[300], image[800], shard[1000], buf[16384] = "";
	char *replay[] = { "replay", "--rec", rec, "--cycle", "1", "--name", "P6", "--image",
			   image, NULL };
	uint64_t bytes = 0;
	struct cs_opts o;
	FILE *f;
	int rc;

	path(p, sizeof(p), "write.log");
	cs_sha256_file(p, &bytes, hex, why, sizeof(why));
	{
		/* the digest a user checks a copy with */
		char cmd[900], sum[65] = "";
		FILE *ps;

		snprintf(cmd, sizeof(cmd), "sha256sum '%s'", p);
		ps = popen(cmd, "r");
		if (!ps || fscanf(ps, "%64s", sum) != 1)
			sum[0] = '\0';
		if (ps)
			pclose(ps);
		tap_ok(!strcmp(sum, hex), "write.log's SHA-256 is sha256sum's: %.16s... and %.16s...",
		       hex, sum);
	}
	path(p, sizeof(p), "meta.json");
	f = fopen(p, "r");
	if (f) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
	}
	tap_ok(strstr(buf, hex) && strstr(buf, "\"meta_sha256\""),
	       "meta.json holds write.log's SHA-256 %.16s... (%llu bytes) and its own", hex,
	       (unsigned long long)bytes);
	recfix_judge_opts(&o, kernel, out, rec);
	fakerun_stderr_begin();
	rc = cs_judge(&o, &be, shard, sizeof(shard));
	tap_ok(rc == 0 && exists(shard), "the intact recording judges: %d, shard %s: %.100s", rc,
	       exists(shard) ? "written" : "NONE", fakerun_stderr_end());
	unlink(shard);
	snprintf(image, sizeof(image), "%s/P6.img", out);
	rc = progrun("crash-states", replay, 0, 0);
	tap_ok(rc == 0 && exists(image), "the intact recording replays: exit %d: %.160s", rc,
	       progrun_err);
	unlink(image);
}

int main(int argc, char **argv)
{
	const char *dir = fakerun_dir();
	long long log_size, last_entry;

	(void)argc;
	progrun_init(argv[0]);
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
	snprintf(pids, sizeof(pids), "%s/qemu.pids", dir);
	setenv("FAKEQEMU_PIDS", pids, 1);
	setenv("TMPDIR", dir, 1);
	mkdir(out, 0755);
	recording();
	intact();
	log_size = size_of("write.log");
	last_entry = log_size - 2 * SS;		/* the last flush's header and the write before */

	cut("write.log", log_size - 100);
	refused("write.log cut mid-entry", "write.log:");
	recording();
	cut("write.log", last_entry + SS);	/* an entry boundary: one flush gone */
	refused("write.log cut at an entry boundary", "cut short");
	recording();
	flip("write.log", log_size - SS - 7);
	refused("a byte flipped in write.log", "write.log: SHA-256");
	recording();
	flip("base.img", 3 * SS + 1);
	refused("a byte flipped in base.img", "base.img: SHA-256");
	recording();
	if (recfix_edit_meta(rec, "\"seed\": 4", "\"seed\": 5"))
		tap_diag("no seed in meta.json");
	refused("meta.json edited (seed 4 to 5)", "meta.json: its SHA-256");
	recording();
	{
		char p[800];

		path(p, sizeof(p), "write.log");
		unlink(p);
		mkdir(p, 0755);
		refused("write.log a directory", "not a regular file (a directory)");
		rmdir(p);
	}
	recording();
	if (recfix_edit_meta(rec, "suspend-lab/crash-recording/2", "suspend-lab/crash-recording/1"))
		tap_diag("no schema in meta.json");
	refused("a recording from before the digests", "predates whole-file digests");
	end_off = SS;	/* sealed, but the mark and the size record disagree */
	recording();
	refused("log_bytes_at.end past the log's recorded size", "log_bytes_at.end");
	end_off = 0;
	recording();
	intact();
	unsetenv("FAKEQEMU_PIDS");
	fakerun_done();
	return tap_done();
}

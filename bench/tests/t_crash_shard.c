/*
 * t_crash_shard: judging in shards and merging gives the report of a
 * single run, byte for byte; merge refuses what is not one run.
 *
 * Two hand-made recordings (sync=1 and sync=0) are judged by a stand-in
 * backend that reads each state's image (a deterministic verdict from its
 * bytes), once as 1/1, once as 1/2 + 2/2 and once as 1/3..3/3, each batch
 * as small as 2 states.  Guards: the same table, crash.json and crash.csv
 * every time; a missing shard, a shard given twice, a shard of another
 * run (another model) and a file that is not a shard are refused with
 * exit status 2; no image or work directory is left behind.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash.h"
#include "recfix.h"
#include "tap.h"

#define SS 512

static char dir[] = "/tmp/t_crash_shard.XXXXXX";
static int batches;

/* A verdict from the image's bytes: what a guest would say, repeatably. */
static void toy_batch(void *ctx, struct cs_job *jobs, int n)
{
	(void)ctx;
	batches++;
	for (int i = 0; i < n; i++) {
		struct cs_result *r = jobs[i].res;
		unsigned char buf[SS];
		uint64_t h = 1469598103934665603ULL;
		int fd = open(jobs[i].image, O_RDONLY);
		ssize_t got;

		while (fd >= 0 && (got = read(fd, buf, sizeof(buf))) > 0)
			for (ssize_t k = 0; k < got; k++)
				h = (h ^ buf[k]) * 1099511628211ULL;
		if (fd >= 0)
			close(fd);
		r->judged = true;
		snprintf(r->verdict, sizeof(r->verdict), "OK");
		r->mounted = true;
		r->fs_clean = h % 7 != 0;
		r->files_judged = jobs[i].rec.n_files;
		r->expected_bytes = jobs[i].rec.dataset_bytes;
		r->lost_bytes = r->expected_bytes ? h % r->expected_bytes : 0;
		/* as a judge fills it: an fsync loss needs fsync'd bytes judged */
		for (int f = 0; f < jobs[i].rec.n_files; f++)
			r->durable_bytes += jobs[i].rec.files[f].durable;
		r->fsync_intact = h % 5 != 0 || !r->durable_bytes;
		r->n[FV_INTACT] = jobs[i].rec.n_files;
	}
}

static void recording(int number, int sync, const char *spec)
{
	struct cs_cycle c;
	char rec[900];

	snprintf(rec, sizeof(rec), "%s/rec", dir);
	recfix_cycle(&c, rec, number);
	c.sync = sync;
	c.plan_index = number - 1;
	snprintf(c.date, sizeof(c.date), "2026-01-01T00:00:00Z");
	snprintf(c.kernel_release, sizeof(c.kernel_release), "6.1.0-toy");
	snprintf(c.qemu_version, sizeof(c.qemu_version), "7.2.0");
	snprintf(c.knob, sizeof(c.knob), "suspend_sync");
	recfix_log(&c, spec);
	recfix_seal(&c, false);
}

static void opts(struct cs_opts *o, const char *out, int k, int n)
{
	static char rec[900];

	snprintf(rec, sizeof(rec), "%s/rec", dir);
	recfix_judge_opts(o, "/dev/null", out, rec);
	o->per_boot = 2;
	o->shard_k = k;
	o->shard_n = n;
	o->model.prefixes = 6;
}

/* Judges N shards into out; merges them; the report's three texts. */
static int run(const char *name, int n, char *texts[3])
{
	struct cs_backend be = { .batch = toy_batch };
	char out[900], *paths[8], p[1000];
	struct cs_run r;
	struct cs_opts o;
	FILE *m;
	size_t len;
	int rc = 0;

	snprintf(out, sizeof(out), "%s/%s", dir, name);
	mkdir(out, 0755);
	for (int k = 1; k <= n; k++) {
		paths[k - 1] = malloc(1000);
		opts(&o, out, k, n);
		rc |= cs_judge(&o, &be, paths[k - 1], 1000);
	}
	rc |= cs_merge(paths, n, &r);
	m = open_memstream(&texts[0], &len);
	if (!rc)
		cs_report_table(m, &r);
	fclose(m);
	/* the plot is gnuplot's, not compared: a stand-in makes the SVG,
	 * since the set is written only whole */
	{
		char gp[1000];

		snprintf(gp, sizeof(gp), "%s/gnuplot", dir);
		m = fopen(gp, "w");
		if (m) {
			fputs("#!/bin/sh\nout=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\")\n"
			      "echo '<svg/>' > \"$out\"\n", m);
			fclose(m);
		}
		chmod(gp, 0755);
		setenv("GNUPLOT", gp, 1);
	}
	if (!rc)
		rc = cs_report_files(out, &r) ? 1 : 0;
	unsetenv("GNUPLOT");
	cs_run_free(&r);
	for (int f = 1; f <= 2; f++) {
		FILE *in;

		snprintf(p, sizeof(p), "%s/crash.%s", out, f == 1 ? "json" : "csv");
		in = fopen(p, "r");
		texts[f] = calloc(1, 1 << 20);
		if (in) {
			if (!fread(texts[f], 1, (1 << 20) - 1, in))
				texts[f][0] = '\0';
			fclose(in);
		}
	}
	for (int k = 0; k < n; k++)
		free(paths[k]);
	return rc;
}

static int merge_of(const char *a, const char *b)
{
	char *paths[2] = { (char *)a, (char *)b };
	struct cs_run r;
	int rc;

	fflush(stdout);
	rc = cs_merge(paths, b ? 2 : 1, &r);
	cs_run_free(&r);
	return rc;
}

int main(void)
{
	char *one[3], *two[3], *three[3], p1[900], p2[900], other[900], cmd[1000];

	setvbuf(stderr, NULL, _IONBF, 0);
	struct cs_backend be = { .batch = toy_batch };
	struct cs_opts o;

	if (!mkdtemp(dir))
		return 1;
	snprintf(cmd, sizeof(cmd), "%s/rec", dir);
	mkdir(cmd, 0755);
	recording(1, 1, "WWFWWWWWWWWWFWWFWWWF");
	recording(2, 0, "WWFWWWWWWWWWFWWWW");

	{
		int rc = run("one", 1, one);

		tap_ok(!rc && batches >= 15, "one shard judged and merged (%d batches of 2)", batches);
	}
	tap_ok(!run("two", 2, two), "two shards judged and merged");
	tap_ok(!run("three", 3, three), "three shards judged and merged");
	tap_ok(strstr(one[0], "cycle 2 (sync=0)") && strlen(one[1]) > 100 && strlen(one[2]) > 100,
	       "the single run reports both cycles");
	for (int f = 0; f < 3; f++) {
		const char *what[] = { "table", "crash.json", "crash.csv" };

		tap_ok(!strcmp(one[f], two[f]) && !strcmp(one[f], three[f]),
		       "%s: 2 and 3 shards merged are identical to 1", what[f]);
	}

	snprintf(p1, sizeof(p1), "%s/two/crash-shard-1-of-2.json", dir);
	snprintf(p2, sizeof(p2), "%s/two/crash-shard-2-of-2.json", dir);
	tap_ok(merge_of(p1, NULL) == 2, "merge refuses a missing shard");
	tap_ok(merge_of(p1, p1) == 2, "merge refuses a shard given twice");
	snprintf(other, sizeof(other), "%s/other", dir);
	mkdir(other, 0755);
	opts(&o, other, 2, 2);
	o.model.gap_states = 1;
	cs_judge(&o, &be, cmd, sizeof(cmd));
	tap_ok(merge_of(p1, cmd) == 2, "merge refuses a shard of another run (another model)");
	snprintf(cmd, sizeof(cmd), "%s/not-a-shard.json", dir);
	{
		FILE *f = fopen(cmd, "w");

		if (f) {
			fputs("{\"schema\": \"something/else\"}\n", f);
			fclose(f);
		}
	}
	tap_ok(merge_of(p1, cmd) == 2, "merge refuses a file that is not a shard");
	tap_ok(!merge_of(p1, p2), "the two shards merge in either order");
	{
		char work[1000];

		snprintf(work, sizeof(work), "%s/one/crash-work-1-of-1", dir);
		tap_ok(access(work, F_OK) != 0, "no work directory or image left behind");
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		tap_diag("could not remove %s", dir);
	for (int f = 0; f < 3; f++) {
		free(one[f]);
		free(two[f]);
		free(three[f]);
	}
	return tap_done();
}

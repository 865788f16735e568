/*
 * t_crash_merge: shards are input.  Two shards of a synthetic run (two
 * cycles, 30 states) are written by cs_shard_write(), then one field is
 * edited at a time and `crash-states merge` run on them.
 *
 * Guards: the honest shards merge (exit 0, "wrote"); a number no state can
 * have (a negative or fractional loss, a loss above the expected bytes, an
 * index out of range or of another shard, an unknown verdict, a count
 * beyond the files judged, a position past the log, a cycle's negative
 * entries) is one line naming the file, the state by its name and
 * "index", the field and the value, exit 2, and the earlier crash.json
 * stays; the results set is replaced whole or not at all (a directory at
 * crash.csv, a plot that fails), with no part files left.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crash.h"
#include "tap.h"

#define TOTAL 30

static char dir[] = "/tmp/t_crash_merge.XXXXXX", bindir[512], err[8192];

static int merge(const char *out)
{
	char path[600], errfile[700];
	int status, fd;
	pid_t pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/crash-states", bindir);
	snprintf(errfile, sizeof(errfile), "%s/merge.err", dir);
	pid = fork();
	if (!pid) {
		fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execl(path, path, "merge", "--out", out, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	f = fopen(errfile, "r");
	err[0] = '\0';
	if (f) {
		err[fread(err, 1, sizeof(err) - 1, f)] = '\0';
		fclose(f);
	}
	for (char *p = err; *p; p++)
		if (*p == '\n')
			*p = p[1] ? '|' : '\0';
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char *get(const char *path)
{
	static char buf[64];
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
	}
	return buf;
}

/* States P2..P16 of cycles 1 (sync=1) and 2 (sync=0); every fourth not judged. */
static void shards(const char *out)
{
	struct cs_cycle cy[2];
	struct cs_result res[TOTAL], mine[TOTAL];
	struct cs_opts o;
	char p[700];

	memset(&o, 0, sizeof(o));
	hx_opts_defaults(&o.hx);
	o.model = (struct cs_model){ .gap_states = 3, .prefixes = -1, .seed = 1 };
	o.shard_n = 2;
	for (int c = 0; c < 2; c++) {
		memset(&cy[c], 0, sizeof(cy[c]));
		cy[c].number = c + 1;
		cy[c].sync = !c;
		cy[c].m = (struct cs_marks){ .start = 2, .request = 10, .suspended = 16, .n = 16 };
		cy[c].n_flushes = 2;
		cy[c].sync_last_flush = 14;
		cy[c].fsync_pos = 5;
		cy[c].replay_matches = true;
		snprintf(cy[c].profile, sizeof(cy[c].profile), "emmc");
		snprintf(cy[c].state, sizeof(cy[c].state), "mem");
	}
	for (int i = 0; i < TOTAL; i++) {
		struct cs_result *r = &res[i];

		memset(r, 0, sizeof(*r));
		r->index = i;
		r->cycle = i / 15 + 1;
		r->sync = cy[i / 15].sync;
		r->pos = i % 15 + 2;
		snprintf(r->name, sizeof(r->name), "P%d", r->pos);
		r->kind = CS_PREFIX;
		r->phase = cs_phase_of(&cy[0].m, r->pos);
		r->fio_verify = -1;
		r->judged = i % 4 != 3;
		snprintf(r->verdict, sizeof(r->verdict), "%s", r->judged ? "OK" : "NotRun");
		if (!r->judged)
			continue;
		r->mounted = r->fs_clean = r->fsync_intact = true;
		r->files_judged = 9;
		r->n[FV_INTACT] = 8;
		r->n[FV_MISSING] = 1;
		r->expected_bytes = 1000;
		r->durable_bytes = 100;
		r->lost_bytes = i * 37 % 1000;
	}
	for (int k = 1; k <= 2; k++) {
		int n = 0;

		for (int i = 0; i < TOTAL; i++)
			if (cs_in_shard(i, k, 2))
				mine[n++] = res[i];
		o.shard_k = k;
		snprintf(p, sizeof(p), "%s/crash-shard-%d-of-2.json", out, k);
		cs_shard_write(p, &o, cy, 2, TOTAL, mine, n);
	}
}

struct edit {
	const char *field;	/* in shard 2's first state (P3, index 1); "cycles.X": both */
	const char *value;	/* JSON */
	const char *says;	/* in the refusal */
};

static void edited(const char *honest, const struct edit *e)
{
	char out[600], p[700], want[200];
	json_t *j[2];
	int rc;

	snprintf(out, sizeof(out), "%s/edit", dir);
	mkdir(out, 0755);
	for (int k = 0; k < 2; k++) {
		json_t *target, *v = json_loads(e->value, JSON_DECODE_ANY, NULL);
		const char *f = e->field;

		snprintf(p, sizeof(p), "%s/crash-shard-%d-of-2.json", honest, k + 1);
		j[k] = json_load_file(p, 0, NULL);
		if (!strncmp(f, "cycles.", 7)) {
			target = json_array_get(json_object_get(j[k], "cycles"), 0);
			f += 7;
		} else if (!strcmp(f, "total_states")) {
			target = k ? j[k] : NULL;
		} else {
			target = k ? json_array_get(json_object_get(j[k], "states"), 0) : NULL;
			if (target && !strncmp(f, "files.", 6)) {
				target = json_object_get(target, "files");
				f += 6;
			}
		}
		if (target)
			json_object_set_new(target, f, v);
		else
			json_decref(v);
		snprintf(p, sizeof(p), "%s/crash-shard-%d-of-2.json", out, k + 1);
		json_dump_file(j[k], p, JSON_INDENT(1) | JSON_SORT_KEYS);
		json_decref(j[k]);
	}
	snprintf(p, sizeof(p), "%s/crash.json", out);
	put(p, "earlier\n");
	rc = merge(out);
	snprintf(want, sizeof(want), "%s\": %s", strrchr(e->field, '.') ? strrchr(e->field, '.') + 1
		 : e->field, e->value);
	/* a cycle is read from the first shard, the states from their own */
	tap_ok(rc == 2 && !strchr(err, '|') &&
	       strstr(err, strchr(e->field, '.') && e->field[0] == 'c' ? "crash-shard-1-of-2.json"
		      : "crash-shard-2-of-2.json") &&
	       strstr(err, e->says) && strstr(err, want) && !strcmp(get(p), "earlier\n"),
	       "\"%s\": %s: exit %d: %.200s", e->field, e->value, rc, err);
}

static void results_set(const char *honest)
{
	char p[700], csv[700], gp[700], svg[700];

	snprintf(gp, sizeof(gp), "%s/gnuplot", dir);
	put(gp, "#!/bin/sh\nout=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\")\n"
	    "echo '<svg/>' > \"$out\"\n");
	chmod(gp, 0755);
	setenv("GNUPLOT", gp, 1);
	snprintf(csv, sizeof(csv), "%s/crash.csv", honest);
	snprintf(svg, sizeof(svg), "%s/crash.svg", honest);
	mkdir(csv, 0755);
	for (int f = 0; f < 2; f++) {
		snprintf(p, sizeof(p), "%s/crash.%s", honest, f ? "svg" : "json");
		put(p, "earlier\n");
	}
	/* found before merging (outdir_check), so nothing is replaced */
	tap_ok(merge(honest) == 2 && !strstr(err, "wrote") && strstr(err, "crash.csv") &&
	       !strcmp(get(p), "earlier\n"), "crash.csv a directory: none replaced: %.200s", err);
	snprintf(p, sizeof(p), "%s/crash.json", honest);
	tap_ok(!strcmp(get(p), "earlier\n"), "crash.json is the earlier one: '%.7s'", get(p));
	rmdir(csv);
	put(csv, "earlier\n");
	setenv("GNUPLOT", "false", 1);
	tap_ok(merge(honest) == 1 && !strcmp(get(p), "earlier\n") && !strcmp(get(csv), "earlier\n"),
	       "the plot failing: crash.json '%.7s', crash.csv '%.7s': %.200s", get(p), get(csv),
	       err);
	setenv("GNUPLOT", gp, 1);
	tap_ok(merge(honest) == 0 && strstr(err, "wrote") && strstr(get(p), "crash-states/1") &&
	       strstr(get(csv), "index,") && strstr(get(svg), "<svg/>"),
	       "then merged: all three new: %.200s", err);
	{
		int parts = 0;
		char cmd[800];
		FILE *ls;

		snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '\\.new-\\|\\.tmp'", honest);
		ls = popen(cmd, "r");
		if (!ls || fscanf(ls, "%d", &parts) != 1)
			parts = -1;
		if (ls)
			pclose(ls);
		tap_ok(parts == 0, "no part or temporary file left (%d)", parts);
	}
	unsetenv("GNUPLOT");
}

int main(int argc, char **argv)
{
	static const struct edit edits[] = {
		{ "lost_bytes", "-5", "P3 (\"index\": 1)" },
		{ "lost_bytes", "1001", "from 0 to 1000" },
		{ "lost_bytes", "12.5", "P3 (\"index\": 1)" },
		{ "lost_bytes", "\"7\"", "P3" },
		{ "expected_bytes", "-1", "P3" },
		{ "durable_bytes", "2000", "P3" },
		{ "index", "4294967297", "from 0 to 29" },
		{ "index", "2", "a state of this shard" },
		{ "verdict", "\"Bogus\"", "a verdict name" },
		{ "files_judged", "99999", "P3" },
		{ "files.intact", "-1", "P3 (\"index\": 1)" },
		{ "position", "99", "P3" },
		{ "phase", "\"suspended\"", "\"dataset\"" },
		{ "cycle", "7", "a cycle of the run" },
		{ "unexpected_entries", "-2", "P3" },
		{ "judged", "\"yes\"", "true or false" },
		{ "cycles.entries", "-1", "cycle 1:" },
		{ "total_states", "\"x\"", "integer" },
	};
	char honest[600];

	(void)argc;
	if (!mkdtemp(dir))
		return 1;
	snprintf(bindir, sizeof(bindir), "%s", dirname(argv[0]));
	snprintf(honest, sizeof(honest), "%s/honest", dir);
	mkdir(honest, 0755);
	setenv("GNUPLOT", "true", 1);
	shards(honest);
	{
		int rc = merge(honest);

		tap_ok(rc == 1 && strstr(err, "gnuplot made no"),
		       "the honest shards merge (the plot is next): exit %d: %.200s", rc, err);
	}
	unsetenv("GNUPLOT");
	for (size_t k = 0; k < sizeof(edits) / sizeof(edits[0]); k++)
		edited(honest, &edits[k]);
	results_set(honest);
	{
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			tap_diag("could not remove %s", dir);
	}
	return tap_done();
}

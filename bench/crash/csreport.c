/*
 * The crash-states report, in the lab's format family: a table, JSON with
 * every state, cycle and summary, and CSV with one row per state, all from
 * one merged run (shard.c), so a sharded run reports what a single one
 * does.  Summaries: per setting and phase, then per setting; the
 * drop-flush self-test's states stand apart, never in a phase's figures.
 */
#include "crash.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "csv.h"
#include "outfile.h"
#include "outset.h"
#include "stats.h"

#define ALL_PHASES CS__PHASES

struct cs_sum {
	int sync, phase;		/* phase ALL_PHASES: every phase */
	int states, judged, lossy, fsync_lost, fs_damage, extra;
	struct stats lost;
};

json_t *cs_result_json(const struct cs_result *r);

static bool counts(const struct cs_result *r, int sync, int phase)
{
	return r->kind != CS_DROP && r->sync == sync && (phase == ALL_PHASES || (int)r->phase == phase);
}

/* Rows with states, sync 1 then 0, phases in order then all. */
static int summarise(const struct cs_run *run, struct cs_sum *out)
{
	double *v = malloc((run->n + 1) * sizeof(*v));
	int k = 0;

	for (int sync = 1; v && sync >= 0; sync--)
		for (int ph = 0; ph <= ALL_PHASES; ph++) {
			struct cs_sum *s = &out[k];
			int nv = 0;

			memset(s, 0, sizeof(*s));
			s->sync = sync;
			s->phase = ph;
			for (int i = 0; i < run->n; i++) {
				const struct cs_result *r = &run->res[i];

				if (!counts(r, sync, ph))
					continue;
				s->states++;
				if (!r->judged)
					continue;
				s->judged++;
				s->lossy += r->lost_bytes > 0;
				s->fsync_lost += !r->fsync_intact;
				s->fs_damage += !r->mounted || !r->fs_clean;
				s->extra += r->n_unexpected > 0;
				v[nv++] = (double)r->lost_bytes;
			}
			stats_compute(v, nv, &s->lost);
			k += s->states > 0;
		}
	free(v);
	return k;
}

/* The first position from which every judged state of the cycle loses
 * nothing; -1 if its last state loses. */
static int first_all_zero(const struct cs_run *run, int cycle)
{
	int first = -1, last_bad = -1, any = 0;

	for (int i = 0; i < run->n; i++) {
		const struct cs_result *r = &run->res[i];

		if (r->cycle != cycle || r->kind == CS_DROP || !r->judged)
			continue;
		any = 1;
		if (r->lost_bytes > 0 && r->pos > last_bad)
			last_bad = r->pos;
	}
	for (int i = 0; any && i < run->n; i++) {
		const struct cs_result *r = &run->res[i];

		if (r->cycle == cycle && r->kind != CS_DROP && r->judged && r->pos > last_bad &&
		    (first < 0 || r->pos < first))
			first = r->pos;
	}
	return first;
}

static const char *phase_label(int ph)
{
	return ph == ALL_PHASES ? "all" : cs_phase_name(ph);
}

static void drops(const struct cs_run *run, int *n, int *caught)
{
	*n = *caught = 0;
	for (int i = 0; i < run->n; i++) {
		const struct cs_result *r = &run->res[i];

		if (r->kind != CS_DROP)
			continue;
		(*n)++;
		*caught += r->judged && (!r->fsync_intact || !r->mounted || !r->fs_clean);
	}
}

/* A provenance string for the table: shards are input, so a control
 * character (a newline that forges a row, an escape sequence) is shown as
 * '?', a long one cut with "...", a missing one as "?".  Rotating buffers:
 * a few per line. */
static const char *shown(json_t *o, const char *key)
{
	static char buf[8][132];
	static int k;
	const char *s = json_string_value(json_object_get(o, key));
	char *b = buf[k++ % 8];
	size_t n = 0;

	if (!s)
		return "?";
	for (; s[n] && n < 128; n++)
		b[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
	snprintf(b + n, sizeof(buf[0]) - n, "%s", s[n] ? "..." : "");
	return b;
}

void cs_report_table(FILE *f, const struct cs_run *run)
{
	struct cs_sum sum[2 * (ALL_PHASES + 1)];
	int ns = summarise(run, sum), nd, caught;
	json_t *p = json_loads(run->provenance, 0, NULL);
	json_t *prof = json_object_get(p, "profile"), *model = json_object_get(p, "model");

	fprintf(f, "crash-states %s, recorded %s\n",
		shown(p, "program_version"),
		shown(p, "recorded"));
	fprintf(f, "kernel    %s, knob %s\n", shown(p, "kernel_release"),
		shown(p, "knob"));
	fprintf(f, "qemu      %s, accel %s, data disk logged by blklogwrites\n",
		shown(p, "qemu_version"),
		shown(p, "accel"));
	fprintf(f, "profile   %s, state %s, largest file %lld B, seed %lld\n",
		shown(prof, "name"),
		shown(p, "state"),
		(long long)json_integer_value(json_object_get(p, "largest_file_bytes")),
		(long long)json_integer_value(json_object_get(p, "seed")));
	fprintf(f, "states    after every flush, %lld per gap between flushes, %lld write"
		" prefixes per cycle (-1: all)\n\n",
		(long long)json_integer_value(json_object_get(model, "gap_states")),
		(long long)json_integer_value(json_object_get(model, "prefixes")));
	json_decref(p);
	fprintf(f, "%-4s %-9s %6s %6s %11s %11s %11s %6s %6s %6s %5s\n", "sync", "phase",
		"states", "judged", "min_lost_B", "med_lost_B", "max_lost_B", "lossy",
		"fsync", "fsck", "extra");
	for (int k = 0; k < ns; k++) {
		const struct cs_sum *s = &sum[k];

		fprintf(f, "%-4d %-9s %6d %6d %11.0f %11.0f %11.0f %6d %6d %6d %5d\n", s->sync,
			phase_label(s->phase), s->states, s->judged,
			s->lost.n ? s->lost.min : 0, s->lost.n ? s->lost.median : 0,
			s->lost.n ? s->lost.max : 0, s->lossy, s->fsync_lost, s->fs_damage, s->extra);
	}
	fprintf(f, "  lossy: states that lost bytes; fsync: lost fsync'd data after its fsync"
		" returned;\n  fsck: unmountable, or the filesystem's checker not clean after the mount\n");
	for (int c = 0; c < run->n_cycles; c++) {
		const struct cs_cycle *cy = &run->cy[c];
		int z = first_all_zero(run, cy->number);

		fprintf(f, "cycle %d (sync=%d): %d log entries, %d flushes; dataset from %d,"
			" fsync returned at %d, request at %d, suspended at %d\n",
			cy->number, cy->sync, cy->m.n, cy->n_flushes, cy->m.start, cy->fsync_pos,
			cy->m.request, cy->m.suspended);
		char lf[16] = "none";

		if (cy->sync_last_flush >= 0)
			snprintf(lf, sizeof(lf), "%d", cy->sync_last_flush);
		if (z >= 0)
			fprintf(f, "  sync's last flush: %s; every state from %d on loses 0 bytes\n",
				lf, z);
		else
			fprintf(f, "  sync's last flush: %s; the last states still lose bytes\n", lf);
	}
	drops(run, &nd, &caught);
	if (nd)
		fprintf(f, "drop-flush self-test: %d states replayed without a flush's ordering;"
			" the oracle caught %d\n", nd, caught);
	for (int i = 0; i < run->n; i++)
		if (!run->res[i].judged)
			fprintf(f, "state %s (cycle %d): not judged: %s\n", run->res[i].name,
				run->res[i].cycle, run->res[i].verdict);
}

static json_t *j_num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *j_pos(int p)
{
	return p >= 0 ? json_integer(p) : json_null();
}

static int dump(FILE *f, const void *ctx)
{
	return json_dumpf(ctx, f, JSON_INDENT(2)) ? -1 : 0;
}

static int write_json(const char *path, const struct cs_run *run)
{
	struct cs_sum sum[2 * (ALL_PHASES + 1)];
	int ns = summarise(run, sum), nd, caught, rc;
	json_t *states = json_array(), *cycles = json_array(), *summary = json_array(), *j;

	for (int i = 0; i < run->n; i++)
		json_array_append_new(states, cs_result_json(&run->res[i]));
	for (int c = 0; c < run->n_cycles; c++) {
		const struct cs_cycle *cy = &run->cy[c];

		json_array_append_new(cycles, json_pack("{s:i, s:i, s:i, s:i, s:i, s:o, s:o,"
			" s:i, s:o, s:o, s:b}", "cycle", cy->number, "sync", cy->sync,
			"entries", cy->m.n, "start", cy->m.start, "request", cy->m.request,
			"suspended", j_pos(cy->m.suspended), "fsync_returned", j_pos(cy->fsync_pos),
			"flushes", cy->n_flushes, "sync_last_flush", j_pos(cy->sync_last_flush),
			"first_all_zero", j_pos(first_all_zero(run, cy->number)),
			"replay_matches", cy->replay_matches));
	}
	for (int k = 0; k < ns; k++) {
		const struct cs_sum *s = &sum[k];

		json_array_append_new(summary, json_pack("{s:i, s:s, s:i, s:i,"
			" s:{s:o, s:o, s:o}, s:i, s:i, s:i, s:i}", "sync", s->sync,
			"phase", phase_label(s->phase), "states", s->states, "judged", s->judged,
			"lost_bytes", "min", j_num(s->lost.min), "median", j_num(s->lost.median),
			"max", j_num(s->lost.max), "lossy_states", s->lossy,
			"fsync_lost_states", s->fsync_lost, "fs_damaged_states", s->fs_damage,
			"unexpected_entry_states", s->extra));
	}
	drops(run, &nd, &caught);
	j = json_pack("{s:s, s:o, s:o, s:o, s:{s:i, s:i}, s:o}", "schema", CS_SCHEMA,
		      "provenance", json_loads(run->provenance, 0, NULL), "cycles", cycles,
		      "summary", summary, "drop_flush", "states", nd, "caught", caught,
		      "states", states);
	if (!j) {
		fprintf(stderr, "%s: cannot build the JSON report\n", cli_prog);
		return -1;
	}
	rc = outfile_write(path, dump, j);
	json_decref(j);
	return rc;
}

static int write_csv(FILE *f, const void *ctx)
{
	static const char *const cols[] = {
		"index", "cycle", "sync", "state", "kind", "position", "phase", "judged",
		"verdict", "fs_mounted", "fs_clean", "fio_verify", "files_judged",
		"expected_bytes", "durable_bytes", "lost_bytes", "fsync_intact",
		"files_intact", "files_missing", "files_truncated", "files_corrupted",
		"files_not_regular", "files_unreadable", "unexpected_entries",
	};
	const struct cs_run *run = ctx;
	struct csv c;

	csv_begin(&c, f, cols, sizeof(cols) / sizeof(cols[0]));
	for (int i = 0; i < run->n; i++) {
		const struct cs_result *r = &run->res[i];
		bool j = r->judged;

		csv_int(&c, r->index + 1);
		csv_int(&c, r->cycle);
		csv_int(&c, r->sync);
		csv_str(&c, r->name);
		csv_str(&c, cs_kind_name(r->kind));
		csv_int(&c, r->pos);
		csv_str(&c, cs_phase_name(r->phase));
		csv_bool(&c, j);
		csv_str(&c, r->verdict);
		csv_bool(&c, j ? r->mounted : -1);
		csv_bool(&c, j ? r->fs_clean : -1);
		csv_bool(&c, r->fio_verify);
		csv_int(&c, r->files_judged);
		csv_int(&c, (long long)r->expected_bytes);
		csv_int(&c, (long long)r->durable_bytes);
		csv_kb(&c, j ? (long long)r->lost_bytes : -1);
		csv_bool(&c, j ? r->fsync_intact : -1);
		for (int v = FV_INTACT; v <= FV_UNREADABLE; v++)
			csv_kb(&c, j ? r->n[v] : -1);
		csv_kb(&c, j ? r->n_unexpected : -1);
		csv_end_row(&c);
	}
	return csv_finish(&c);
}

/* The results set, all of it or none (outset.h). */
int cs_report_files(const char *dir, const struct cs_run *run)
{
	struct outset set;
	int bad = 0;

	if (outset_begin(&set, dir))
		return -1;
	bad += write_json(outset_path(&set, "crash.json"), run) != 0;
	bad += outfile_write(outset_path(&set, "crash.csv"), write_csv, run) != 0;
	if (!bad && cs_plot(outset_path(&set, "crash.svg"), run)) {
		fprintf(stderr, "%s: plot: gnuplot made no crash.svg\n", cli_prog);
		bad++;
	}
	return outset_commit(&set, bad);
}

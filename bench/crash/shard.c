/*
 * Shard files: the states one judge run judged, with what every shard
 * must agree on (provenance, model, cycles, the run's state count), so
 * that merging them gives the report of a single run or refuses.
 */
#include "crash.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "outfile.h"

static const char *const fv_keys[FV__COUNT] = {
	"intact", "missing", "truncated", "corrupted", "not_regular", "unreadable",
	"not_judged",
};

static json_t *provenance(const struct cs_opts *o, const struct cs_cycle *cy)
{
	const struct disk_profile *p = disk_profile(cy->profile);

	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:o, s:o}, s:I, s:I,"
			 " s:{s:i, s:i}, s:b, s:s}",
			 "program_version", LAB_VERSION, "recorded", cy->date,
			 "kernel_release", cy->kernel_release, "qemu_version", cy->qemu_version,
			 "knob", cy->knob, "accel", o->hx.accel, "state", cy->state,
			 "profile", "name", cy->profile,
			 "write_bytes_per_s", p && p->write_bps ? json_integer(p->write_bps) : json_null(),
			 "write_iops", p && p->write_iops ? json_integer(p->write_iops) : json_null(),
			 "largest_file_bytes", (json_int_t)cy->big_bytes,
			 "seed", (json_int_t)cy->seed,
			 "model", "gap_states", o->model.gap_states, "prefixes", o->model.prefixes,
			 "drop_flush", o->drop_flush, "log_format", "dm-log-writes (QEMU blklogwrites)");
}

static json_t *j_pos(int p)
{
	return p >= 0 ? json_integer(p) : json_null();
}

static json_t *cycle_json(const struct cs_cycle *c)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:i, s:o, s:i, s:o, s:o, s:b}",
			 "cycle", c->number, "sync", c->sync, "entries", c->m.n,
			 "start", c->m.start, "request", c->m.request,
			 "suspended", j_pos(c->m.suspended), "flushes", c->n_flushes,
			 "sync_last_flush", j_pos(c->sync_last_flush),
			 "fsync_returned", j_pos(c->fsync_pos),
			 "replay_matches", c->replay_matches);
}

json_t *cs_result_json(const struct cs_result *r);
json_t *cs_result_json(const struct cs_result *r)
{
	json_t *files = json_object();
	bool j = r->judged;

	for (int v = 0; v < FV_NOT_JUDGED; v++)
		json_object_set_new(files, fv_keys[v], json_integer(r->n[v]));
	return json_pack("{s:i, s:i, s:i, s:s, s:s, s:i, s:s, s:b, s:s, s:o, s:o, s:o,"
			 " s:i, s:I, s:I, s:o, s:o, s:o, s:i}",
			 "index", r->index, "cycle", r->cycle, "sync", r->sync,
			 "name", r->name, "kind", cs_kind_name(r->kind), "position", r->pos,
			 "phase", cs_phase_name(r->phase), "judged", j, "verdict", r->verdict,
			 "fs_mounted", j ? json_boolean(r->mounted) : json_null(),
			 "fs_clean", j ? json_boolean(r->fs_clean) : json_null(),
			 "fio_verify", r->fio_verify < 0 ? json_null() : json_boolean(r->fio_verify),
			 "files_judged", r->files_judged,
			 "expected_bytes", (json_int_t)r->expected_bytes,
			 "durable_bytes", (json_int_t)r->durable_bytes,
			 "lost_bytes", j ? json_integer(r->lost_bytes) : json_null(),
			 "fsync_intact", j ? json_boolean(r->fsync_intact) : json_null(),
			 "files", files, "unexpected_entries", r->n_unexpected);
}

static int dump(FILE *f, const void *ctx)
{
	return json_dumpf(ctx, f, JSON_INDENT(1) | JSON_SORT_KEYS) ? -1 : 0;
}

int cs_shard_write(const char *path, const struct cs_opts *o, const struct cs_cycle *cy,
		   int n_cy, int total, const struct cs_result *res, int n)
{
	json_t *cycles = json_array(), *states = json_array(), *j;
	int rc;

	for (int i = 0; i < n_cy; i++)
		json_array_append_new(cycles, cycle_json(&cy[i]));
	for (int i = 0; i < n; i++)
		json_array_append_new(states, cs_result_json(&res[i]));
	j = json_pack("{s:s, s:i, s:i, s:i, s:o, s:o, s:o}", "schema", CS_SHARD_SCHEMA,
		      "shard", o->shard_k, "of", o->shard_n, "total_states", total,
		      "provenance", provenance(o, &cy[0]), "cycles", cycles, "states", states);
	if (!j) {
		fprintf(stderr, "%s: cannot build %s\n", cli_prog, path);
		return -1;
	}
	rc = outfile_write(path, dump, j);
	json_decref(j);
	return rc;
}

static int ival(json_t *o, const char *k, int dflt)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

static bool read_result(json_t *s, struct cs_result *r)
{
	const char *name = json_string_value(json_object_get(s, "name"));
	const char *verdict = json_string_value(json_object_get(s, "verdict"));
	const char *phase = json_string_value(json_object_get(s, "phase"));
	json_t *files = json_object_get(s, "files"), *fio = json_object_get(s, "fio_verify");
	struct cs_state st;

	memset(r, 0, sizeof(*r));
	if (!name || !verdict || !phase || cs_parse(name, &st))
		return false;
	snprintf(r->name, sizeof(r->name), "%s", name);
	snprintf(r->verdict, sizeof(r->verdict), "%s", verdict);
	r->kind = st.kind;
	r->index = ival(s, "index", -1);
	r->cycle = ival(s, "cycle", 0);
	r->sync = ival(s, "sync", 0);
	r->pos = ival(s, "position", -1);
	for (r->phase = 0; r->phase < CS__PHASES && strcmp(phase, cs_phase_name(r->phase));
	     r->phase++)
		;
	r->judged = json_is_true(json_object_get(s, "judged"));
	r->mounted = json_is_true(json_object_get(s, "fs_mounted"));
	r->fs_clean = json_is_true(json_object_get(s, "fs_clean"));
	r->fio_verify = json_is_boolean(fio) ? json_is_true(fio) : -1;
	r->files_judged = ival(s, "files_judged", 0);
	r->expected_bytes = json_integer_value(json_object_get(s, "expected_bytes"));
	r->durable_bytes = json_integer_value(json_object_get(s, "durable_bytes"));
	r->lost_bytes = json_integer_value(json_object_get(s, "lost_bytes"));
	r->fsync_intact = json_is_true(json_object_get(s, "fsync_intact"));
	for (int v = 0; v < FV_NOT_JUDGED; v++)
		r->n[v] = ival(files, fv_keys[v], 0);
	r->n_unexpected = ival(s, "unexpected_entries", 0);
	return r->index >= 0 && r->phase < CS__PHASES && r->pos >= 0;
}

static void read_cycle(json_t *c, struct cs_cycle *cy)
{
	memset(cy, 0, sizeof(*cy));
	cy->log.fd = -1;
	cy->number = ival(c, "cycle", 0);
	cy->sync = ival(c, "sync", 0);
	cy->m.n = ival(c, "entries", 0);
	cy->m.start = ival(c, "start", 0);
	cy->m.request = ival(c, "request", 0);
	cy->m.suspended = ival(c, "suspended", -1);
	cy->n_flushes = ival(c, "flushes", 0);
	cy->sync_last_flush = ival(c, "sync_last_flush", -1);
	cy->fsync_pos = ival(c, "fsync_returned", -1);
	cy->replay_matches = json_is_true(json_object_get(c, "replay_matches"));
}

__attribute__((format(printf, 2, 3)))
static int refuse(json_t **sh, const char *fmt, ...);

int cs_merge(char **paths, int n, struct cs_run *run)
{
	json_t **sh = calloc(n + 1, sizeof(*sh));
	json_error_t err;
	int total = -1, of = -1, got = 0;
	bool *seen = NULL;

	memset(run, 0, sizeof(*run));
	if (!sh)
		return refuse(sh, "out of memory");
	for (int i = 0; i < n; i++) {
		const char *schema;

		sh[i] = json_load_file(paths[i], 0, &err);
		schema = json_string_value(json_object_get(sh[i], "schema"));
		if (!sh[i] || !schema || strcmp(schema, CS_SHARD_SCHEMA))
			return refuse(sh, "%s: not a crash-states shard%s%s", paths[i],
				      sh[i] ? "" : ": ", sh[i] ? "" : err.text);
		if (!i) {
			total = ival(sh[0], "total_states", -1);
			of = ival(sh[0], "of", -1);
			continue;
		}
		if (ival(sh[i], "total_states", -2) != total || ival(sh[i], "of", -2) != of ||
		    !json_equal(json_object_get(sh[i], "provenance"),
				json_object_get(sh[0], "provenance")) ||
		    !json_equal(json_object_get(sh[i], "cycles"), json_object_get(sh[0], "cycles")))
			return refuse(sh, "%s and %s come from different runs (recordings, model"
				      " or shard count differ)", paths[0], paths[i]);
	}
	if (!n || total < 0 || of < 1)
		return refuse(sh, "no shard to merge");
	for (int k = 1; k <= of; k++) {
		int c = 0;

		for (int i = 0; i < n; i++)
			c += ival(sh[i], "shard", 0) == k;
		if (c != 1)
			return refuse(sh, "shard %d of %d is %s", k, of, c ? "given twice" : "missing");
	}
	if (n != of)
		return refuse(sh, "%d files for %d shards", n, of);
	run->res = calloc(total + 1, sizeof(*run->res));
	seen = calloc(total + 1, sizeof(*seen));
	if (!run->res || !seen) {
		free(seen);
		return refuse(sh, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		json_t *states = json_object_get(sh[i], "states"), *s;
		size_t k;

		json_array_foreach(states, k, s) {
			struct cs_result r;

			if (!read_result(s, &r) || r.index >= total || seen[r.index]) {
				free(seen);
				return refuse(sh, "%s: state %zu is malformed or duplicated", paths[i], k);
			}
			seen[r.index] = true;
			run->res[r.index] = r;
			got++;
		}
	}
	free(seen);
	if (got != total)
		return refuse(sh, "the shards hold %d of the run's %d states", got, total);
	run->n = total;
	{
		json_t *cycles = json_object_get(sh[0], "cycles"), *c;
		char *p = json_dumps(json_object_get(sh[0], "provenance"), JSON_SORT_KEYS | JSON_COMPACT);
		size_t k;

		run->n_cycles = json_array_size(cycles);
		run->cy = calloc(run->n_cycles + 1, sizeof(*run->cy));
		if (!run->cy || !p) {
			free(p);
			return refuse(sh, "out of memory");
		}
		json_array_foreach(cycles, k, c)
			read_cycle(c, &run->cy[k]);
		snprintf(run->provenance, sizeof(run->provenance), "%s", p);
		free(p);
	}
	for (int i = 0; i < n; i++)
		json_decref(sh[i]);
	free(sh);
	return 0;
}

void cs_run_free(struct cs_run *run)
{
	free(run->cy);
	free(run->res);
	memset(run, 0, sizeof(*run));
}

static int refuse(json_t **sh, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; sh && sh[i]; i++)
		json_decref(sh[i]);
	free(sh);
	fprintf(stderr, "%s: merge: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 2;
}

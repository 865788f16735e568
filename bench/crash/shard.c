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
#include "escape.h"
#include "outfile.h"
#include "shardread.h"

static json_t *provenance(const struct cs_opts *o, const struct cs_cycle *cy)
{
	const struct disk_profile *p = disk_profile(cy->profile);

	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:s, s:s, s:{s:s, s:o, s:o}, s:I, s:I,"
			 " s:{s:i, s:i}, s:b, s:s}",
			 "program_version", LAB_VERSION, "recorded", cy->date,
			 "kernel_release", json_text(cy->kernel_release),
			 "qemu_version", json_text(cy->qemu_version), "knob", json_text(cy->knob), "accel", o->hx.accel, "state", cy->state,
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
	/* the digests: shards judged from different copies never merge */
	return json_pack("{s:i, s:i, s:i, s:i, s:i, s:o, s:i, s:o, s:o, s:b, s:s, s:s}",
			 "cycle", c->number, "sync", c->sync, "entries", c->m.n,
			 "start", c->m.start, "request", c->m.request,
			 "suspended", j_pos(c->m.suspended), "flushes", c->n_flushes,
			 "sync_last_flush", j_pos(c->sync_last_flush),
			 "fsync_returned", j_pos(c->fsync_pos),
			 "replay_matches", c->replay_matches,
			 "write_log_sha256", c->log_sha256, "base_img_sha256", c->base_sha256);
}

json_t *cs_result_json(const struct cs_result *r);
json_t *cs_result_json(const struct cs_result *r)
{
	json_t *files = json_object();
	bool j = r->judged;

	for (int v = 0; v < FV_NOT_JUDGED; v++)
		json_object_set_new(files, cs_fv_keys[v], json_integer(r->n[v]));
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

__attribute__((format(printf, 2, 3)))
static int refuse(json_t **sh, const char *fmt, ...);
static int drop(json_t **sh);

/* A shard's own figures: 0, or 2 after one line naming the file. */
static int head(json_t *j, const char *path, long long *k, long long *of, long long *total)
{
	char why[300];

	if (cs_json_int(j, "of", 1, 1000, false, of, why, sizeof(why)) ||
	    cs_json_int(j, "shard", 1, *of, false, k, why, sizeof(why)) ||
	    cs_json_int(j, "total_states", 0, INT32_MAX - 1, false, total, why, sizeof(why)))
		return refuse(NULL, "%s: %s", path, why);
	if (!json_is_array(json_object_get(j, "states")) ||
	    !json_is_array(json_object_get(j, "cycles")) ||
	    !json_object_size(json_object_get(j, "provenance")))
		return refuse(NULL, "%s: not a crash-states shard: no states, cycles or provenance",
			      path);
	return 0;
}

/* The run's cycles, from the first shard (all are equal by then). */
static int cycles(json_t *j, const char *path, struct cs_run *run)
{
	json_t *cycles = json_object_get(j, "cycles"), *c;
	char why[300];
	size_t k;

	run->n_cycles = json_array_size(cycles);
	run->cy = calloc(run->n_cycles + 1, sizeof(*run->cy));
	if (!run->cy)
		return refuse(NULL, "out of memory");
	json_array_foreach(cycles, k, c) {
		if (cs_read_cycle(c, &run->cy[k], why, sizeof(why)))
			return refuse(NULL, "%s: %s", path, why);
		for (size_t i = 0; i < k; i++)
			if (run->cy[i].number == run->cy[k].number)
				return refuse(NULL, "%s: cycle %d is listed twice", path,
					      run->cy[k].number);
	}
	return 0;
}

/* The run lists states in log order, cycle by cycle, each name once: an
 * edited name or position that keeps its own state consistent still
 * breaks this.  0, or -1 with why. */
static int in_order(const struct cs_result *res, int total, char *why, size_t n)
{
	for (int i = 1, g = 0; i < total; i++) {
		const struct cs_result *a = &res[i - 1], *b = &res[i];

		if (b->cycle < a->cycle || (b->cycle == a->cycle && b->pos < a->pos)) {
			snprintf(why, n, "state %s (\"index\": %d) of cycle %d comes after %s of"
				 " cycle %d: states are in log order (an edited \"name\" or"
				 " \"position\")", b->name, b->index, b->cycle, a->name, a->cycle);
			return -1;
		}
		if (b->cycle != a->cycle || b->pos != a->pos)
			g = i;		/* a new (cycle, position) group */
		for (int k = g; k < i; k++)
			if (!strcmp(res[k].name, b->name)) {
				snprintf(why, n, "state %s of cycle %d is given twice (\"index\": %d"
					 " and %d)", b->name, b->cycle, res[k].index, b->index);
				return -1;
			}
	}
	return 0;
}

int cs_merge(char **paths, int n, struct cs_run *run)
{
	json_t **sh = calloc(n + 1, sizeof(*sh));
	json_error_t err;
	long long total = -1, of = -1, k, o, t;
	int got = 0;
	int *owner = NULL;
	char why[400];

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
		if (head(sh[i], paths[i], &k, &o, &t))
			return drop(sh);
		if (!i) {
			total = t;
			of = o;
			continue;
		}
		if (t != total || o != of ||
		    !json_equal(json_object_get(sh[i], "provenance"),
				json_object_get(sh[0], "provenance")) ||
		    !json_equal(json_object_get(sh[i], "cycles"), json_object_get(sh[0], "cycles")))
			return refuse(sh, "%s and %s come from different runs (recordings, model"
				      " or shard count differ)", paths[0], paths[i]);
	}
	if (!n)
		return refuse(sh, "no shard to merge");
	for (k = 1; k <= of; k++) {
		int c = 0;

		for (int i = 0; i < n; i++)
			c += json_integer_value(json_object_get(sh[i], "shard")) == k;
		if (c != 1)
			return refuse(sh, "shard %lld of %lld is %s", k, of,
				      c ? "given twice" : "missing");
	}
	if (n != of)
		return refuse(sh, "%d files for %lld shards", n, of);
	for (int i = 0; i < n; i++)
		got += json_array_size(json_object_get(sh[i], "states"));
	/* counted before anything is allocated for them */
	if (got != total)
		return refuse(sh, "the shards hold %d of the run's %lld states", got, total);
	if (cycles(sh[0], paths[0], run))
		return drop(sh);
	run->res = calloc(total + 1, sizeof(*run->res));
	owner = calloc(total + 1, sizeof(*owner));
	if (!run->res || !owner) {
		free(owner);
		return refuse(sh, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		json_t *states = json_object_get(sh[i], "states"), *s;
		size_t j;

		k = json_integer_value(json_object_get(sh[i], "shard"));
		json_array_foreach(states, j, s) {
			struct cs_result r;

			if (cs_read_state(s, run->cy, run->n_cycles, total, k, of, &r, why,
					  sizeof(why))) {
				free(owner);
				return refuse(sh, "%s: %s", paths[i], why);
			}
			if (owner[r.index]) {
				free(owner);
				return refuse(sh, "%s: state %s (\"index\": %d) is given twice",
					      paths[i], r.name, r.index);
			}
			owner[r.index] = i + 1;
			run->res[r.index] = r;
		}
	}
	free(owner);
	run->n = total;
	if (in_order(run->res, total, why, sizeof(why)))
		return refuse(sh, "%s", why);
	{
		char *p = json_dumps(json_object_get(sh[0], "provenance"),
				     JSON_SORT_KEYS | JSON_COMPACT);

		if (!p || strlen(p) >= sizeof(run->provenance)) {
			free(p);
			return refuse(sh, "%s: the provenance is %s", paths[0],
				      p ? "too long" : "unreadable");
		}
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

/* The shards go; 2, the status of a shard refused (its line said). */
static int drop(json_t **sh)
{
	for (int i = 0; sh && sh[i]; i++)
		json_decref(sh[i]);
	free(sh);
	return 2;
}

static int refuse(json_t **sh, const char *fmt, ...)
{
	va_list ap;

	drop(sh);
	fprintf(stderr, "%s: merge: ", cli_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 2;
}

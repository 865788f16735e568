/* Recordings on disk: meta.json beside base.img and write.log, read back
 * (once proven whole, recdigest.h) with the log scanned and the marks
 * turned into log positions. */
#define _GNU_SOURCE
#include "crash.h"
#include "escape.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "recdigest.h"


static int put_text(FILE *f, const void *ctx)
{
	return fputs(ctx, f) < 0 ? -1 : 0;
}

/* meta.json, with the sizes and digests of the files beside it and its
 * own digest last (recdigest.h). */
int cs_meta_write(const struct cs_cycle *c)
{
	json_t *files = json_array(), *j, *rec;
	char why[400], zeros[65], *text = NULL, *full = NULL, *path = NULL;
	int rc = -1;

	for (int i = 0; i < c->n_files; i++)
		json_array_append_new(files, json_pack("{s:I, s:I}",
				      "begin_bytes", (json_int_t)c->file_begin[i],
				      "end_bytes", (json_int_t)c->file_end[i]));
	j = json_pack("{s:s, s:i, s:i, s:s, s:I, s:I, s:i, s:s, s:o, s:o, s:o, s:s, s:s,"
		      " s:{s:I, s:I, s:o, s:I}, s:o, s:b}",
		      "schema", CS_META_SCHEMA, "cycle", c->number, "sync", c->sync,
		      "state", c->state, "largest_file_bytes", (json_int_t)c->big_bytes,
		      "seed", (json_int_t)c->seed, "plan_index", c->plan_index,
		      "date", c->date, "kernel_release", json_text(c->kernel_release),
		      "qemu_version", json_text(c->qemu_version), "knob", json_text(c->knob),
		      "profile", c->profile,
		      "filesystem", c->fs, "log_bytes_at", "start", (json_int_t)c->at_start,
		      "request", (json_int_t)c->at_request,
		      "suspended", c->suspended ? json_integer(c->at_suspended) : json_null(),
		      "end", (json_int_t)c->at_end,
		      "files", files, "replay_matches", c->replay_matches);
	if (!j) {
		fprintf(stderr, "%s: %s: cannot write meta.json (a string that is not UTF-8?)\n",
			cli_prog, c->dir);
		return -1;
	}
	rec = cs_rec_files(c->dir, why, sizeof(why));
	if (!rec) {
		fprintf(stderr, "%s: %s\n", cli_prog, why);
		goto out;
	}
	json_object_set_new(j, "recorded_files", rec);
	memset(zeros, '0', 64);
	zeros[64] = '\0';
	json_object_set_new(j, CS_META_DIGEST_KEY, json_string(zeros));	/* sealed below */
	text = json_dumps(j, JSON_INDENT(2));
	if (!text || asprintf(&full, "%s\n", text) < 0 || cs_meta_seal(full) ||
	    asprintf(&path, "%s/meta.json", c->dir) < 0) {
		fprintf(stderr, "%s: %s: cannot write meta.json (out of memory)\n", cli_prog,
			c->dir);
		goto out;
	}
	rc = outfile_write(path, put_text, full);
out:
	free(path);
	free(full);
	free(text);
	json_decref(j);
	return rc;
}

/* The plan's file of a kind; -1 if none. */
static int file_of(const struct cs_cycle *c, const char *kind)
{
	struct pc_record r;
	char tol[CS_MAX_TOL][96];
	const char *tolp[CS_MAX_TOL + 1];
	struct cs_state all = { .kind = CS_PREFIX, .pos = 1 << 30 };

	cs_expect(c, &all, &r, tol, tolp);
	for (int i = 0; i < r.n_files; i++)
		if (!strcmp(r.files[i].kind, kind))
			return i;
	return -1;
}

int cs_cycle_load(struct cs_cycle *c, const char *dir, int number)
{
	char path[800], why[400];
	json_t *j;
	int entries = -1, rc;

	memset(c, 0, sizeof(*c));
	c->log.fd = -1;
	c->number = number;
	if (snprintf(c->dir, sizeof(c->dir), "%s", dir) >= (int)sizeof(c->dir) ||
	    snprintf(path, sizeof(path), "%s/meta.json", dir) >= (int)sizeof(path)) {
		fprintf(stderr, "%s: %s: the path is too long\n", cli_prog, dir);
		return -1;
	}
	j = cs_meta_load(c, path);
	if (!j)
		return -1;
	/* whole before used: sizes and digests as recorded */
	rc = cs_rec_verify(json_object_get(j, "recorded_files"), dir, c->at_end, &entries, why,
			   sizeof(why));
	if (!rc) {
		json_t *rf = json_object_get(j, "recorded_files");

		snprintf(c->log_sha256, sizeof(c->log_sha256), "%s", json_string_value(
			 json_object_get(json_object_get(rf, "write.log"), "sha256")));
		snprintf(c->base_sha256, sizeof(c->base_sha256), "%s", json_string_value(
			 json_object_get(json_object_get(rf, "base.img"), "sha256")));
	}
	json_decref(j);
	if (rc) {
		fprintf(stderr, "%s: %s\n", cli_prog, why);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/write.log", dir);
	if (lw_open(&c->log, path, 512, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", cli_prog, why);
		return -1;
	}
	if (c->log.n != entries) {
		fprintf(stderr, "%s: %s: %d whole entries, the recording has %d (%s)\n", cli_prog,
			path, c->log.n, entries, c->log.stop);
		lw_close(&c->log);
		return -1;
	}
	c->m.n = c->log.n;
	c->m.start = lw_entries_before(&c->log, c->at_start);
	c->m.request = lw_entries_before(&c->log, c->at_request);
	c->m.suspended = c->suspended ? lw_entries_before(&c->log, c->at_suspended) : -1;
	for (int i = 0; i < c->n_files; i++) {
		c->f_begin[i] = lw_entries_before(&c->log, c->file_begin[i]);
		c->f_end[i] = lw_entries_before(&c->log, c->file_end[i]);
	}
	c->sync_last_flush = -1;
	c->fsync_pos = -1;
	if (c->n_files) {
		int ctl = file_of(c, "control");

		c->fsync_pos = ctl >= 0 ? c->f_end[ctl] : -1;
	}
	for (int p = c->m.start + 1; p <= c->m.n; p++) {
		bool b = lw_is_barrier(&c->log.e[p - 1]);

		c->n_flushes += b;
		if (b && p > c->m.request)
			c->sync_last_flush = p;
	}
	return 0;
}

void cs_cycle_free(struct cs_cycle *c)
{
	lw_close(&c->log);
}

static int by_number(const void *a, const void *b)
{
	return ((const struct cs_cycle *)a)->number - ((const struct cs_cycle *)b)->number;
}

int cs_cycles_load(const char *rec, struct cs_cycle **out)
{
	DIR *d = opendir(rec);
	struct dirent *de;
	struct cs_cycle *cy = NULL;
	int n = 0, num;
	char end;

	*out = NULL;
	if (!d) {
		fprintf(stderr, "%s: no recordings in %s: %s (run crash-states record first)\n",
			cli_prog, rec, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		char dir[800], canon[32];
		struct cs_cycle *ncy;

		/* cycle-<n> as record names it: not cycle-01, nor a long name */
		if (sscanf(de->d_name, "cycle-%d%c", &num, &end) != 1 || num < 1)
			continue;
		snprintf(canon, sizeof(canon), "cycle-%d", num);
		if (strcmp(canon, de->d_name))
			continue;
		ncy = realloc(cy, (n + 1) * sizeof(*cy));
		if (!ncy)
			break;
		cy = ncy;
		snprintf(dir, sizeof(dir), "%s/%s", rec, de->d_name);
		if (cs_cycle_load(&cy[n], dir, num)) {
			closedir(d);
			for (int i = 0; i < n; i++)
				cs_cycle_free(&cy[i]);
			free(cy);
			return -1;
		}
		n++;
	}
	closedir(d);
	if (!n) {
		fprintf(stderr, "%s: no recordings in %s (run crash-states record first)\n",
			cli_prog, rec);
		free(cy);
		return -1;
	}
	qsort(cy, n, sizeof(*cy), by_number);
	*out = cy;
	return n;
}

void cs_expect(const struct cs_cycle *c, const struct cs_state *s, struct pc_record *r,
	       char tol[CS_MAX_TOL][96], const char *tolp[CS_MAX_TOL + 1])
{
	struct pc_opts po;
	int kept = 0, nt = 0;

	memset(&po, 0, sizeof(po));
	po.state = c->state;
	po.sync = c->sync;
	po.cut = CUT_SUSPENDED;
	po.seed = c->seed;
	po.big_bytes = c->big_bytes;
	pc_record_init(r, &po, c->plan_index);
	r->dataset_bytes = 0;
	for (int i = 0; i < r->n_files; i++) {
		/* judged once its writer returned; the others may be anywhere */
		bool done = i < c->n_files && c->f_end[i] <= s->pos;

		if (done) {
			r->files[kept] = r->files[i];
			r->dataset_bytes += r->files[kept++].size;
			continue;
		}
		snprintf(tol[nt++], sizeof(tol[0]), "%s", r->files[i].path);
		if (!strcmp(r->files[i].kind, "rename"))
			snprintf(tol[nt++], sizeof(tol[0]), "pc/tmp.name");
	}
	r->n_files = kept;
	for (int i = 0; i < nt; i++)
		tolp[i] = tol[i];
	tolp[nt] = NULL;
}

int cs_run_states(const struct cs_opts *o, struct cs_cycle *cy, int n_cy,
		  struct cs_state **st, int **cyc)
{
	struct cs_state *all = NULL;
	int *ci = NULL, n = 0;

	for (int k = 0; k < n_cy; k++) {
		struct cs_model m = o->model;
		struct cs_state *s;
		int c, ctl = file_of(&cy[k], "control");

		m.drop_lo = m.drop_hi = 0;
		if (o->drop_flush && ctl >= 0) {
			m.drop_lo = cy[k].f_begin[ctl];
			m.drop_hi = cy[k].f_end[ctl];
		}
		c = cs_enumerate(&cy[k].log, &cy[k].m, &m, &s);
		if (c < 0)
			goto oom;
		{
			struct cs_state *na = realloc(all, (n + c + 1) * sizeof(*na));
			int *nc = realloc(ci, (n + c + 1) * sizeof(*nc));

			if (na)
				all = na;
			if (nc)
				ci = nc;
			if (!na || !nc) {
				free(s);
				goto oom;
			}
		}
		memcpy(all + n, s, c * sizeof(*s));
		for (int i = 0; i < c; i++)
			ci[n + i] = k;
		n += c;
		free(s);
	}
	*st = all;
	*cyc = ci;
	return n;
oom:
	free(all);
	free(ci);
	return -1;
}

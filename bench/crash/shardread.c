/*
 * A shard's cycles and states, checked field by field: a count or a byte
 * figure no state can have (a negative loss wraps to 1.8e19 in the
 * summary) refuses the shard rather than enter the report.
 */
#include "shardread.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const cs_fv_keys[FV__COUNT] = {
	"intact", "missing", "truncated", "corrupted", "not_regular", "unreadable",
	"not_judged",
};

/* why = "<field>": <value> is not <valid>; the value as the file has it */
static int bad(char *why, size_t n, const char *key, json_t *v, const char *valid)
{
	char *t = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;

	if (!v)
		snprintf(why, n, "\"%s\" is missing (valid: %s)", key, valid);
	else
		snprintf(why, n, "\"%s\": %.40s%s is not %s", key, t ? t : "?",
			 t && strlen(t) > 40 ? "..." : "", valid);
	free(t);
	return -1;
}

int cs_json_int(json_t *o, const char *key, long long lo, long long hi, bool null_ok,
		long long *out, char *why, size_t n)
{
	json_t *v = json_object_get(o, key);
	char valid[96];

	if (null_ok && json_is_null(v)) {
		*out = -1;
		return 0;
	}
	if (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi) {
		*out = json_integer_value(v);
		return 0;
	}
	snprintf(valid, sizeof(valid), "an integer from %lld to %lld%s", lo, hi,
		 null_ok ? ", or null" : "");
	return bad(why, n, key, v, valid);
}

/* A boolean; with null_ok null reads as false. */
static int get_bool(json_t *o, const char *key, bool null_ok, bool *out, char *why, size_t n)
{
	json_t *v = json_object_get(o, key);

	if (json_is_boolean(v) || (null_ok && json_is_null(v))) {
		*out = json_is_true(v);
		return 0;
	}
	return bad(why, n, key, v, null_ok ? "true, false or null" : "true or false");
}

static int must_be_null(json_t *o, const char *key, char *why, size_t n)
{
	json_t *v = json_object_get(o, key);

	return json_is_null(v) ? 0 : bad(why, n, key, v, "null (the state was not judged)");
}

int cs_read_cycle(json_t *c, struct cs_cycle *cy, char *why, size_t n)
{
	long long num = 0, sync, e, start, req, susp, fl, last, fs;
	char w[300] = "";
	int rc;

	memset(cy, 0, sizeof(*cy));
	cy->log.fd = -1;
	rc = cs_json_int(c, "cycle", 1, 1000, false, &num, w, sizeof(w)) ||
	     cs_json_int(c, "sync", 0, 1, false, &sync, w, sizeof(w)) ||
	     cs_json_int(c, "entries", 0, INT32_MAX, false, &e, w, sizeof(w)) ||
	     cs_json_int(c, "start", 0, e, false, &start, w, sizeof(w)) ||
	     cs_json_int(c, "request", 0, e, false, &req, w, sizeof(w)) ||
	     cs_json_int(c, "suspended", 0, e, true, &susp, w, sizeof(w)) ||
	     cs_json_int(c, "flushes", 0, e, false, &fl, w, sizeof(w)) ||
	     cs_json_int(c, "sync_last_flush", 1, e, true, &last, w, sizeof(w)) ||
	     cs_json_int(c, "fsync_returned", 0, e, true, &fs, w, sizeof(w)) ||
	     get_bool(c, "replay_matches", false, &cy->replay_matches, w, sizeof(w));
	if (rc) {
		snprintf(why, n, "cycle %lld: %s", num, w);
		return -1;
	}
	cy->number = num;
	cy->sync = sync;
	cy->m = (struct cs_marks){ .start = start, .request = req, .suspended = susp, .n = e };
	cy->n_flushes = fl;
	cy->sync_last_flush = last;
	cy->fsync_pos = fs;
	return 0;
}

#define UNMOUNTABLE "FsUnmountable"

static bool kind_named(const char *s)
{
	for (int k = 0; k < CS__KINDS; k++)
		if (!strcmp(s, cs_kind_name(k)))
			return true;
	return false;
}

/* The bytes fsync'd before the cycle began: all a judge can count as
 * durable before the cycle's own fsync returned (the plan's heads). */
static uint64_t durable_before_cycle(void)
{
	struct pc_opts po = { .big_bytes = 1 << 20, .state = "mem" };
	struct pc_record r;
	uint64_t d = 0;

	memset(&r, 0, sizeof(r));
	pc_plan(&po, 0, &r);
	for (int i = 0; i < r.n_files; i++)
		if (strcmp(r.files[i].kind, "control"))
			d += r.files[i].durable;
	return d;
}

/*
 * What only a judge's own results can hold (vmjudge.c, pc_tally()): a
 * mounted state is OK and an unmountable one lost every byte, unreadable;
 * an fsync loss needs fsync'd bytes among the files judged, and before the
 * cycle's fsync returned those are only the heads fsync'd before it.
 */
static int judge_made(json_t *s, const struct cs_cycle *c, const struct cs_result *r,
		      char *w, size_t wn)
{
	bool ok = !strcmp(r->verdict, "OK");
	char valid[160];

	if (!r->judged)
		return 0;
	if (r->mounted != ok)
		return bad(w, wn, "fs_mounted", json_object_get(s, "fs_mounted"), ok ?
			   "true (the verdict is OK: the judge mounted it)" :
			   "false (the verdict is " UNMOUNTABLE ")");
	if (!ok && r->lost_bytes != r->expected_bytes)
		return bad(w, wn, "lost_bytes", json_object_get(s, "lost_bytes"),
			   "expected_bytes (an unmountable state loses every byte)");
	if (!ok && r->n[FV_UNREADABLE] != r->files_judged)
		return bad(w, wn, "files\": {\"unreadable", json_object_get(json_object_get(s,
			   "files"), "unreadable"), "files_judged (nothing of an unmountable"
			   " state is readable)");
	if (c->fsync_pos >= 0 && r->pos < c->fsync_pos &&
	    r->durable_bytes > durable_before_cycle()) {
		snprintf(valid, sizeof(valid), "at most %llu at position %d, before the fsync"
			 " returned at %d", (unsigned long long)durable_before_cycle(), r->pos,
			 c->fsync_pos);
		return bad(w, wn, "durable_bytes", json_object_get(s, "durable_bytes"), valid);
	}
	if (!r->fsync_intact && !r->durable_bytes) {
		if (c->fsync_pos >= 0 && r->pos < c->fsync_pos)
			snprintf(valid, sizeof(valid), "true at position %d, before the fsync"
				 " returned at %d, with no fsync'd byte judged (\"durable_bytes\": 0)",
				 r->pos, c->fsync_pos);
		else
			snprintf(valid, sizeof(valid), "true with no fsync'd byte judged"
				 " (\"durable_bytes\": 0)");
		return bad(w, wn, "fsync_intact", json_object_get(s, "fsync_intact"), valid);
	}
	return 0;
}

static bool known_verdict(const char *v)
{
	for (int i = 0; i < VERDICT__COUNT; i++)
		if (!strcmp(v, verdict_name(i)))
			return true;
	return !strcmp(v, CS_REPLAY_FAILED);
}

/* The string field key, one of the names (NULL-terminated) or want. */
static int get_name(json_t *o, const char *key, const char *want, const char **out,
		    char *why, size_t n)
{
	json_t *v = json_object_get(o, key);
	const char *s = json_string_value(v);
	char valid[80];

	if (s && (!want || !strcmp(s, want))) {
		*out = s;
		return 0;
	}
	if (want)
		snprintf(valid, sizeof(valid), "\"%s\"", want);
	return bad(why, n, key, v, want ? valid : "a string");
}

static int judged_fields(json_t *s, struct cs_result *r, char *w, size_t wn)
{
	json_t *files = json_object_get(s, "files");
	long long v, sum = 0;

	if (!json_is_object(files))
		return bad(w, wn, "files", files, "an object of file counts");
	for (int f = 0; f < FV_NOT_JUDGED; f++) {
		char key[40];

		if (cs_json_int(files, cs_fv_keys[f], 0, r->files_judged, false, &v, w, wn)) {
			/* name the nested field as a reader would look it up */
			snprintf(key, sizeof(key), "files\": {\"%s", cs_fv_keys[f]);
			return bad(w, wn, key, json_object_get(files, cs_fv_keys[f]),
				   "a count from 0 to files_judged");
		}
		r->n[f] = v;
		sum += v;
	}
	if (sum > r->files_judged)
		return bad(w, wn, "files", files, "counts that add up to at most files_judged");
	if (!r->judged)
		return must_be_null(s, "lost_bytes", w, wn) ||
		       must_be_null(s, "fs_mounted", w, wn) ||
		       must_be_null(s, "fs_clean", w, wn) ||
		       must_be_null(s, "fsync_intact", w, wn);
	if (cs_json_int(s, "lost_bytes", 0, r->expected_bytes, false, &v, w, wn))
		return -1;
	r->lost_bytes = v;
	return get_bool(s, "fs_mounted", false, &r->mounted, w, wn) ||
	       get_bool(s, "fs_clean", false, &r->fs_clean, w, wn) ||
	       get_bool(s, "fsync_intact", false, &r->fsync_intact, w, wn);
}

static int fields(json_t *s, const struct cs_cycle *cy, int n_cy, int total, int k, int of,
		  struct cs_result *r, char *w, size_t wn)
{
	const struct cs_cycle *c = NULL;
	const char *name = NULL, *str = NULL;
	struct cs_state st;
	long long v;
	bool fio;

	if (get_name(s, "name", NULL, &name, w, wn))
		return -1;
	if (cs_parse(name, &st))
		return bad(w, wn, "name", json_object_get(s, "name"), "a state name");
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->kind = st.kind;
	if (cs_json_int(s, "index", 0, total - 1LL, false, &v, w, wn))
		return -1;
	r->index = v;
	if (!cs_in_shard(r->index, k, of))
		return bad(w, wn, "index", json_object_get(s, "index"), "a state of this shard");
	if (cs_json_int(s, "cycle", 1, 1000, false, &v, w, wn))
		return -1;
	for (int i = 0; i < n_cy; i++)
		if (cy[i].number == v)
			c = &cy[i];
	if (!c)
		return bad(w, wn, "cycle", json_object_get(s, "cycle"), "a cycle of the run");
	r->cycle = v;
	if (cs_json_int(s, "sync", c->sync, c->sync, false, &v, w, wn) ||
	    cs_json_int(s, "position", 0, c->m.n, false, &v, w, wn))
		return -1;
	r->sync = c->sync;
	r->pos = v;
	if (get_name(s, "kind", NULL, &str, w, wn))
		return -1;
	if (!kind_named(str))
		return bad(w, wn, "kind", json_object_get(s, "kind"), "flush, prefix, gap or drop");
	/* the name says both: an edited name is the name's fault */
	if (st.pos != r->pos || strcmp(str, cs_kind_name(st.kind))) {
		char valid[96];

		snprintf(valid, sizeof(valid), "the name of a %s state at position %d (its"
			 " \"kind\" and \"position\")", str, r->pos);
		return bad(w, wn, "name", json_object_get(s, "name"), valid);
	}
	r->phase = cs_phase_of(&c->m, r->pos);
	if (get_name(s, "phase", cs_phase_name(r->phase), &str, w, wn) ||
	    get_name(s, "verdict", NULL, &str, w, wn))
		return -1;
	if (!known_verdict(str))
		return bad(w, wn, "verdict", json_object_get(s, "verdict"), "a verdict name");
	snprintf(r->verdict, sizeof(r->verdict), "%s", str);
	if (get_bool(s, "judged", false, &r->judged, w, wn) ||
	    get_bool(s, "fio_verify", true, &fio, w, wn))
		return -1;
	/* a judge says OK (mounted) or FsUnmountable, and only then judged */
	if (r->judged != (!strcmp(str, "OK") || !strcmp(str, UNMOUNTABLE)))
		return bad(w, wn, "verdict", json_object_get(s, "verdict"), r->judged ?
			   "OK or " UNMOUNTABLE " (\"judged\": true)" :
			   "a failure (\"judged\": false)");
	r->fio_verify = json_is_null(json_object_get(s, "fio_verify")) ? -1 : fio;
	if (cs_json_int(s, "files_judged", 0, PC_MAX_FILES, false, &v, w, wn))
		return -1;
	r->files_judged = v;
	if (cs_json_int(s, "expected_bytes", 0, INT64_MAX, false, &v, w, wn))
		return -1;
	r->expected_bytes = v;
	if (cs_json_int(s, "durable_bytes", 0, r->expected_bytes, false, &v, w, wn))
		return -1;
	r->durable_bytes = v;
	if (cs_json_int(s, "unexpected_entries", 0, INT32_MAX, false, &v, w, wn))
		return -1;
	r->n_unexpected = v;
	return judged_fields(s, r, w, wn) || judge_made(s, c, r, w, wn);
}

int cs_read_state(json_t *s, const struct cs_cycle *cy, int n_cy, int total, int k, int of,
		  struct cs_result *r, char *why, size_t n)
{
	char w[300] = "", *idx;
	const char *name = json_string_value(json_object_get(s, "name"));
	struct cs_state st;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(s)) {
		snprintf(why, n, "a state that is not an object");
		return -1;
	}
	rc = fields(s, cy, n_cy, total, k, of, r, w, sizeof(w));
	if (!rc)
		return 0;
	/* the state as the file names it: only a well-formed name is echoed */
	idx = json_object_get(s, "index") ?
	      json_dumps(json_object_get(s, "index"), JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	snprintf(why, n, "state %s (\"index\": %.24s): %s",
		 name && !cs_parse(name, &st) ? name : "?", idx ? idx : "missing", w);
	free(idx);
	return -1;
}

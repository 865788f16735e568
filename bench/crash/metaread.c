/*
 * meta.json read back as input: its bytes whole and sealed (recdigest.h),
 * every field checked for type and range, and the names the lab acts on
 * (state, profile, filesystem) only ones it knows, so an edited or
 * foreign recording is one line, before anything starts.
 */
#define _GNU_SOURCE
#include "crash.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile.h"
#include "recdigest.h"

/* A string field that fits buf: 0, or -1 with why. */
static int str(json_t *j, const char *key, char *buf, size_t n, char *why, size_t wn)
{
	json_t *v = json_object_get(j, key);
	const char *s = json_string_value(v);

	if (!s || strlen(s) >= n || strlen(s) != json_string_length(v)) {
		snprintf(why, wn, "\"%s\" is %s (valid: a string of at most %zu bytes)", key,
			 !s ? "missing or not a string" : strlen(s) >= n ? "too long" :
			 "a string with a NUL byte", n - 1);
		return -1;
	}
	snprintf(buf, n, "%s", s);
	return 0;
}

/* An integer field from lo to hi: 0, or -1 with why. */
static int num(json_t *j, const char *key, long long lo, long long hi, long long *out,
	       char *why, size_t wn)
{
	json_t *v = json_object_get(j, key);

	if (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi) {
		*out = json_integer_value(v);
		return 0;
	}
	snprintf(why, wn, "\"%s\" is not an integer from %lld to %lld", key, lo, hi);
	return -1;
}

/* meta.json's fields, each checked: 0, or -1 with why. */
static int parse(struct cs_cycle *c, json_t *j, char *why, size_t wn)
{
	json_t *at = json_object_get(j, "log_bytes_at"), *files = json_object_get(j, "files");
	json_t *susp = json_object_get(at, "suspended"), *f;
	long long v, big = (long long)1 << 40, lim = (long long)1 << 50;
	size_t i;

	if (!json_is_object(at) || !json_is_array(files) ||
	    json_array_size(files) > PC_MAX_FILES) {
		snprintf(why, wn, "no \"log_bytes_at\" object or \"files\" list of at most %d",
			 PC_MAX_FILES);
		return -1;
	}
	if (num(j, "sync", 0, 1, &v, why, wn))
		return -1;
	c->sync = v;
	if (num(j, "largest_file_bytes", 1, big, &v, why, wn))
		return -1;
	c->big_bytes = v;
	if (num(j, "seed", 0, 4294967295LL, &v, why, wn))
		return -1;
	c->seed = v;
	if (num(j, "plan_index", 0, 1000000, &v, why, wn))
		return -1;
	c->plan_index = v;
	if (str(j, "state", c->state, sizeof(c->state), why, wn) ||
	    str(j, "date", c->date, sizeof(c->date), why, wn) ||
	    str(j, "kernel_release", c->kernel_release, sizeof(c->kernel_release), why, wn) ||
	    str(j, "qemu_version", c->qemu_version, sizeof(c->qemu_version), why, wn) ||
	    str(j, "knob", c->knob, sizeof(c->knob), why, wn) ||
	    str(j, "profile", c->profile, sizeof(c->profile), why, wn) ||
	    str(j, "filesystem", c->fs, sizeof(c->fs), why, wn))
		return -1;
	/* names the lab acts on: only the ones it knows */
	if (strcmp(c->state, "mem") && strcmp(c->state, "freeze")) {
		snprintf(why, wn, "\"state\" is not mem or freeze");
		return -1;
	}
	if (!disk_profile(c->profile)) {
		snprintf(why, wn, "\"profile\" is not a profile this lab knows");
		return -1;
	}
	if (!fs_kind_find(c->fs)) {
		snprintf(why, wn, "\"filesystem\" is not a filesystem this lab knows");
		return -1;
	}
	if (num(at, "end", 0, lim, &v, why, wn))
		return -1;
	c->at_end = v;
	if (num(at, "start", 0, c->at_end, &v, why, wn))
		return -1;
	c->at_start = v;
	if (num(at, "request", c->at_start, c->at_end, &v, why, wn))
		return -1;
	c->at_request = v;
	c->suspended = !json_is_null(susp);
	if (c->suspended) {
		if (num(at, "suspended", c->at_request, c->at_end, &v, why, wn))
			return -1;
		c->at_suspended = v;
	}
	json_array_foreach(files, i, f) {
		if (num(f, "begin_bytes", 0, c->at_end, &v, why, wn))
			return -1;
		c->file_begin[i] = v;
		if (num(f, "end_bytes", c->file_begin[i], c->at_end, &v, why, wn))
			return -1;
		c->file_end[i] = v;
	}
	c->n_files = json_array_size(files);
	c->replay_matches = json_is_true(json_object_get(j, "replay_matches"));
	return 0;
}

/* meta.json's bytes, read whole: NULL after one line. */
static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t got = -1;

	if (fd < 0 || fstat(fd, &st))
		fprintf(stderr, "%s: %s: %s\n", cli_prog, path, strerror(errno));
	else if (!S_ISREG(st.st_mode) || st.st_size > CS_META_MAX)
		fprintf(stderr, "%s: %s: not a crash-states recording (%s)\n", cli_prog, path,
			S_ISREG(st.st_mode) ? "larger than 1 MiB" : "not a regular file");
	else if (!(buf = malloc(st.st_size + 1)))
		fprintf(stderr, "%s: out of memory\n", cli_prog);
	else if ((got = read(fd, buf, st.st_size + 1)) != st.st_size)
		fprintf(stderr, "%s: %s: %s\n", cli_prog, path,
			got < 0 ? strerror(errno) : "changed while read");
	if (fd >= 0)
		close(fd);
	if (buf && got != st.st_size) {
		free(buf);
		return NULL;
	}
	if (buf) {
		buf[got] = '\0';
		*len = got;
	}
	return buf;
}

/* Reads and checks meta.json: its JSON, or NULL after one line. */
json_t *cs_meta_load(struct cs_cycle *c, const char *path)
{
	size_t len = 0;
	char *raw = slurp(path, &len), why[400] = "";
	const char *schema;
	json_error_t err;
	json_t *j;

	if (!raw)
		return NULL;
	j = json_loadb(raw, len, JSON_REJECT_DUPLICATES, &err);
	schema = json_string_value(json_object_get(j, "schema"));
	if (!j)
		snprintf(why, sizeof(why), "%s (line %d)", err.text, err.line);
	else if (schema && !strcmp(schema, CS_META_SCHEMA_V1))
		snprintf(why, sizeof(why), "the recording predates whole-file digests, so it"
			 " cannot prove it is whole: record it again");
	else if (!schema || strcmp(schema, CS_META_SCHEMA))
		snprintf(why, sizeof(why), "not a crash-states recording (schema %s)",
			 CS_META_SCHEMA);
	else if (!cs_meta_unseal(raw, len, why, sizeof(why)))
		parse(c, j, why, sizeof(why));
	free(raw);
	if (why[0]) {
		fprintf(stderr, "%s: %s: %s\n", cli_prog, path, why);
		json_decref(j);
		return NULL;
	}
	return j;
}


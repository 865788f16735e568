/*
 * t_rec_input: crash-states input that no honest run makes (issue 33,
 * items 8, 9 and 10, and item 4 for crash-states' own paths).
 *
 * Guards: replay --image onto an existing file (crash.json) is one line,
 * exit 2, the file unchanged; a recording naming the filesystem
 * "../../etc" is bad input (exit 2, one line) for judge and replay, sealed
 * or edited; a write.log that is a directory says so; merge refuses, with
 * one line naming the field, a state no judge makes: fs_mounted false with
 * verdict OK, true with FsUnmountable, an fsync loss before the fsync
 * returned with no fsync'd byte judged, a judged state without a judge's
 * verdict, an edited name (named "name", not "position"), and a name and
 * position edited together (out of log order); the honest shard is not
 * refused, also from an --out with glob characters; an --out, --rec or
 * --image longer than crash-states takes is one line, exit 2, nothing made;
 * a newline in a shard's provenance never forges a row of the table.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash.h"
#include "fakerun.h"
#include "progrun.h"
#include "recfix.h"
#include "tap.h"

#define SS 512

static char dir[400], rec[500], kernel[500];

static void recording(const char *fs)
{
	struct cs_cycle c;

	recfix_cycle(&c, rec, 1);
	snprintf(c.fs, sizeof(c.fs), "%s", fs);
	recfix_log(&c, "WWFWWWWWWWWWFWWFWWWF");
	recfix_seal(&c, false);
}

static bool exists(const char *p)
{
	return !access(p, F_OK);
}

static const char *text_of(const char *p)
{
	static char buf[256];
	FILE *f = fopen(p, "r");

	buf[0] = '\0';
	if (f) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
		fclose(f);
	}
	return buf;
}

static void existing_image(void)
{
	char json[600], *args[] = { "replay", "--rec", rec, "--cycle", "1", "--name", "P6",
				    "--image", json, NULL };
	FILE *f;
	int rc;

	snprintf(json, sizeof(json), "%s/crash.json", dir);
	f = fopen(json, "w");
	if (f) {
		fputs("{\"earlier\": true}\n", f);
		fclose(f);
	}
	rc = progrun("crash-states", args, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, "exists") &&
	       !strcmp(text_of(json), "{\"earlier\": true}\n"),
	       "replay --image crash.json (there): exit %d, crash.json %s: %.160s", rc,
	       strcmp(text_of(json), "{\"earlier\": true}\n") ? "OVERWRITTEN" : "kept",
	       progrun_err);
}

/* "../../etc" as the filesystem: sealed by the recorder, or edited in. */
static void bad_fs(void)
{
	char out[600], image[600];
	char *judge[] = { "judge", "--out", out, "--rec", rec, "--kernel", kernel,
			  "--initrd", kernel, "--tools-disk", kernel, NULL };
	char *replay[] = { "replay", "--rec", rec, "--cycle", "1", "--name", "P6", "--image",
			   image, NULL };

	snprintf(out, sizeof(out), "%s/fs-out", dir);
	snprintf(image, sizeof(image), "%s/fs.img", dir);
	mkdir(out, 0755);
	for (int edited = 0; edited < 2; edited++) {
		int rc;

		recording(edited ? "ext4" : "../../etc");
		if (edited)
			recfix_edit_meta(rec, "\"ext4\"", "\"../../etc\"");
		rc = progrun("crash-states", judge, 0, 0);
		tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 &&
		       strstr(progrun_err, edited ? "SHA-256" : "\"filesystem\""),
		       "filesystem ../../etc (%s): judge exit %d: %.200s",
		       edited ? "edited" : "sealed", rc, progrun_err);
		rc = progrun("crash-states", replay, 0, 0);
		tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && !exists(image),
		       "filesystem ../../etc (%s): replay exit %d: %.200s",
		       edited ? "edited" : "sealed", rc, progrun_err);
	}
	recording("ext4");
}

static void log_dir(void)
{
	char p[600], why[300] = "";
	struct lw_log l;
	int rc;

	snprintf(p, sizeof(p), "%s/dir.log", dir);
	mkdir(p, 0755);
	rc = lw_open(&l, p, SS, why, sizeof(why));
	if (!rc)
		lw_close(&l);
	tap_ok(rc && strstr(why, "not a regular file (a directory)") && !strstr(why, "entries"),
	       "a write.log that is a directory: %d: %s", rc, why);
	rmdir(p);
}

struct edit {
	const char *what;
	const char *set[3][2];	/* field, JSON value; "name+1": the next P name */
	const char *says, *not_says;
};

/* The first judged P state before the fsync returned, no fsync'd bytes. */
static json_t *victim(json_t *sh)
{
	long long fs = json_integer_value(json_object_get(json_array_get(
			json_object_get(sh, "cycles"), 0), "fsync_returned"));
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(sh, "states"), i, s)
		if (!strcmp(json_string_value(json_object_get(s, "kind")), "prefix") &&
		    json_integer_value(json_object_get(s, "position")) < fs &&
		    !json_integer_value(json_object_get(s, "durable_bytes")))
			return s;
	return NULL;
}

/* The honest shard, to edit for merge_edited(): its JSON. */
static json_t *honest_shard(const char *honest)
{
	char src[700];

	snprintf(src, sizeof(src), "%s/crash-shard-1-of-1.json", honest);
	return json_load_file(src, 0, NULL);
}

/* sh (taken) as the only shard of dir/sub, merged there: merge's exit
 * status. */
static int merge_edited(json_t *sh, const char *sub)
{
	char out[600], dst[700];
	char *args[] = { "merge", "--out", out, NULL };
	int rc;

	snprintf(out, sizeof(out), "%s/%s", dir, sub);
	snprintf(dst, sizeof(dst), "%s/crash-shard-1-of-1.json", out);
	mkdir(out, 0755);
	json_dump_file(sh, dst, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(sh);
	rc = progrun("crash-states", args, 0, 0);
	unlink(dst);
	return rc;
}

static void edited(const char *honest, const struct edit *e)
{
	char name[32];
	json_t *sh = honest_shard(honest), *s = victim(sh);
	int rc;

	if (!s) {
		tap_ok(0, "%s: no state to edit", e->what);
		json_decref(sh);
		return;
	}
	for (int k = 0; k < 3 && e->set[k][0]; k++) {
		const char *v = e->set[k][1];

		if (!strcmp(v, "name+1")) {
			snprintf(name, sizeof(name), "P%lld",
				 json_integer_value(json_object_get(s, "position")) + 1);
			json_object_set_new(s, e->set[k][0], json_string(name));
		} else if (!strcmp(v, "pos+1")) {
			json_object_set_new(s, e->set[k][0], json_integer(json_integer_value(
					    json_object_get(s, "position")) + 1));
		} else {
			json_object_set_new(s, e->set[k][0], json_loads(v, JSON_DECODE_ANY, NULL));
		}
	}
	rc = merge_edited(sh, "edit");
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, e->says) &&
	       (!e->not_says || !strstr(progrun_err, e->not_says)),
	       "merge, %s: exit %d: %.260s", e->what, rc, progrun_err);
}

/* A shard's provenance with a newline in the kernel's name: the table
 * shows it on its own line, the newline as '?', never a forged row. */
static void hostile_provenance(const char *honest)
{
	static const char rel[] = "6.1-`touch x`$(id)\nsync 1 all 99 <script>,\"q\"\tT";
	json_t *sh = honest_shard(honest);
	int rc;

	json_object_set_new(json_object_get(sh, "provenance"), "kernel_release",
			    json_string(rel));
	rc = merge_edited(sh, "prov");
	tap_ok(rc != 2 && strstr(progrun_out, "kernel    6.1-`touch x`$(id)?sync 1 all 99"
				 " <script>,\"q\"?T, knob") &&
	       !strstr(progrun_out, "\nsync 1 all"),
	       "a newline in the provenance's kernel: exit %d, table line: %.120s", rc,
	       strstr(progrun_out, "kernel ") ? strstr(progrun_out, "kernel ") : progrun_out);
}

static void shards(void)
{
	static const struct edit edits[] = {
		{ "fs_mounted false with verdict OK", { { "fs_mounted", "false" } },
		  "\"fs_mounted\": false is not true", NULL },
		{ "FsUnmountable but mounted", { { "verdict", "\"FsUnmountable\"" } },
		  "\"fs_mounted\": true is not false", NULL },
		{ "fsync_intact false before the fsync returned", { { "fsync_intact", "false" } },
		  "\"fsync_intact\": false is not true at position", NULL },
		{ "judged with a failure verdict", { { "verdict", "\"QemuDied\"" } },
		  "\"verdict\": \"QemuDied\" is not OK or FsUnmountable", NULL },
		{ "the name edited", { { "name", "name+1" } }, "\"name\": \"P", "\"position\":" },
		{ "name and position edited together",
		  { { "name", "name+1" }, { "position", "pos+1" } }, "log order", NULL },
	};
	struct cs_backend be = { .batch = recfix_intact_batch };
	char honest[600], glob_out[600], path[1000], cmd[2000];
	char *merge_glob[] = { "merge", "--out", glob_out, NULL };
	struct cs_opts o;
	int rc;

	snprintf(honest, sizeof(honest), "%s/honest", dir);
	mkdir(honest, 0755);
	recfix_judge_opts(&o, kernel, honest, rec);
	o.model.prefixes = -1;
	fakerun_stderr_begin();
	rc = cs_judge(&o, &be, path, sizeof(path));
	fakerun_stderr_end();
	setenv("GNUPLOT", "true", 1);
	{
		char *args[] = { "merge", "--out", honest, NULL };

		rc = progrun("crash-states", args, 0, 0);
		tap_ok(rc != 2 && !strstr(progrun_err, "merge:"),
		       "the honest shard is not refused: exit %d: %.160s", rc, progrun_err);
	}
	for (size_t k = 0; k < sizeof(edits) / sizeof(edits[0]); k++)
		edited(honest, &edits[k]);
	hostile_provenance(honest);
	/* --out is a name: "[", "*" and "?" are not a pattern */
	snprintf(glob_out, sizeof(glob_out), "%s/g[1]*?", dir);
	mkdir(glob_out, 0755);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/'", path, glob_out);
	if (system(cmd))
		tap_diag("cannot copy the shard");
	rc = progrun("crash-states", merge_glob, 0, 0);
	tap_ok(rc != 2 && !strstr(progrun_err, "merge:"),
	       "merge --out 'g[1]*?' finds its shard: exit %d: %.160s", rc, progrun_err);
	unsetenv("GNUPLOT");
}

static void long_paths(void)
{
	char lng[1200], made[1300];
	char *out[] = { "merge", "--out", lng, NULL };
	char *recs[] = { "judge", "--rec", lng, "--out", dir, "--kernel", kernel, "--initrd",
			 kernel, "--tools-disk", kernel, NULL };
	char *image[] = { "replay", "--rec", rec, "--cycle", "1", "--name", "P6", "--image", lng,
			  NULL };
	char *const *cases[] = { out, recs, image };
	const char *opt[] = { "--out", "--rec", "--image" };

	/* 1,113 bytes, as the issue's --out */
	snprintf(lng, sizeof(lng), "%s/", dir);
	while (strlen(lng) < 1112)
		strcat(lng, "d");
	strcat(lng, "x");
	snprintf(made, sizeof(made), "%.*s", (int)strlen(dir) + 2, lng);
	for (int k = 0; k < 3; k++) {
		int rc = progrun("crash-states", cases[k], 0, 0);
		char want[80];

		snprintf(want, sizeof(want), "%s: the path is 1113 bytes", opt[k]);
		tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, want) &&
		       fakerun_count(dir, "dd") == 0,
		       "%s of 1113 bytes: exit %d, %d made: %.160s", opt[k], rc,
		       fakerun_count(dir, "dd"), progrun_err);
	}
}

int main(int argc, char **argv)
{
	(void)argc;
	progrun_init(argv[0]);
	snprintf(dir, sizeof(dir), "%s", fakerun_dir());
	snprintf(rec, sizeof(rec), "%s/rec", dir);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
	setenv("TMPDIR", dir, 1);
	recording("ext4");
	existing_image();
	bad_fs();
	log_dir();
	shards();
	long_paths();
	fakerun_done();
	return tap_done();
}

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
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crash.h"
#include "fakerun.h"
#include "progrun.h"
#include "tap.h"

#define SS 512

static char dir[400], rec[500], kernel[500];

static void recording(const char *fs)
{
	static const char spec[] = "WWFWWWWWWWWWFWWFWWWF";
	struct cs_cycle c = { .number = 1, .sync = 1, .big_bytes = 1 << 20, .seed = 4,
			      .suspended = true, .n_files = 9, .replay_matches = true };
	struct lw_writer w;
	unsigned char buf[SS];
	char p[900];
	int fd;

	snprintf(c.dir, sizeof(c.dir), "%s/cycle-1", rec);
	mkdir(rec, 0755);
	mkdir(c.dir, 0755);
	snprintf(c.state, sizeof(c.state), "mem");
	snprintf(c.profile, sizeof(c.profile), "emmc");
	snprintf(c.fs, sizeof(c.fs), "%s", fs);
	snprintf(p, sizeof(p), "%s/write.log", c.dir);
	lw_writer_open(&w, p, SS);
	for (int i = 0; spec[i]; i++) {
		memset(buf, 'A' + i, sizeof(buf));
		lw_writer_add(&w, spec[i] == 'F' ? 0 : i, spec[i] == 'F' ? 0 : 1,
			      spec[i] == 'F' ? LW_FLUSH : 0, buf);
		if (i == 1)
			c.at_start = w.next * SS;
		if (i >= 2 && i - 2 < 9)
			c.file_begin[i - 2] = c.file_end[i - 2] = w.next * SS;
		if (i == 12)
			c.at_request = w.next * SS;
	}
	lw_writer_super(&w);
	lw_writer_close(&w);
	c.at_suspended = c.at_end = w.next * SS;
	snprintf(p, sizeof(p), "%s/base.img", c.dir);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, 64 * SS))
		tap_diag("cannot make %s", p);
	close(fd);
	if (cs_meta_write(&c))
		tap_diag("cs_meta_write failed");
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
	char out[600], image[600], meta[700], buf[8192], *at;
	char *judge[] = { "judge", "--out", out, "--rec", rec, "--kernel", kernel,
			  "--initrd", kernel, "--tools-disk", kernel, NULL };
	char *replay[] = { "replay", "--rec", rec, "--cycle", "1", "--name", "P6", "--image",
			   image, NULL };
	FILE *f;
	size_t n;

	snprintf(out, sizeof(out), "%s/fs-out", dir);
	snprintf(image, sizeof(image), "%s/fs.img", dir);
	snprintf(meta, sizeof(meta), "%s/cycle-1/meta.json", rec);
	mkdir(out, 0755);
	for (int edited = 0; edited < 2; edited++) {
		int rc;

		recording(edited ? "ext4" : "../../etc");
		if (edited && (f = fopen(meta, "r"))) {
			n = fread(buf, 1, sizeof(buf) - 1, f);
			buf[n] = '\0';
			fclose(f);
			at = strstr(buf, "\"ext4\"");
			if (at && (f = fopen(meta, "w"))) {
				fprintf(f, "%.*s\"../../etc\"%s", (int)(at - buf), buf, at + 6);
				fclose(f);
			}
		}
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

static void toy_batch(void *ctx, struct cs_job *jobs, int n)
{
	(void)ctx;
	for (int i = 0; i < n; i++) {
		struct cs_result *r = jobs[i].res;

		r->judged = r->mounted = r->fs_clean = r->fsync_intact = true;
		snprintf(r->verdict, sizeof(r->verdict), "OK");
		r->files_judged = jobs[i].rec.n_files;
		r->expected_bytes = jobs[i].rec.dataset_bytes;
		r->n[FV_INTACT] = r->files_judged;
		for (int f = 0; f < jobs[i].rec.n_files; f++)
			r->durable_bytes += jobs[i].rec.files[f].durable;
	}
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

static void edited(const char *honest, const struct edit *e)
{
	char src[700], out[600], dst[700], name[32];
	char *args[] = { "merge", "--out", out, NULL };
	json_t *sh, *s;
	int rc;

	snprintf(src, sizeof(src), "%s/crash-shard-1-of-1.json", honest);
	snprintf(out, sizeof(out), "%s/edit", dir);
	snprintf(dst, sizeof(dst), "%s/crash-shard-1-of-1.json", out);
	mkdir(out, 0755);
	sh = json_load_file(src, 0, NULL);
	s = victim(sh);
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
	json_dump_file(sh, dst, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(sh);
	rc = progrun("crash-states", args, 0, 0);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && strstr(progrun_err, e->says) &&
	       (!e->not_says || !strstr(progrun_err, e->not_says)),
	       "merge, %s: exit %d: %.260s", e->what, rc, progrun_err);
	unlink(dst);
}

/* A shard's provenance with a newline in the kernel's name: the table
 * shows it on its own line, the newline as '?', never a forged row. */
static void hostile_provenance(const char *honest)
{
	static const char rel[] = "6.1-`touch x`$(id)\nsync 1 all 99 <script>,\"q\"\tT";
	char src[700], out[600], dst[700];
	char *args[] = { "merge", "--out", out, NULL };
	json_t *sh;
	int rc;

	snprintf(src, sizeof(src), "%s/crash-shard-1-of-1.json", honest);
	snprintf(out, sizeof(out), "%s/prov", dir);
	snprintf(dst, sizeof(dst), "%s/crash-shard-1-of-1.json", out);
	mkdir(out, 0755);
	sh = json_load_file(src, 0, NULL);
	json_object_set_new(json_object_get(sh, "provenance"), "kernel_release",
			    json_string(rel));
	json_dump_file(sh, dst, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(sh);
	rc = progrun("crash-states", args, 0, 0);
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
	struct cs_backend be = { .batch = toy_batch };
	char honest[600], glob_out[600], path[1000], cmd[2000];
	char *argv[] = { "crash-states", "judge", NULL };
	char *merge_glob[] = { "merge", "--out", glob_out, NULL };
	struct cs_opts o;
	int rc;

	snprintf(honest, sizeof(honest), "%s/honest", dir);
	mkdir(honest, 0755);
	setenv("KERNEL", kernel, 1);
	setenv("INITRD", kernel, 1);
	cs_parse_args(2, argv, &o);
	o.hx.out_dir = honest;
	o.hx.quiet = true;
	o.rec_dir = rec;
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

/*
 * t_msg_pcreport: facts in power-cut's report (issue 33, item 6).
 *
 * Guards: the data disk's cache mode in the table and the JSON is the one
 * the boot gets (hx_config()'s drive), not a literal "none": emmc through
 * nbdkit is "writeback", --drive-model off is "none"; with --keep-logs
 * each run's logs go to a folder of its own that the report names, so a
 * later run's report never sits beside an earlier run's logs as its own;
 * a data image that mkfs cannot make (a full disk) carries mkfs's own
 * words into the harness's reason and onto stderr.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "fakerun.h"
#include "pcreport.h"
#include "powercut.h"
#include "progrun.h"
#include "tap.h"

static char kernel[600];

/* A string of powercut.json's provenance. */
static const char *prov(const char *out, const char *key, char *buf, size_t n)
{
	char path[700];
	json_t *j;

	snprintf(path, sizeof(path), "%s/powercut.json", out);
	j = json_load_file(path, 0, NULL);
	snprintf(buf, n, "%s", json_string_value(json_object_get(json_object_get(j,
		 "provenance"), key)) ?: "");
	json_decref(j);
	return buf;
}

/* The table's "qemu" line and the QEMU command's data drive for args. */
static void cache_mode(const char *profile, const char *model, const char *want,
		       const char *drive_has)
{
	char *argv[] = { "power-cut", "--kernel", kernel, "--initrd", kernel, "--profile",
			 (char *)profile, "--drive-model", (char *)model, NULL };
	struct pc_opts o;
	struct pc_result run = { .o = &o, .date = "today" };
	struct pc_view v = { .run = &run };
	char *table = NULL, cmd[4096], line[200], json[700], mode[64];
	size_t len = 0;
	struct hx h;
	FILE *f;

	snprintf(json, sizeof(json), "%s/powercut.json", fakerun_dir());
	optind = 1;
	if (pc_parse_args(9, argv, &o)) {
		tap_ok(false, "%s %s: options refused", profile, model);
		return;
	}
	f = open_memstream(&table, &len);
	pc_report_table(f, &v);
	fclose(f);
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(strstr(table, "qemu "), "\n"),
		 strstr(table, "qemu "));
	hx_init(&h, &o.hx);
	snprintf(h.img, sizeof(h.img), "%s/data.img", fakerun_dir());
	hx_format_command(&h, true, cmd, sizeof(cmd));
	o.hx.out_dir = fakerun_dir();
	pc_report_json(json, &v);
	prov(fakerun_dir(), "disk_cache_mode", mode, sizeof(mode));
	tap_ok(strstr(line, want) && strstr(cmd, drive_has) && !strcmp(mode, strchr(want, '=') + 1),
	       "--profile %s --drive-model %s: table '%s', JSON '%s', QEMU's drive has '%s': %d",
	       profile, model, line, mode, drive_has, !!strstr(cmd, drive_has));
	unlink(json);
	free(table);
}

static int count_runs(const char *out)
{
	char path[700];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/logs", out);
	d = opendir(path);
	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, "run-", 4);
	if (d)
		closedir(d);
	return n;
}

static void kept_logs(void)
{
	char out[700], a[200], b[200], mode[64], serial[1200];
	char *args[] = { "--kernel", kernel, "--initrd", kernel, "--tools-disk", kernel,
			 "--out", out, "--cycles", "1", "--size", "1M", "--quiet",
			 "--drive-model", "off", "--keep-logs", NULL };
	int r1, r2;

	snprintf(out, sizeof(out), "%s/keep", fakerun_dir());
	fakerun_scenario(NULL);
	r1 = progrun("power-cut", args, 0, 0);
	prov(out, "logs_dir", a, sizeof(a));
	r2 = progrun("power-cut", args, 0, 0);
	prov(out, "logs_dir", b, sizeof(b));
	prov(out, "disk_cache_mode", mode, sizeof(mode));
	snprintf(serial, sizeof(serial), "%s/%s/cut-1-before/serial.log", out, b);
	tap_ok(r1 == 0 && r2 == 0 && a[0] && b[0] && strcmp(a, b) && count_runs(out) == 2 &&
	       !access(serial, F_OK),
	       "two --keep-logs runs: rc %d %d, logs '%s' then '%s' (%d run folders), the second's serial.log there: %d",
	       r1, r2, a, b, count_runs(out), !access(serial, F_OK));
	tap_ok(!strcmp(mode, "none"), "--drive-model off: JSON disk_cache_mode '%s'", mode);
	tap_ok(strstr(progrun_out, b) != NULL, "the table names the run's logs: %.*s",
	       (int)strcspn(strstr(progrun_out, "logs ") ?: "-", "\n"),
	       strstr(progrun_out, "logs ") ?: "-");
}

/* mkfs fails as on a full disk: its words reach the reason and stderr */
static void mkfs_full(void)
{
	char bin[700], p[800], path[4096];
	struct hx_opts o;
	struct hx h;
	FILE *f;
	int r;

	snprintf(bin, sizeof(bin), "%s/bin", fakerun_dir());
	mkdir(bin, 0755);
	snprintf(p, sizeof(p), "%s/mkfs.ext4", bin);
	f = fopen(p, "w");
	fputs("#!/bin/sh\necho 'mkfs.ext4: No space left on device while writing out and"
	      " closing file system' >&2\nexit 1\n", f);
	fclose(f);
	chmod(p, 0755);
	snprintf(path, sizeof(path), "%s:%s", bin, getenv("PATH"));
	setenv("PATH", path, 1);
	fakerun_opts(&o);
	hx_init(&h, &o);
	snprintf(p, sizeof(p), "%s/data.img", fakerun_dir());
	fakerun_stderr_begin();
	r = hx_image(&h, p, 1 << 20);
	fakerun_stderr_end();
	hx_image_drop(&h);
	tap_ok(r && strstr(h.img_why, "No space left on device"), "hx_image on a full disk: %s",
	       h.img_why);
	r = progrun("power-cut", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		    "--tools-disk", kernel, "--out", (char *)fakerun_dir(), "--cycles", "1",
		    "--size", "1M", "--quiet", "--drive-model", "off", NULL }, 0, 0);
	tap_ok(strstr(progrun_err, "No space left on device"),
	       "power-cut on a full disk: rc %d, mkfs's words on stderr: %.*s", r,
	       (int)strcspn(strstr(progrun_err, "mkfs") ?: "-", "\n"),
	       strstr(progrun_err, "mkfs") ?: "-");
}

int main(int argc, char **argv)
{
	const char *dir = fakerun_dir();

	(void)argc;
	progrun_init(argv[0]);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
	setenv("TMPDIR", dir, 1);
	cache_mode("emmc", "auto", "cache=writeback", "cache.writeback=on");
	cache_mode("emmc", "off", "cache=none", ",cache=none");
	cache_mode("sd", "auto", "cache=writethrough", "cache.writeback=off");
	kept_logs();
	mkfs_full();
	fakerun_done();
	return tap_done();
}

/*
 * t_out_sweep: the lab deletes only what it provably made (issue 33,
 * item 1).
 *
 * Guards: user files named "*.tmp.*", a file named like the lab's own
 * temporaries but without an owner record, a user's file named like an
 * owner record, and a record of a dead run that names another file all
 * survive a run, and a refused run (--mem larger than the host) touches
 * nothing, not even a lock file; a dead run's own image and staging
 * directory, each with its record, are swept; cleanup.h removes a file
 * whose path is longer than any fixed buffer, not a cut name.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cliopt.h"
#include "fakerun.h"
#include "progrun.h"
#include "tap.h"

static char kernel[600], out[600];

/* a user's files, and look-alikes of the lab's that no record owns */
static const char *const keep[] = {
	"thesis.tmp.docx", "data.tmp.2026", "notes.txt", "latency.json.tmp.AbCdEf",
	".latency.json.slab-tmp.1.0", ".slab-set.1.0", ".slab-owner.notes.txt",
	"report.tmp.html", ".slab-owner.report.tmp.html", NULL
};

static bool exists(const char *name)
{
	char p[1200];

	snprintf(p, sizeof(p), "%s/%s", out, name);
	return !access(p, F_OK);
}

static void put(const char *name, const char *text)
{
	char p[1200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", out, name);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

static void plant(void)
{
	for (int i = 0; keep[i]; i++)
		put(keep[i], "the user's\n");
	/* an owner record's shape, but no magic line: not the lab's */
	put(".slab-owner.notes.txt", "999999999 1\ncovers notes.txt\n");
	/* a dead run's record that names another file than its own name */
	put(".slab-owner.report.tmp.html", "suspend-lab owner 999999999 1\ncovers other\n");
}

/* How many of keep[] are gone; the first one in *first. */
static int lost(const char **first)
{
	int n = 0;

	*first = "none";
	for (int i = 0; keep[i]; i++)
		if (!exists(keep[i]) && n++ == 0)
			*first = keep[i];
	return n;
}

#define LAB(...) (char *[]){ "--kernel", kernel, "--initrd", kernel, "--tools-disk", kernel, \
			      "--out", out, "--state", "mem", "--sync", "1", "--cycles", "1", \
			      "--quiet", __VA_ARGS__, NULL }

static void refused_run(void)
{
	const char *first;
	int rc, n;

	if (cli_mem_available_mib() >= 65536) {
		tap_skip("the host has 64 GiB free", "a refused run touches nothing");
		return;
	}
	rc = progrun("suspend-lab", LAB("--mem", "65536", "--dirty", "0"), 0, 0);
	n = lost(&first);
	tap_ok(rc == 2 && progrun_lines(progrun_err) == 1 && n == 0 &&
	       !exists(".suspend-lab.lock") && strstr(progrun_err, "--mem"),
	       "--mem 65536 --dirty 0: exit %d, %d line(s), %d user file(s) lost (first %s), lock file %d: %.160s",
	       rc, progrun_lines(progrun_err), n, first, exists(".suspend-lab.lock"), progrun_err);
}

static void normal_run(void)
{
	const char *first;
	char p[1200];
	int rc, n;

	/* what a killed run left: its image and its staging, with records */
	put("data.img", "a dead run's image");
	put(".slab-owner.data.img", "suspend-lab owner 999999999 1\ncovers data.img\n");
	snprintf(p, sizeof(p), "%s/.slab-set.999999999.0", out);
	mkdir(p, 0700);
	put(".slab-set.999999999.0/latency.json", "half a set");
	put(".slab-owner..slab-set.999999999.0",
	    "suspend-lab owner 999999999 1\ncovers .slab-set.999999999.0\n");
	rc = progrun("suspend-lab", LAB("--dirty", "0"), 0, 0);
	n = lost(&first);
	tap_ok(rc == 0 && n == 0 && exists("latency.json"),
	       "a run: exit %d, %d user file(s) lost (first %s), latency.json %d",
	       rc, n, first, exists("latency.json"));
	tap_ok(!exists("data.img") && !exists(".slab-owner.data.img") &&
	       !exists(".slab-set.999999999.0") && !exists(".slab-owner..slab-set.999999999.0"),
	       "the dead run's own swept: image %d, its record %d, staging %d, its record %d",
	       exists("data.img"), exists(".slab-owner.data.img"), exists(".slab-set.999999999.0"),
	       exists(".slab-owner..slab-set.999999999.0"));
	tap_ok(fakerun_count(out, ".slab-") == 3,
	       "no temporary or record of this run left (%d .slab-* entries, the user's 3)",
	       fakerun_count(out, ".slab-"));
}

static void long_cleanup(void)
{
	char p[1200], leaf[1400];
	size_t len;
	FILE *f;

	len = (size_t)snprintf(p, sizeof(p), "%s", fakerun_dir());
	while (len < 900) {
		len += (size_t)snprintf(p + len, sizeof(p) - len, "/%0200d", 0);
		mkdir(p, 0755);
	}
	snprintf(leaf, sizeof(leaf), "%s/leaf", p);
	f = fopen(leaf, "w");
	if (f)
		fclose(f);
	cleanup_file(leaf);
	cleanup_run();
	tap_ok(access(leaf, F_OK) != 0, "cleanup of a %zu-character path: the file %s",
	       strlen(leaf), access(leaf, F_OK) ? "is gone" : "is still there");
}

int main(int argc, char **argv)
{
	(void)argc;
	progrun_init(argv[0]);
	setenv("TMPDIR", fakerun_dir(), 1);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", fakerun_dir());
	snprintf(out, sizeof(out), "%s/out", fakerun_dir());
	mkdir(out, 0755);
	plant();
	refused_run();
	normal_run();
	long_cleanup();
	fakerun_done();
	return tap_done();
}

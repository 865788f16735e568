/*
 * t_inj_run: hostile names through the programs (issue hostile-v3, item 3),
 * against fakeqemu.
 *
 * Guards: a guest whose kernel release carries backquotes, $(), quotes,
 * <script> and bytes that are not UTF-8, run by suspend-lab into an --out
 * that carries backquotes, $(), quotes, a tab, a newline, <script>, a
 * comma and a byte that is not UTF-8: every result is written, no canary
 * the names try to touch exists, the SVG, HTML and CSV are valid UTF-8
 * with the release shown as text, the HTML holds no markup from it, the
 * JSON keeps the release (bad bytes as \xNN), and a TMPDIR of the same
 * kind still gets its plot.  power-cut with that guest and --out writes
 * its JSON and CSV; with --tamper image, whose debugfs once ran through a
 * shell, an --out that closes a quote runs nothing.  crash-states' report
 * (crash.json, .csv, .svg) is written into such a folder, running nothing.
 * (The JSON checks need labjson.c and pcreport.c to write outside text
 * through json_text().)
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "crash.h"
#include "escape.h"
#include "fakerun.h"
#include "progrun.h"
#include "states.h"
#include "slurp.h"
#include "tap.h"

static const char *const canaries[] = {
	"canary-r1", "canary-r2", "canary-o1", "canary-o2", "canary-t1", "canary-c1",
	"canary-p1",
};

/* The guest's release: no space or comma (the protocol's and $FAKEQEMU's
 * separators), under 128 bytes. */
static const char release[] =
	"6.1.0-`touch${IFS}canary-r1`$(touch${IFS}canary-r2)'\"<script>\xff\xfe";
static const char out_name[] = "o`touch canary-o1`$(touch canary-o2)'q\"\tx\ny<script>,\xff";
static char kernel[600];

static int canaries_left(void)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(canaries) / sizeof(canaries[0]); i++)
		n += !access(canaries[i], F_OK);
	return n;
}

/* dir/name as text: NULL when absent or holding a NUL */
static char *slurp(const char *dir, const char *name)
{
	size_t n;
	char *buf = test_slurp_in(dir, name, &n);

	return buf && strlen(buf) == n ? buf : (free(buf), NULL);
}

/* Valid UTF-8 text, or why not. */
static const char *text_state(const char *s)
{
	return !s ? "missing" : utf8_valid(s) ? "valid UTF-8" : "NOT UTF-8";
}

static void lab_run(void)
{
	static const char *const files[] = { "latency.json", "latency.csv", "latency.svg",
					     "latency.png", "report.html" };
	char *svg, *html, *csv, *json, *clean = text_utf8(release), fq[300];
	const char *got = NULL;
	json_t *j;
	int rc, missing = 0;

	snprintf(fq, sizeof(fq), "release=%s", release);
	fakerun_scenario(fq);
	rc = progrun("suspend-lab", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		     "--tools-disk", kernel, "--out", (char *)out_name, "--state", "mem",
		     "--dirty", "0", "--sync", "1", "--cycles", "1", "--quiet", NULL }, 0, 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p;

		if (asprintf(&p, "%s/%s", out_name, files[i]) >= 0) {
			missing += access(p, F_OK) != 0;
			free(p);
		}
	}
	tap_ok(rc == 0 && !missing && !canaries_left(),
	       "suspend-lab, hostile release and --out: exit %d, %d of 5 results missing,"
	       " %d canaries created", rc, missing, canaries_left());
	svg = slurp(out_name, "latency.svg");
	html = slurp(out_name, "report.html");
	csv = slurp(out_name, "latency.csv");
	tap_ok(svg && utf8_valid(svg) && strstr(svg, "6.1.0-`touch${IFS}canary-r1`$(touch${IFS}"
	       "canary-r2)'") && strstr(svg, "\\xFF\\xFE"),
	       "latency.svg: %s, the release shown as text: %s", text_state(svg),
	       svg && strstr(svg, "canary-r2)'") ? "yes" : "no");
	tap_ok(html && utf8_valid(html) && !strstr(html, "<script") &&
	       strstr(html, "6.1.0-`touch${IFS}canary-r1`$(touch${IFS}canary-r2)&#39;&quot;"
		      "&lt;script&gt;\\xFF\\xFE"),
	       "report.html: %s, markup from the release: %s", text_state(html),
	       html && strstr(html, "<script") ? "PRESENT" : "none");
	tap_ok(csv && utf8_valid(csv), "latency.csv: %s", text_state(csv));
	json = slurp(out_name, "latency.json");
	j = json ? json_loads(json, 0, NULL) : NULL;
	free(json);
	got = json_string_value(json_object_get(json_object_get(j, "provenance"),
						"kernel_release"));
	tap_ok(got && clean && !strcmp(got, clean), "latency.json's kernel_release: %.60s",
	       got ? got : "(null)");
	json_decref(j);
	free(svg);
	free(html);
	free(csv);
	free(clean);
}

/* TMPDIR holds gnuplot's input: its name is data too. */
static void tmpdir_run(void)
{
	static const char tmp[] = "t`touch canary-t1`'q\"\tz";
	char abs[PATH_MAX + 64], *svg;
	int rc;

	snprintf(abs, sizeof(abs), "%s/%s", fakerun_dir(), tmp);
	mkdir(abs, 0755);
	setenv("TMPDIR", abs, 1);
	fakerun_scenario(NULL);
	rc = progrun("suspend-lab", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		     "--tools-disk", kernel, "--out", "out-t", "--state", "mem",
		     "--dirty", "0", "--sync", "1", "--cycles", "1", "--quiet", NULL }, 0, 0);
	setenv("TMPDIR", fakerun_dir(), 1);
	svg = slurp("out-t", "latency.svg");
	tap_ok(rc == 0 && svg && !canaries_left(),
	       "a hostile TMPDIR: exit %d, latency.svg %s, %d canaries created", rc,
	       svg ? "written" : "missing", canaries_left());
	free(svg);
	rmdir(abs);
}

static void powercut_run(void)
{
	char fq[300], *json, *csv;
	int rc;

	snprintf(fq, sizeof(fq), "release=%s", release);
	fakerun_scenario(fq);
	rc = progrun("power-cut", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		     "--tools-disk", kernel, "--out", (char *)out_name, "--sync", "1",
		     "--cycles", "1", "--size", "1M", "--quiet", NULL }, 0, 0);
	json = slurp(out_name, "powercut.json");
	csv = slurp(out_name, "powercut.csv");
	tap_ok(rc == 0 && json && csv && !canaries_left(),
	       "power-cut, hostile release and --out: exit %d, powercut.json %s, .csv %s,"
	       " %d canaries created: %.*s", rc, text_state(json), text_state(csv),
	       canaries_left(), (int)strcspn(progrun_err, "\n"), progrun_err);
	free(json);
	free(csv);
}

/* debugfs finds the block to damage: the image's path is an argument. */
static void tamper_run(void)
{
	int rc;

	fakerun_scenario(NULL);
	rc = progrun("power-cut", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		     "--tools-disk", kernel, "--out", "p'$(touch canary-p1)'x", "--sync", "1",
		     "--cycles", "1", "--size", "1M", "--tamper", "image", "--quiet", NULL }, 0, 0);
	/* the fake guest's files are not in the image: debugfs finds no block */
	tap_ok(rc == 0 && strstr(progrun_err, "could not corrupt the image") && !canaries_left(),
	       "power-cut --tamper image, an --out that closes a quote: exit %d, reached the"
	       " tamper: %s, %d canaries created", rc,
	       strstr(progrun_err, "could not corrupt") ? "yes" : "no", canaries_left());
}

/* crash-states' report into a folder of a hostile name. */
static void crash_report(void)
{
	char dir[300];
	struct cs_cycle cy = { .sync = 1, .sync_last_flush = 3 };
	struct cs_result res = { .cycle = 1, .sync = 1, .kind = CS_PREFIX, .pos = 5,
				 .judged = true, .lost_bytes = 1 << 20 };
	struct cs_run run = { .n_cycles = 1, .cy = &cy, .n = 1, .res = &res };
	char *svg;
	int rc;

	snprintf(run.provenance, sizeof(run.provenance),
		 "{\"kernel_release\": \"6.1`touch canary-c1`<script>\\u00e9\", \"knob\": \"k\","
		 " \"qemu_version\": \"7\"}");
	snprintf(res.name, sizeof(res.name), "prefix-5");
	snprintf(res.verdict, sizeof(res.verdict), "OK");
	cy.m.request = 4;
	cy.m.n = 8;
	snprintf(dir, sizeof(dir), "c`touch canary-c1`$(touch canary-c1)'q\"\tx\ny,\xff");
	mkdir(dir, 0755);
	rc = cs_report_files(dir, &run);
	svg = slurp(dir, "crash.svg");
	tap_ok(rc == 0 && svg && utf8_valid(svg) && !canaries_left(),
	       "crash-states' report into a hostile folder: %d, crash.svg %s, %d canaries created",
	       rc, text_state(svg), canaries_left());
	free(svg);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];

	(void)argc;
	/* the canaries' names are relative: the runs work in the scratch dir */
	progrun_init(realpath(argv[0], self) ? self : argv[0]);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", fakerun_dir());
	if (chdir(fakerun_dir()))
		return 1;
	setenv("TMPDIR", fakerun_dir(), 1);
	lab_run();
	tmpdir_run();
	powercut_run();
	tamper_run();
	crash_report();
	fakerun_done();
	return tap_done();
}

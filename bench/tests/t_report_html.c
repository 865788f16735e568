/*
 * t_report_html: report.html from a fake-QEMU run (scenario "devices": the
 * kernel's phases and device callbacks), rendered by a real headless
 * browser (Debian's chromium).
 *
 * Guards: one cycle block per cycle run, two timelines each; every span's
 * drawn width, read back from the rendered page, is its duration times its
 * timeline's scale (to half a pixel); the sync phase is marked in each
 * sync on cycle and no other; the resume spans (wake, kernel, agent,
 * channel) and the device callbacks are drawn; the page loads nothing from elsewhere (no
 * script, no src=, no link); the unended callback the fake traces is in
 * the JSON.  A screenshot is kept in results/report-test.png.  SKIP when
 * chromium is not installed.  Output hygiene: with stdout and stderr one
 * file, no progress line lands inside a table, for each filesystem of
 * --fs all.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "fakerun.h"
#include "progrun.h"
#include "slurp.h"
#include "tap.h"

#define CYCLES 4	/* --sync both --cycles 2 */

static char kernel[600], out[600];

/* Appended to a copy of the page: the browser measures what it drew. */
static const char measure[] =
	"<script>window.addEventListener('load',function(){var r={cycles:"
	"document.querySelectorAll('div.cycle').length,timelines:[]};"
	"document.querySelectorAll('svg.timeline').forEach(function(s){var t={which:"
	"s.dataset.which,pps:+s.dataset.pps,spans:[]};s.querySelectorAll('rect.span')"
	".forEach(function(e){t.spans.push({name:e.dataset.name,cls:e.getAttribute('class'),"
	"s:+e.dataset.s,w:e.getBoundingClientRect().width})});r.timelines.push(t)});"
	"var p=document.createElement('pre');p.id='measure';p.textContent=JSON.stringify(r);"
	"document.body.appendChild(p)});</script>\n";

static const char *chromium(void)
{
	static const char *const names[] = { "/usr/bin/chromium", "/usr/bin/chromium-browser" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!access(names[i], X_OK))
			return names[i];
	return NULL;
}

/* chromium's stdout (the DOM after load) into path; its exit status */
static int browse(const char *browser, const char *what, const char *url, const char *to)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "%s --headless --no-sandbox --disable-gpu "
		 "--allow-file-access-from-files --user-data-dir=%s/chrome "
		 "--virtual-time-budget=5000 --window-size=1200,4200 %s '%s' >'%s' 2>/dev/null",
		 browser, fakerun_dir(), what, url, to);
	return system(cmd);
}

static void check_page(const char *page)
{
	tap_ok(!strstr(page, "<script") && !strstr(page, " src=") && !strstr(page, "<link"),
	       "self-contained: script %d, src= %d, link %d", !!strstr(page, "<script"),
	       !!strstr(page, " src="), !!strstr(page, "<link"));
}

static void check_drawn(json_t *m)
{
	size_t i, j, n_tl = json_array_size(json_object_get(m, "timelines"));
	double worst = 0, worst_s = 0, worst_w = 0;
	const char *worst_name = "-";
	int spans = 0, sync = 0, device = 0, resume_span = 0;
	json_t *tl, *sp;

	tap_ok(json_integer_value(json_object_get(m, "cycles")) == CYCLES && n_tl == 2 * CYCLES,
	       "%lld cycle blocks and %zu timelines for %d cycles",
	       json_integer_value(json_object_get(m, "cycles")), n_tl, CYCLES);
	json_array_foreach(json_object_get(m, "timelines"), i, tl) {
		double pps = json_number_value(json_object_get(tl, "pps"));

		json_array_foreach(json_object_get(tl, "spans"), j, sp) {
			double s = json_number_value(json_object_get(sp, "s"));
			double w = json_number_value(json_object_get(sp, "w"));
			const char *cls = json_string_value(json_object_get(sp, "cls"));

			if (w - s * pps > worst || s * pps - w > worst) {
				worst = w > s * pps ? w - s * pps : s * pps - w;
				worst_name = json_string_value(json_object_get(sp, "name"));
				worst_s = s * 1000;
				worst_w = w;
			}
			spans++;
			sync += cls && strstr(cls, "sync") != NULL;
			device += cls && strstr(cls, "device") != NULL;
			resume_span += cls && strstr(cls, "resume-span") != NULL;
		}
	}
	tap_ok(spans > 0 && worst <= 0.5,
	       "%d spans drawn, widths = duration x scale to %.3f px at worst (%s: %.3f ms drawn %.3f px)",
	       spans, worst, worst_name, worst_s, worst_w);
	tap_ok(sync == CYCLES / 2 && resume_span >= 3 * CYCLES && device >= 3 * CYCLES,
	       "marked: %d sync phases, %d resume spans, %d device callbacks", sync, resume_span,
	       device);
}

static void check_json(void)
{
	char path[1200];
	json_t *j, *c;
	json_error_t e;

	snprintf(path, sizeof(path), "%s/latency.json", out);
	j = json_load_file(path, 0, &e);
	c = json_array_get(json_object_get(j, "cycles"), 0);
	c = json_object_get(json_object_get(c, "devices"), "unended");
	tap_ok(json_integer_value(json_object_get(c, "resume")) == 1,
	       "the callback that never ended: %lld unended in resume",
	       json_integer_value(json_object_get(c, "resume")));
	/* the fake's slowest suspend callback: virtio_blk, 14% of the suspend */
	c = json_array_get(json_object_get(j, "summary"), 0);
	c = json_array_get(json_object_get(json_object_get(c, "slowest_devices_s"), "suspend"), 0);
	tap_ok(c && !strcmp(json_string_value(json_object_get(c, "device")) ?: "", "virtio_blk virtio1") &&
	       json_number_value(json_object_get(json_object_get(c, "s"), "median")) > 0.01,
	       "summary: slowest suspend device %s, median %.4f s",
	       c ? json_string_value(json_object_get(c, "device")) : "-",
	       json_number_value(json_object_get(json_object_get(c, "s"), "median")));
	json_decref(j);
}

/* Each table, from its first line to the time line after it, has no
 * progress line ("suspend-lab: ...") inside. */
static void hygiene(const char *argv0)
{
	char cmd[4096], path[1200], *text, *p, *end;
	int tables = 0, mixed = 0;

	snprintf(path, sizeof(path), "%s/both.txt", fakerun_dir());
	snprintf(cmd, sizeof(cmd), "\"$(dirname '%s')\"/suspend-lab --kernel '%s' --initrd '%s' "
		 "--tools-disk '%s' --out '%s/all' --state mem --dirty 0 --sync both --cycles 1 "
		 "--fs all >'%s' 2>&1", argv0, kernel, kernel, kernel, fakerun_dir(), path);
	if (system(cmd))
		mixed = -1;
	text = test_slurp(path, NULL);
	for (p = text; p && (p = strstr(p, "\nsuspend-lab 0.")); p = end) {
		tables++;
		end = strstr(p + 1, "\nsuspend-lab: time:");
		if (!end)
			break;
		*end = '\0';
		mixed += strstr(p + 1, "\nsuspend-lab: ") != NULL;
		*end = '\n';
	}
	tap_ok(tables == 4 && mixed == 0, "--fs all, stdout and stderr one file: %d tables, %d with a "
	       "progress line inside (-1: the run failed)", tables, mixed);
	free(text);
}

int main(int argc, char **argv)
{
	const char *browser = chromium();
	char page_path[1200], copy[1200], dom[1200], url[1300], shot[1300];
	char *page, *text, *pre;
	json_t *m;
	FILE *f;
	int rc;

	(void)argc;
	progrun_init(argv[0]);
	setenv("TMPDIR", fakerun_dir(), 1);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", fakerun_dir());
	fakerun_boot_file(kernel);
	snprintf(out, sizeof(out), "%s/out", fakerun_dir());
	fakerun_scenario("devices,stall-ms=100");
	rc = progrun("suspend-lab", (char *[]){ "--kernel", kernel, "--initrd", kernel,
		     "--tools-disk", kernel, "--out", out, "--state", "mem", "--dirty", "0",
		     "--sync", "both", "--cycles", "2", "--quiet", NULL }, 0, 0);
	snprintf(page_path, sizeof(page_path), "%s/report.html", out);
	page = test_slurp(page_path, NULL);
	if (!tap_ok(rc == 0 && page && *page, "fake run: exit %d, report.html %zu bytes", rc,
		    page ? strlen(page) : 0))
		goto done;
	check_page(page);
	check_json();
	hygiene(argv[0]);
	if (!browser) {
		tap_skip("chromium is not installed (apt-get install chromium)", "rendered page");
		goto done;
	}
	snprintf(copy, sizeof(copy), "%s/measure.html", fakerun_dir());
	snprintf(dom, sizeof(dom), "%s/dom.html", fakerun_dir());
	f = fopen(copy, "we");
	fputs(page, f);
	fputs(measure, f);
	fclose(f);
	snprintf(url, sizeof(url), "file://%s", copy);
	rc = browse(browser, "--dump-dom", url, dom);
	text = test_slurp(dom, NULL);
	pre = text ? strstr(text, "<pre id=\"measure\">") : NULL;
	m = pre ? json_loads(pre + strlen("<pre id=\"measure\">"), JSON_DISABLE_EOF_CHECK, NULL)
		: NULL;
	if (tap_ok(m != NULL, "chromium exit %d, measured the page: %d", rc, m != NULL))
		check_drawn(m);
	json_decref(m);
	free(text);
	/* the picture, for a person to look at */
	mkdir("../results", 0755);
	snprintf(url, sizeof(url), "file://%s", page_path);
	snprintf(shot, sizeof(shot), "--screenshot=%s/../results/report-test.png",
		 getcwd(copy, sizeof(copy)));
	rc = browse(browser, shot, url, "/dev/null");
	snprintf(shot, sizeof(shot), "%s/../results/report-test.png", copy);
	{
		struct stat st;

		tap_ok(!stat(shot, &st) && st.st_size > 0, "screenshot %s: exit %d, %lld bytes",
		       shot, rc, !stat(shot, &st) ? (long long)st.st_size : -1LL);
	}
done:
	free(page);
	fakerun_done();
	return tap_done();
}

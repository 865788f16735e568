/*
 * t_plot_choose: which chart the lab's plot draws, and the grouped one.
 *
 * Guards: the chooser (plotchoose.h) on recorded sweeps, the summary[]
 * configurations of two real runs trimmed with jq to their configuration
 * fields and counts (tests/data/):
 *   default-emmc-6.1.json  results/evidence-6.1/default-emmc/latency.json,
 *                          4 workloads x sync at 64 MiB: grouped bars
 *   emmc-6.1.json          results/evidence-6.1/emmc/latency.json,
 *                          0, 64 and 256 MiB: latency against size
 * and no sweep at all.  Then a synthetic one-size run (reportgroup.c)
 * rendered by report_plot(): every workload on the x axis, sync on and off
 * apart per state in the key, log scale where a panel spans it, a label
 * where nothing was measured, not the size chart; SKIP without gnuplot.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab.h"
#include "plotchoose.h"
#include "report.h"
#include "reportgroup.h"
#include "reportrun.h"
#include "tap.h"

#define MAX_CONFIGS 64
#define SIZE_XLABEL "bytes the workload wrote before the request (MiB)"

/* The library names writeback modes one way only: match its names. */
static bool writeback_of(const char *name, enum writeback *wb)
{
	static const enum writeback all[] = { WB_HELD, WB_DEFAULT };

	for (size_t i = 0; name && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(writeback_name(all[i]), name)) {
			*wb = all[i];
			return true;
		}
	return false;
}

/* summary[] of a results file as configurations; count, or -1.  The
 * states point into *root, which the caller frees. */
static int load_configs(const char *path, json_t **root, struct lab_config *cf, int max)
{
	json_error_t err;
	json_t *sum, *e;
	size_t i;

	*root = json_load_file(path, 0, &err);
	sum = json_object_get(*root, "summary");
	if (!json_is_array(sum) || json_array_size(sum) > (size_t)max) {
		tap_diag("%s: %s", path, *root ? "no summary[] that fits" : err.text);
		return -1;
	}
	json_array_foreach(sum, i, e) {
		json_t *dirty = json_object_get(e, "dirty_target_bytes");
		json_t *sync = json_object_get(e, "sync");
		const char *wl = json_string_value(json_object_get(e, "workload"));

		cf[i].state = json_string_value(json_object_get(e, "state"));
		cf[i].workload = workload_by_name(wl);
		if (!cf[i].state || !cf[i].workload || !json_is_integer(sync) ||
		    !json_is_integer(dirty) ||
		    !writeback_of(json_string_value(json_object_get(e, "writeback")), &cf[i].wb)) {
			tap_diag("%s: summary[%zu] lacks a known state, sync, workload,"
				 " writeback or dirty_target_bytes", path, i);
			return -1;
		}
		cf[i].sync = (int)json_integer_value(sync);
		cf[i].dirty = (uint64_t)json_integer_value(dirty);
	}
	return (int)i;
}

static int distinct(const struct lab_config *cf, int n, bool by_size)
{
	int d = 0;

	for (int i = 0; i < n; i++) {
		int j = 0;

		while (j < i && (by_size ? cf[j].dirty != cf[i].dirty :
				 cf[j].workload != cf[i].workload))
			j++;
		d += j == i;
	}
	return d;
}

static const char *kind_name(enum plot_kind k)
{
	return k == PLOT_GROUPED ? "grouped" : k == PLOT_BY_SIZE ? "by size" : "?";
}

static void check_recorded(const char *path, enum plot_kind want)
{
	struct lab_config cf[MAX_CONFIGS];
	json_t *root = NULL;
	int n = load_configs(path, &root, cf, MAX_CONFIGS);
	enum plot_kind got = n > 0 ? plot_choose(cf, n) : (enum plot_kind)-1;

	tap_ok(n > 0 && got == want,
	       "%s: %d configurations, %d sizes, %d workloads: %s chart (want %s)", path, n,
	       n > 0 ? distinct(cf, n, true) : 0, n > 0 ? distinct(cf, n, false) : 0,
	       kind_name(got), kind_name(want));
	json_decref(root);
}

static void check_no_sweep(void)
{
	struct lab_config one = { "mem", 1, &workloads[0], WB_HELD, 0 };

	tap_ok(plot_choose(NULL, 0) == PLOT_BY_SIZE && plot_choose(&one, 1) == PLOT_GROUPED,
	       "no configuration: %s chart; one at 0 bytes: %s chart",
	       kind_name(plot_choose(NULL, 0)), kind_name(plot_choose(&one, 1)));
}

/* The same lookup as t_report_render's: gnuplot anywhere on PATH. */
static bool have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)n, n ? path : ".");
		if (!access(buf, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = calloc(1, n + 1);
		if (buf)
			*len = fread(buf, 1, n, f);
	}
	if (f)
		fclose(f);
	return buf;
}

/* Appends " s" to buf, cut at its size. */
static void note(char *buf, size_t n, const char *s)
{
	size_t len = strlen(buf);

	snprintf(buf + len, n - len, " %s", s);
}

/* A text element of the SVG that is exactly s (gnuplot: <tspan ...>s</tspan>). */
static bool svg_text(const char *svg, const char *s)
{
	char want[128];

	snprintf(want, sizeof(want), ">%s</", s);
	return strstr(svg, want) != NULL;
}

static void check_render(const char *dir)
{
	static const char *const keys[] = {
		"mem sync off", "mem sync on", "freeze sync off", "freeze sync on",
	};
	struct lab_summary *sum = NULL;
	struct lab_result r;
	struct lab_opts o;
	struct lab_view v = { &o, &r, NULL, 0 };
	char svg[512], png[512], missing[160] = "";
	size_t len;
	char *buf;
	int rc;

	reportgroup_make(&o, &r, 2);
	v.n_sum = lab_summarise(&o, &r, &sum);
	v.sum = sum;
	if (!have_gnuplot()) {
		tap_skip("gnuplot not installed (apt-get install gnuplot-nox)",
			 "grouped SVG rendered and labelled");
		tap_skip("gnuplot not installed (apt-get install gnuplot-nox)",
			 "grouped PNG rendered");
		free(sum);
		return;
	}
	snprintf(svg, sizeof(svg), "%s/grouped.svg", dir);
	snprintf(png, sizeof(png), "%s/grouped.png", dir);
	rc = report_plot(svg, &v);
	buf = slurp(svg, &len);
	for (int w = 0; w < o.n_workloads && buf; w++)
		if (!svg_text(buf, o.workloads[w]->name))
			note(missing, sizeof(missing), o.workloads[w]->name);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && buf; k++)
		if (!svg_text(buf, keys[k]))
			note(missing, sizeof(missing), keys[k]);
	tap_ok(rc == 0 && buf && !missing[0], "grouped SVG: rc %d, %zu bytes, %d configurations;"
	       " x tics or keys missing:%s", rc, len, v.n_sum, missing[0] ? missing : " none");
	tap_ok(buf && !strstr(buf, SIZE_XLABEL) && strstr(buf, "workload (each wrote 64 MiB"),
	       "grouped SVG: x axis 'workload (each wrote 64 MiB ...', not the size chart's '%s'",
	       SIZE_XLABEL);
	tap_ok(buf && strstr(buf, "suspend latency (s)") && strstr(buf, "resume latency (s)") &&
	       strstr(buf, "writeback held") && strstr(buf, "writeback default") &&
	       strstr(buf, "log scale") && strstr(buf, "no OK cycle") &&
	       strstr(buf, "2/3 OK") && strstr(buf, "6.1.0-slab_test"),
	       "grouped SVG: y axes in seconds, a panel per writeback, a log scale panel,"
	       " 'no OK cycle' and '2/3 OK' labels, the kernel in the title");
	free(buf);
	rc = report_plot(png, &v);
	buf = slurp(png, &len);
	tap_ok(rc == 0 && len > 8 && !memcmp(buf, "\x89PNG", 4),
	       "grouped PNG: rc %d, %zu bytes, PNG signature", rc, len);
	free(buf);
	unlink(svg);
	unlink(png);
	free(sum);
}

int main(void)
{
	char dir[] = "/tmp/t_plot_choose.XXXXXX", tmp[600];

	check_recorded("tests/data/default-emmc-6.1.json", PLOT_GROUPED);
	check_recorded("tests/data/emmc-6.1.json", PLOT_BY_SIZE);
	check_no_sweep();
	if (reportrun_scratch(dir, tmp, sizeof(tmp))) {
		tap_ok(false, "a scratch directory: %s", strerror(errno));
		return tap_done();
	}
	check_render(dir);
	tap_ok(rmdir(tmp) == 0 && rmdir(dir) == 0,
	       "no plot files left behind; temporary directory removed");
	return tap_done();
}

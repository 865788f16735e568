/*
 * t_report_render: table and plot of a synthetic run (reportrun.c), safe
 * result files, negative latencies. Guards: a row per configuration, SVG/PNG
 * via gnuplot (SKIP if absent), a clean failure without it, no file left.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab.h"
#include "outfile.h"
#include "report.h"
#include "reportrun.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct lab_view view;

/* ---- table ---- */

static void check_table(void)
{
	static const char *const want[][4] = {
		{ "mem", "off", "64", "2/2" }, { "mem", "off", "8", "2/2" },
		{ "mem", "on", "64", "1/2" }, { "mem", "on", "8", "2/2" },
	};
	char line[512], tok[4][32];
	bool found[N(want)] = { false };
	bool failure = false, prov = false;
	int all = 1;
	FILE *f = tmpfile();

	if (!tap_ok(f != NULL, "table: tmpfile"))
		return;
	report_table(f, &view);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "6.1.0-slab_test") && strstr(line, "suspend_sync"))
			prov = true;
		if (strstr(line, "ResumeTimeout") && strstr(line, "64"))
			failure = true;
		if (sscanf(line, "%31s %31s %*s %*s %31s %31s", tok[0], tok[1], tok[2],
			   tok[3]) != 4)
			continue;
		for (size_t i = 0; i < N(want); i++)
			found[i] |= !strcmp(tok[0], want[i][0]) &&
				    !strcmp(tok[1], want[i][1]) &&
				    !strcmp(tok[2], want[i][2]) &&
				    !strcmp(tok[3], want[i][3]);
	}
	fclose(f);
	for (size_t i = 0; i < N(want); i++)
		all &= found[i];
	tap_ok(all, "table: a row per configuration with its ok/total");
	tap_ok(failure, "table: a line for the failed cycle with its verdict");
	tap_ok(prov, "table: provenance names the kernel and the knob");
}

/* ---- plot ---- */

static bool have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		/* an empty PATH entry is the current directory */
		if (n)
			snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)n, path);
		else
			snprintf(buf, sizeof(buf), "./gnuplot");
		if (!access(buf, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

static bool dir_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return false;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n == 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = calloc(1, n + 1);
		if (buf)
			*len = fread(buf, 1, n, f);
	}
	fclose(f);
	return buf;
}

static bool one_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl && !nl[1];
}

/* Runs report_plot with stderr captured into err (NUL-terminated). */
static int plot_capturing(const char *path, const char *errfile, char *err, size_t n)
{
	int saved = dup(STDERR_FILENO), fd, rc;
	FILE *f;

	fflush(stderr);
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, STDERR_FILENO);
	close(fd);
	rc = report_plot(path, &view);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	err[0] = '\0';
	f = fopen(errfile, "r");
	if (f) {
		err[fread(err, 1, n - 1, f)] = '\0';
		fclose(f);
	}
	unlink(errfile);
	return rc;
}

static void check_plot(const char *dir, const char *tmp)
{
	char svg[512], png[512], bogus[512], errfile[512], err[1024];
	struct stat st;
	size_t len;
	char *buf;
	int rc;

	snprintf(svg, sizeof(svg), "%s/latency.svg", dir);
	snprintf(png, sizeof(png), "%s/latency.png", dir);
	snprintf(bogus, sizeof(bogus), "%s/latency.pdf", dir);
	snprintf(errfile, sizeof(errfile), "%s/stderr.txt", dir);

	if (!have_gnuplot()) {
		tap_skip("gnuplot not installed (apt-get install gnuplot-nox)",
			 "SVG plot rendered");
		tap_skip("gnuplot not installed (apt-get install gnuplot-nox)",
			 "PNG plot rendered");
	} else {
		rc = report_plot(svg, &view);
		buf = slurp(svg, &len);
		tap_ok(rc == 0 && buf && len > 0 && strstr(buf, "<svg") &&
		       strstr(buf, "sync on, mem") && strstr(buf, "sync off, mem") &&
		       strstr(buf, "6.1.0-slab_test") && strstr(buf, "(MiB)"),
		       "SVG plot: rc %d, %zu bytes, <svg, both sync lines, kernel, units",
		       rc, len);
		free(buf);
		rc = report_plot(png, &view);
		buf = slurp(png, &len);
		tap_ok(rc == 0 && len > 8 && !memcmp(buf, "\x89PNG", 4),
		       "PNG plot: rc %d, %zu bytes, PNG signature", rc, len);
		free(buf);
		unlink(png);
	}

	setenv("GNUPLOT", "/nonexistent/gnuplot", 1);
	rc = plot_capturing(bogus, errfile, err, sizeof(err));
	tap_ok(rc == -1, "plot to .pdf refused");
	snprintf(bogus, sizeof(bogus), "%s/missing.svg", dir);
	rc = plot_capturing(bogus, errfile, err, sizeof(err));
	tap_ok(rc == -1 && strstr(err, "apt-get install gnuplot-nox") &&
	       one_line(err) && stat(bogus, &st),
	       "missing gnuplot: -1, one stderr line naming gnuplot-nox, no output");
	unsetenv("GNUPLOT");
	tap_ok(dir_empty(tmp), "no temporary plot files left in TMPDIR");
}

/* ---- safe results ---- */

static int write_good(FILE *f, const void *ctx)
{
	return fputs(ctx, f) < 0 ? -1 : 0;
}

static int write_half_then_fail(FILE *f, const void *ctx)
{
	(void)ctx;
	fputs("{ \"truncated\": ", f);
	return -1;
}

/* An entry whose name starts with prefix. */
static bool has_entry(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		found |= !strncmp(e->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return found;
}

static void check_outfile(const char *dir)
{
	char path[600], errfile[600];
	size_t len;
	char *got;
	int saved, fd, rc;

	snprintf(path, sizeof(path), "%s/result.json", dir);
	snprintf(errfile, sizeof(errfile), "%s/err.txt", dir);
	tap_ok(outfile_write(path, write_good, "good\n") == 0, "outfile: a good write lands");
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, STDERR_FILENO);
	close(fd);
	rc = outfile_write(path, write_half_then_fail, NULL);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	got = slurp(path, &len);
	tap_ok(rc == -1 && got && !strcmp(got, "good\n"),
	       "outfile: a failed write keeps the earlier file whole (%zu bytes)", got ? len : 0);
	free(got);
	got = slurp(errfile, &len);
	tap_ok(got && one_line(got) && strstr(got, "is kept"),
	       "outfile: one line says the earlier file is kept");
	free(got);
	unlink(errfile);
	unlink(path);
	tap_ok(!has_entry(dir, "result.json"), "outfile: no temporary file left");
}

/* A host that read the request late gives a negative latency: kept. */
static void check_negative(const struct lab_opts *o, struct lab_result *r)
{
	struct lab_summary *sum = NULL;
	double saved = r->rec[0].suspend_latency_s;
	int n;

	r->rec[0].suspend_latency_s = -0.002;
	n = lab_summarise(o, r, &sum);
	tap_ok(n == 4 && sum[0].suspend.n == 2 && sum[0].suspend.min == -0.002,
	       "summary: a negative latency is a measurement, not dropped (n %d, min %g)",
	       n > 0 ? sum[0].suspend.n : -1, n > 0 ? sum[0].suspend.min : 0.0);
	free(sum);
	r->rec[0].suspend_latency_s = saved;
}

int main(void)
{
	char dir[] = "/tmp/t_report_render.XXXXXX", tmp[600], path[600];
	struct lab_opts o;
	struct lab_result r;
	int failed = -1;

	if (reportrun_scratch(dir, tmp, sizeof(tmp))) {
		tap_ok(false, "a scratch directory: %s", strerror(errno));
		return tap_done();
	}
	reportrun_make(&o, &r, &failed);
	view.o = &o;
	view.r = &r;
	view.n_sum = lab_summarise(&o, &r, (struct lab_summary **)&view.sum);

	check_table();
	check_plot(dir, tmp);
	check_outfile(dir);
	check_negative(&o, &r);
	free((void *)view.sum);

	snprintf(path, sizeof(path), "%s/latency.svg", dir);
	unlink(path);
	rmdir(tmp);
	tap_ok(rmdir(dir) == 0, "temporary directory empty and removed");
	return tap_done();
}

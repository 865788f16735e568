/*
 * t_report: the files a lab run leaves behind, from a synthetic run.
 *
 * Guards: the JSON loads and holds every cycle in order, names a failed
 * cycle's verdict, writes null (never -1) for what was not measured, keeps
 * open trace spans out of phases_s, and puts a unit in every numeric key
 * name (suffix list plus an explicit allow-list of counts and indices);
 * the CSV has a header of the same kind and one row per cycle with empty
 * cells for the unmeasured; the table has a row per configuration and a
 * line per failure; the plot renders SVG and PNG through gnuplot (SKIP
 * when it is not installed), fails cleanly when gnuplot is missing, and
 * leaves no temporary file behind.
 */
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab.h"
#include "outfile.h"
#include "report.h"
#include "tap.h"

#define MIB (1024ULL * 1024)
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct disk_profile profile = {
	.name = "emmc", .what = "test profile", .write_bps = 20 * MIB,
	.write_iops = 2000, .flush_ms = 10, .volatile_cache = true,
};

static void add_phase(struct cycle *c, const char *name, double begin,
		      double end)
{
	struct phase *p = &c->phases[c->n_phases++];

	snprintf(p->name, sizeof(p->name), "%s", name);
	p->begin = begin;
	p->end = end;
}

/* A plausible OK cycle: sync on adds a sync phase that grows with dirty;
 * the figures come from lab_derive(), as in a real run. */
static void fill_ok(struct cycle_record *rec, double floor_bps)
{
	struct cycle *c = &rec->c;
	double mib = rec->dirty_target_bytes / (double)MIB;
	double sync = rec->sync ? 0.01 + mib / 20 * (1 + 0.1 * rec->index) : 0;
	double t = 100;

	c->verdict = VERDICT_OK;
	c->req_host = 1000;
	c->req_guest.mono = t;
	c->dirty_kb = (long long)(rec->dirty_target_bytes >> 10);
	c->writeback_kb = 0;
	c->fs_sync_s = rec->sync ? sync : -1;
	t += 0.001;
	if (rec->sync) {
		add_phase(c, "sync_filesystems", t, t + sync);
		t += sync;
	}
	add_phase(c, "freeze_processes", t, t + 0.02);
	add_phase(c, "dpm_prepare", t + 0.02, t + 0.03);
	add_phase(c, "dpm_suspend", t + 0.03, t + 0.08);
	add_phase(c, "dpm_suspend", t + 0.08, t + 0.09);	/* second span */
	add_phase(c, "machine_suspend", t + 0.1, t + 0.2);
	add_phase(c, "dpm_resume", t + 0.2, t + 0.3);
	add_phase(c, "thaw_processes", t + 0.3, t + 0.35);
	c->suspend_event = c->req_host + (t + 0.1 - c->req_guest.mono) + 0.005;
	c->wake_host = 2000;
	c->resumed_host = 2000.4 + 0.01 * rec->index;
	lab_derive(rec, floor_bps);
}

/* Suspended, then never came back: nothing after the request measured. */
static void fill_failed(struct cycle_record *rec)
{
	struct cycle *c = &rec->c;

	c->verdict = VERDICT_RESUME_TIMEOUT;
	c->req_host = 1000;
	c->dirty_kb = (long long)(rec->dirty_target_bytes >> 10);
	add_phase(c, "freeze_processes", 10, 10.02);
	add_phase(c, "machine_suspend", 10.1, -1);	/* never closed */
	lab_derive(rec, 19.5 * MIB);
}

/* mem x {off, on} x {8, 64} MiB x 2 cycles; the last on/64M cycle fails. */
static void make_run(struct lab_opts *o, struct lab_result *r, int *failed)
{
	static struct cycle_record rec[8];
	int n = 0;

	memset(o, 0, sizeof(*o));
	hx_opts_defaults(&o->hx);
	o->states[0] = "mem";
	o->n_states = 1;
	o->syncs[0] = 0;
	o->syncs[1] = 1;
	o->n_syncs = 2;
	o->dirty[0] = 64 * MIB;	/* out of order: the plot must sort */
	o->dirty[1] = 8 * MIB;
	o->n_dirty = 2;
	o->cycles = 2;
	o->workloads[0] = workload_by_name("bigfile");
	o->n_workloads = 1;
	o->wbs[0] = WB_HELD;
	o->n_wbs = 1;
	o->hx.firmware = VM_FW_BIOS;
	o->hx.profile = &profile;
	o->hx.accel = "tcg";
	o->mem_mb = 2048;

	memset(r, 0, sizeof(*r));
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.1.0-slab_test");
	snprintf(r->qemu_version, sizeof(r->qemu_version), "7.2.0");
	snprintf(r->knob, sizeof(r->knob), "suspend_sync");
	snprintf(r->date, sizeof(r->date), "2024-01-02T03:04:05Z");
	r->accel = "tcg";
	r->boot_s = 3.5;
	r->mem_mib = 2048;
	r->floor_bps = 19.5 * MIB;
	memset(rec, 0, sizeof(rec));
	for (int y = 0; y < o->n_syncs; y++)
	for (int d = 0; d < o->n_dirty; d++)
	for (int i = 0; i < o->cycles; i++) {
		struct cycle_record *p = &rec[n];

		struct lab_config cf = {
			.state = "mem", .sync = o->syncs[y], .dirty = o->dirty[d],
			.workload = o->workloads[0], .wb = WB_HELD,
		};

		lab_record_init(p, &cf, i);
		if (p->sync && d == 0 && i == 1) {
			fill_failed(p);
			*failed = n;
		} else {
			fill_ok(p, r->floor_bps);
		}
		if (!p->sync) {	/* the kernel's at-risk report */
			p->c.skip_events = 1;
			p->c.skip_dirty_kb = (long long)(p->dirty_target_bytes >> 10) + 40;
			p->c.skip_writeback_kb = 4;
		}
		n++;
	}
	r->n = n;
	r->rec = rec;
}

static struct lab_view view;

/* ---- JSON ---- */

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static bool unit_named(const char *key)
{
	static const char *const units[] = {
		"_s", "_bytes", "_kb", "_bytes_per_s", "_iops", "_mib", "_ms", "_requests",
	};

	for (size_t i = 0; i < N(units); i++)
		if (has_suffix(key, units[i]))
			return true;
	return false;
}

/*
 * Allowed without a unit suffix: numbers that are not quantities, the one
 * dimensionless ratio, and two names whose unit sits inside, as the schema
 * spells them.
 */
static const char *const unitless[] = {
	"n", "n_ok", "n_total", "cycle", "sync", "rc", "cycles_per_config", "boots",
	"sync_over_predicted", "device",
	"sync_over_floor", "dirty_at_request_kb", "writeback_at_request_kb",
};

/*
 * Every number-or-null member must carry its unit, or sit in an object
 * under a key that does (stats objects, phases_s, resume_spans_s), or be
 * allow-listed.
 */
static int check_units(json_t *j, const char *parent, bool above, int *checked,
		       char *bad, size_t n)
{
	const char *key;
	json_t *v;
	size_t i;
	int fails = 0;
	/* a unit on any enclosing key covers what is inside */
	bool carried = above || (parent && (unit_named(parent) ||
					   in_list(parent, unitless, N(unitless))));

	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
			fails += check_units(v, parent, carried, checked, bad, n);
		return fails;
	}
	json_object_foreach(j, key, v) {
		if (json_is_object(v) || json_is_array(v)) {
			fails += check_units(v, key, carried, checked, bad, n);
			continue;
		}
		if (!json_is_number(v) && !json_is_null(v))
			continue;
		(*checked)++;
		if (unit_named(key) || carried ||
		    in_list(key, unitless, N(unitless)))
			continue;
		if (!fails++)
			snprintf(bad, n, "%s.%s", parent ? parent : "", key);
	}
	return fails;
}

static bool str_is(json_t *o, const char *key, const char *want)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v && !strcmp(v, want);
}

static bool is_null(json_t *o, const char *key)
{
	return json_is_null(json_object_get(o, key));
}

static void check_json(const char *path, const struct lab_result *r, int failed)
{
	json_error_t err;
	json_t *j, *cycles, *c, *summary, *prov, *cf;
	char bad[128] = "";
	int checked = 0, fails, order_ok = 1;
	size_t i;

	if (!tap_ok(report_json(path, &view) == 0, "report_json returns 0"))
		return;
	j = json_load_file(path, 0, &err);
	if (!tap_ok(j != NULL, "JSON loads%s%s", j ? "" : ": ", j ? "" : err.text))
		return;
	tap_ok(str_is(j, "schema", "suspend-lab/latency/2"), "schema suspend-lab/latency/2");

	cycles = json_object_get(j, "cycles");
	tap_ok(json_array_size(cycles) == (size_t)r->n, "JSON holds all %d cycles (%zu)",
	       r->n, json_array_size(cycles));
	json_array_foreach(cycles, i, c)
		order_ok &= i < (size_t)r->n &&
			json_integer_value(json_object_get(c, "dirty_target_bytes")) ==
			(json_int_t)r->rec[i].dirty_target_bytes &&
			json_integer_value(json_object_get(c, "sync")) == r->rec[i].sync &&
			json_integer_value(json_object_get(c, "cycle")) == r->rec[i].index + 1;
	tap_ok(order_ok, "cycles in record order with sync, dirty and 1-based cycle");

	c = json_array_get(cycles, failed);
	tap_ok(str_is(c, "verdict", "ResumeTimeout"), "failed cycle's verdict is ResumeTimeout");
	tap_ok(is_null(c, "suspend_latency_s") && is_null(c, "resume_latency_s") &&
	       is_null(c, "guest_suspend_latency_s") && is_null(c, "sync_phase_s") &&
	       is_null(c, "floor_s") && is_null(c, "fs_sync_log_s") &&
	       is_null(c, "sync_over_floor"),
	       "not-measured values of the failed cycle are null");
	tap_ok(!json_object_get(json_object_get(c, "phases_s"), "machine_suspend") &&
	       json_is_real(json_object_get(json_object_get(c, "phases_s"),
					    "freeze_processes")),
	       "phases_s has closed spans only");

	c = json_array_get(cycles, 0);	/* sync off, 64M, OK */
	tap_ok(json_integer_value(json_object_get(c, "kernel_at_risk_dirty_kb")) == 65576 &&
	       json_integer_value(json_object_get(c, "kernel_at_risk_writeback_kb")) == 4 &&
	       is_null(json_array_get(cycles, r->n - 1), "kernel_at_risk_dirty_kb"),
	       "kernel at-risk figures for sync off, null for sync on");
	tap_ok(is_null(c, "sync_phase_s") && is_null(c, "sync_over_floor") &&
	       is_null(c, "fs_sync_log_s") && json_is_real(json_object_get(c, "floor_s")),
	       "sync off: sync phase and ratio null, floor_s a number");
	c = json_array_get(cycles, 4);	/* sync on, 64M, OK */
	tap_ok(fabs(json_real_value(json_object_get(c, "sync_over_floor")) -
		    r->rec[4].sync_phase_s / r->rec[4].floor_s) < 1e-9 &&
	       fabs(json_real_value(json_object_get(json_object_get(c, "phases_s"),
						    "dpm_suspend")) - 0.06) < 1e-9,
	       "sync on: sync_over_floor is sync/floor; phases_s sums spans");

	prov = json_object_get(j, "provenance");
	tap_ok(str_is(prov, "firmware", "bios") && str_is(prov, "machine", "pc") &&
	       str_is(json_object_get(prov, "profile"), "name", "emmc") &&
	       json_integer_value(json_object_get(prov, "guest_mem_mib")) == 2048 &&
	       str_is(prov, "kernel_release", r->kernel_release) &&
	       str_is(json_object_get(j, "floor"), "method",
		      "fio sequential 1 MiB direct writes"),
	       "provenance: firmware, machine, profile, memory, kernel, floor method");

	summary = json_object_get(j, "summary");
	cf = json_array_get(summary, 2);	/* sync on, 64M: one failure */
	tap_ok(json_array_size(summary) == 4 &&
	       json_integer_value(json_object_get(cf, "n_ok")) == 1 &&
	       json_integer_value(json_object_get(cf, "n_total")) == 2 &&
	       json_integer_value(json_object_get(json_object_get(cf, "suspend_latency_s"),
						  "n")) == 1 &&
	       fabs(json_real_value(json_object_get(json_object_get(cf, "suspend_latency_s"),
						    "median")) -
		    r->rec[4].suspend_latency_s) < 1e-9,
	       "summary: 4 configurations; the failed one counts 1/2 and only the OK cycle");
	cf = json_array_get(summary, 0);	/* sync off, 64M */
	tap_ok(json_integer_value(json_object_get(json_object_get(cf, "sync_phase_s"),
						  "n")) == 0 &&
	       is_null(json_object_get(cf, "sync_phase_s"), "median"),
	       "summary: an unmeasured metric has n 0 and null statistics");

	fails = check_units(j, NULL, false, &checked, bad, sizeof(bad));
	tap_ok(!fails && checked > 100, "units in every numeric key name (%d checked, %d bad%s%s)",
	       checked, fails, fails ? ", first " : "", bad);
	json_decref(j);
}

/* ---- CSV ---- */

static int split(char *line, char **field, int max)
{
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	for (char *p = line; n < max; p++) {
		field[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = '\0';
	}
	return n;
}

static void check_csv(const char *path, const struct lab_result *r, int failed)
{
	static const char *const strings[] = {
		"state", "verdict", "suspend_latency_source", "workload", "writeback",
		"dev_sync_source",
	};
	char line[2048], *head[64], *row[64];
	int nh = 0, rows = 0, width_ok = 1, resume = -1, names_ok = 1;
	bool failed_empty = false;
	FILE *f;

	if (!tap_ok(report_csv(path, &view) == 0, "report_csv returns 0"))
		return;
	f = fopen(path, "r");
	if (!tap_ok(f && fgets(line, sizeof(line), f), "CSV readable"))
		goto out;
	nh = split(line, head, 64);
	for (int i = 0; i < nh; i++) {
		if (!strcmp(head[i], "resume_latency_s"))
			resume = i;
		if (!unit_named(head[i]) && !in_list(head[i], unitless, N(unitless)) &&
		    !in_list(head[i], strings, N(strings))) {
			tap_diag("column without a unit: %s", head[i]);
			names_ok = 0;
		}
	}
	tap_ok(names_ok && resume >= 0 && nh >= 20,
	       "CSV header: %d unit-suffixed columns", nh);
	while (fgets(line, sizeof(line), f)) {
		int n = split(line, row, 64);

		width_ok &= n == nh;
		if (rows == failed && resume >= 0 && n == nh)
			failed_empty = !row[resume][0] &&
				       !strcmp(row[7], "ResumeTimeout");
		rows++;
	}
	tap_ok(rows == r->n && width_ok, "CSV: header + %d rows of %d fields (%d rows)",
	       r->n, nh, rows);
	tap_ok(failed_empty, "CSV: failed cycle has its verdict and an empty resume cell");
out:
	if (f)
		fclose(f);
}

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
	char dir[] = "/tmp/t_report.XXXXXX", tmp[600], path[600];
	struct lab_opts o;
	struct lab_result r;
	int failed = -1;

	if (!mkdtemp(dir)) {
		tap_ok(false, "mkdtemp");
		return tap_done();
	}
	/* the plot's own temporary directory lands here, to be counted */
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	mkdir(tmp, 0700);
	setenv("TMPDIR", tmp, 1);
	make_run(&o, &r, &failed);
	view.o = &o;
	view.r = &r;
	view.n_sum = lab_summarise(&o, &r, (struct lab_summary **)&view.sum);

	snprintf(path, sizeof(path), "%s/latency.json", dir);
	check_json(path, &r, failed);
	unlink(path);
	snprintf(path, sizeof(path), "%s/latency.csv", dir);
	check_csv(path, &r, failed);
	unlink(path);
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

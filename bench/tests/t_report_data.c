/*
 * t_report_data: the JSON and CSV of a synthetic run (reportrun.c). Guards:
 * cycles in order, the failed cycle's verdict, null or empty for the
 * unmeasured, closed trace spans only, and a unit in every numeric name.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"
#include "report.h"
#include "reportrun.h"
#include "tap.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

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
	"sync_over_predicted", "device", "callbacks", "dropped", "unended",
	"sync_over_floor", "dirty_at_request_kb", "writeback_at_request_kb",
	"n_stalled", "retries_per_cycle", "attempt",
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
	char line[4096], *head[128], *row[128];
	int nh = 0, rows = 0, width_ok = 1, resume = -1, names_ok = 1;
	bool failed_empty = false;
	FILE *f;

	if (!tap_ok(report_csv(path, &view) == 0, "report_csv returns 0"))
		return;
	f = fopen(path, "r");
	if (!tap_ok(f && fgets(line, sizeof(line), f), "CSV readable"))
		goto out;
	nh = split(line, head, 128);
	for (int i = 0; i < nh; i++) {
		if (!strcmp(head[i], "resume_latency_s"))
			resume = i;
		if (!unit_named(head[i]) && !in_list(head[i], unitless, N(unitless)) &&
		    !in_list(head[i], strings, N(strings)) && !has_suffix(head[i], "_device")) {
			tap_diag("column without a unit: %s", head[i]);
			names_ok = 0;
		}
	}
	tap_ok(names_ok && resume >= 0 && nh >= 20,
	       "CSV header: %d unit-suffixed columns", nh);
	while (fgets(line, sizeof(line), f)) {
		int n = split(line, row, 128);

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

int main(void)
{
	char dir[] = "/tmp/t_report_data.XXXXXX", path[600];
	struct lab_opts o;
	struct lab_result r;
	int failed = -1;

	if (!mkdtemp(dir)) {
		tap_ok(false, "mkdtemp");
		return tap_done();
	}
	reportrun_make(&o, &r, &failed);
	view.o = &o;
	view.r = &r;
	view.n_sum = lab_summarise(&o, &r, (struct lab_summary **)&view.sum);

	snprintf(path, sizeof(path), "%s/latency.json", dir);
	check_json(path, &r, failed);
	unlink(path);
	snprintf(path, sizeof(path), "%s/latency.csv", dir);
	check_csv(path, &r, failed);
	unlink(path);
	free((void *)view.sum);

	/* the JSON and CSV writers leave no temporary file beside their output */
	tap_ok(rmdir(dir) == 0, "temporary directory empty and removed");
	return tap_done();
}

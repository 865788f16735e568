#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stats.h"

#define MIB 1048576.0
#define FLOOR_METHOD "fio sequential 1 MiB direct writes"

/* Per-cycle columns of the CSV; the JSON has every phase instead. */
static const char *const csv_phases[] = {
	"freeze_processes", "dpm_suspend", "machine_suspend", "dpm_resume",
};

static void report_err(const char *what, const char *path, int err)
{
	fprintf(stderr, "suspend-lab: %s %s: %s\n", what, path, strerror(err));
}

/* ---- per-cycle metrics; <0 is "not measured" throughout ---- */

typedef double (*metric_fn)(const struct cycle_record *rec);

static double m_suspend(const struct cycle_record *rec)
{
	return rec->suspend_latency_s;
}

static double m_resume(const struct cycle_record *rec)
{
	return rec->resume_latency_s;
}

static double m_sync(const struct cycle_record *rec)
{
	return rec->sync_phase_s;
}

static double m_ratio(const struct cycle_record *rec)
{
	return rec->sync_phase_s > 0 && rec->floor_s > 0 ?
		rec->sync_phase_s / rec->floor_s : -1;
}

/*
 * meminfo comes with the agent's acknowledgement of the request; a cycle
 * that never got that far holds zeros nobody measured.
 */
static double m_dirty_kb(const struct cycle_record *rec)
{
	return rec->c.req_host > 0 && rec->c.dirty_kb >= 0 ?
		(double)rec->c.dirty_kb : -1;
}

static double m_writeback_kb(const struct cycle_record *rec)
{
	return rec->c.req_host > 0 && rec->c.writeback_kb >= 0 ?
		(double)rec->c.writeback_kb : -1;
}

static bool measured(double v)
{
	return isfinite(v) && v >= 0;
}

/* ---- configurations: state x sync x dirty, in the order of o ---- */

struct config {
	const char *state;
	int sync;
	uint64_t dirty;
	int n_ok, n_total;
	struct stats suspend, resume, sync_phase, ratio, dirty_kb;
};

static int n_configs(const struct lab_opts *o)
{
	return o->n_states * o->n_syncs * o->n_dirty;
}

static int config_index(const struct lab_opts *o, int s, int y, int d)
{
	return (s * o->n_syncs + y) * o->n_dirty + d;
}

static bool config_has(const struct config *cf, const struct cycle_record *rec)
{
	return rec->state && !strcmp(rec->state, cf->state) &&
	       rec->sync == cf->sync && rec->dirty_target_bytes == cf->dirty;
}

/* Only OK cycles count: a failed one's partial timings look fast. */
static void config_stat(const struct lab_result *r, const struct config *cf,
			metric_fn fn, double *buf, struct stats *s)
{
	for (int i = 0; i < r->n; i++)
		buf[i] = config_has(cf, &r->rec[i]) &&
			 r->rec[i].c.verdict == VERDICT_OK ? fn(&r->rec[i]) : -1;
	stats_compute(buf, r->n, s);
}

static int config_get(const struct lab_opts *o, const struct lab_result *r,
		      int k, struct config *cf)
{
	int per_state = o->n_syncs * o->n_dirty;
	double *buf;

	memset(cf, 0, sizeof(*cf));
	cf->state = o->states[k / per_state];
	cf->sync = o->syncs[k % per_state / o->n_dirty];
	cf->dirty = o->dirty[k % o->n_dirty];
	buf = malloc((r->n ? r->n : 1) * sizeof(*buf));
	if (!buf)
		return -1;
	for (int i = 0; i < r->n; i++) {
		if (!config_has(cf, &r->rec[i]))
			continue;
		cf->n_total++;
		cf->n_ok += r->rec[i].c.verdict == VERDICT_OK;
	}
	config_stat(r, cf, m_suspend, buf, &cf->suspend);
	config_stat(r, cf, m_resume, buf, &cf->resume);
	config_stat(r, cf, m_sync, buf, &cf->sync_phase);
	config_stat(r, cf, m_ratio, buf, &cf->ratio);
	config_stat(r, cf, m_dirty_kb, buf, &cf->dirty_kb);
	free(buf);
	return 0;
}

/* ---- provenance helpers shared by the table and the plot ---- */

static const char *firmware_name(enum vm_firmware fw)
{
	return fw == VM_FW_UEFI ? "uefi" : "bios";
}

/* vm.c pairs the firmware with a machine type: OVMF wants q35 */
static const char *machine_name(enum vm_firmware fw)
{
	return fw == VM_FW_UEFI ? "q35" : "pc";
}

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static const char *accel_of(const struct lab_opts *o, const struct lab_result *r)
{
	return r->accel ? r->accel : o->accel;
}

static void profile_limits(char *buf, size_t n, const struct disk_profile *p)
{
	size_t len = 0;

	buf[0] = '\0';
	if (!p || (!p->write_bps && !p->write_iops)) {
		snprintf(buf, n, "unthrottled");
		return;
	}
	if (p->write_bps)
		len = snprintf(buf, n, "write %g MiB/s", p->write_bps / MIB);
	if (p->write_iops && len < n)
		snprintf(buf + len, n - len, "%s%llu write IOPS", len ? ", " : "",
			 (unsigned long long)p->write_iops);
}

static void fmt_mib(char *buf, size_t n, uint64_t bytes)
{
	snprintf(buf, n, "%.6g", bytes / MIB);
}

/* ---- table ---- */

static void col_ms(FILE *f, int w, double s)
{
	if (measured(s))
		fprintf(f, " %*.1f", w, s * 1000);
	else
		fprintf(f, " %*s", w, "-");
}

static void col_num(FILE *f, int w, const char *fmt, double v)
{
	char buf[32];

	if (!measured(v))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), fmt, v);
	fprintf(f, " %*s", w, buf);
}

static void table_header(FILE *f, const struct lab_opts *o,
			 const struct lab_result *r)
{
	char lim[96];

	profile_limits(lim, sizeof(lim), o->profile);
	fprintf(f, "suspend-lab %s, %s\n", LAB_VERSION, or_unknown(r->date));
	fprintf(f, "kernel    %s, knob %s\n", or_unknown(r->kernel_release),
		or_unknown(r->knob));
	fprintf(f, "qemu      %s, accel %s, firmware %s (machine %s)\n",
		or_unknown(r->qemu_version), or_unknown(accel_of(o, r)),
		firmware_name(o->firmware), machine_name(o->firmware));
	fprintf(f, "profile   %s: %s\n",
		or_unknown(o->profile ? o->profile->name : NULL), lim);
	if (r->floor_bps > 0)
		fprintf(f, "floor     %.1f MiB/s (%s)\n", r->floor_bps / MIB,
			FLOOR_METHOD);
	else
		fprintf(f, "floor     not measured\n");
	fprintf(f, "\nlatencies in ms over the OK cycles; sync/floor is the sync phase over dirty bytes / floor\n");
	fprintf(f, "%-6s %-4s %9s %8s %9s %9s %9s %9s %9s %10s %9s %10s\n",
		"state", "sync", "dirty_MiB", "ok/total", "susp_min", "susp_med",
		"susp_p95", "susp_max", "sync_med", "sync/floor", "resm_med",
		"dirty_kB");
}

static void table_row(FILE *f, const struct config *cf)
{
	char mib[24], ok[24];

	fmt_mib(mib, sizeof(mib), cf->dirty);
	snprintf(ok, sizeof(ok), "%d/%d", cf->n_ok, cf->n_total);
	fprintf(f, "%-6s %-4s %9s %8s", cf->state, cf->sync ? "on" : "off",
		mib, ok);
	col_ms(f, 9, cf->suspend.min);
	col_ms(f, 9, cf->suspend.median);
	col_ms(f, 9, cf->suspend.p95);
	col_ms(f, 9, cf->suspend.max);
	col_ms(f, 9, cf->sync_phase.median);
	col_num(f, 10, "%.2f", cf->ratio.median);
	col_ms(f, 9, cf->resume.median);
	col_num(f, 10, "%.0f", cf->dirty_kb.median);
	fputc('\n', f);
}

static void table_failures(FILE *f, const struct lab_result *r)
{
	for (int i = 0; i < r->n; i++) {
		const struct cycle_record *rec = &r->rec[i];
		char mib[24];

		if (rec->c.verdict == VERDICT_OK)
			continue;
		fmt_mib(mib, sizeof(mib), rec->dirty_target_bytes);
		fprintf(f, "failed: %s sync %s dirty %s MiB cycle %d: %s",
			rec->state ? rec->state : "?", rec->sync ? "on" : "off",
			mib, rec->index + 1, verdict_name(rec->c.verdict));
		if (rec->c.rc)
			fprintf(f, " (rc %d)", rec->c.rc);
		fputc('\n', f);
	}
}

void report_table(FILE *f, const struct lab_opts *o, const struct lab_result *r)
{
	struct config cf;

	table_header(f, o, r);
	for (int k = 0; k < n_configs(o); k++) {
		if (config_get(o, r, k, &cf)) {
			fprintf(stderr, "suspend-lab: table: out of memory\n");
			return;
		}
		table_row(f, &cf);
	}
	table_failures(f, r);
}

/* ---- JSON ---- */

static json_t *j_num(double v)
{
	return measured(v) ? json_real(v) : json_null();
}

/* kB counts from /proc/meminfo are integers; keep them so */
static json_t *j_kb(double v)
{
	return measured(v) ? json_integer((json_int_t)v) : json_null();
}

static json_t *j_str(const char *s)
{
	json_t *j = s && *s ? json_string(s) : NULL;

	return j ? j : json_null();
}

/* a profile limit of 0 means none, which is not a rate */
static json_t *j_limit(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

static json_t *j_stats(const struct stats *s)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:o}", "n", s->n,
			 "min", j_num(s->min), "median", j_num(s->median),
			 "p95", j_num(s->p95), "max", j_num(s->max));
}

static json_t *j_profile(const struct disk_profile *p)
{
	if (!p)
		return json_null();
	return json_pack("{s:o, s:o, s:o}", "name", j_str(p->name),
			 "write_bytes_per_s", j_limit(p->write_bps),
			 "write_iops", j_limit(p->write_iops));
}

static json_t *j_provenance(const struct lab_opts *o, const struct lab_result *r)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:o, s:o,"
			 " s:o, s:i, s:o}",
			 "program_version", LAB_VERSION,
			 "date", j_str(r->date),
			 "kernel_release", j_str(r->kernel_release),
			 "qemu_version", j_str(r->qemu_version),
			 "accel", j_str(accel_of(o, r)),
			 "firmware", firmware_name(o->firmware),
			 "machine", machine_name(o->firmware),
			 "profile", j_profile(o->profile),
			 "knob", j_str(r->knob),
			 "guest_mem_mib", r->mem_mib > 0 ?
				json_integer(r->mem_mib) : json_null(),
			 "cycles_per_config", o->cycles,
			 "boot_s", j_num(r->boot_s > 0 ? r->boot_s : -1));
}

static json_t *j_phases(const struct cycle *c)
{
	json_t *o = json_object();

	for (int i = 0; o && i < c->n_phases; i++) {
		const char *name = c->phases[i].name;
		double s = cycle_phase_s(c, name);

		if (s >= 0 && !json_object_get(o, name))
			json_object_set_new(o, name, json_real(s));
	}
	return o;
}

static json_t *j_cycle(const struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;

	bool skip = c->skip_events > 0;

	return json_pack("{s:o, s:i, s:I, s:i, s:s, s:i, s:o, s:o, s:o, s:o,"
			 " s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "state", j_str(rec->state),
			 "sync", rec->sync,
			 "dirty_target_bytes", (json_int_t)rec->dirty_target_bytes,
			 "cycle", rec->index + 1,
			 "verdict", verdict_name(c->verdict),
			 "rc", c->rc,
			 "dirty_at_request_kb", j_kb(m_dirty_kb(rec)),
			 "writeback_at_request_kb", j_kb(m_writeback_kb(rec)),
			 /* the kernel's own at-risk report, when it skipped */
			 "kernel_at_risk_dirty_kb", j_kb(skip ? c->skip_dirty_kb : -1),
			 "kernel_at_risk_writeback_kb",
				j_kb(skip ? c->skip_writeback_kb : -1),
			 "suspend_latency_s", j_num(rec->suspend_latency_s),
			 "suspend_latency_source", j_str(rec->suspend_latency_source),
			 "guest_suspend_latency_s", j_num(rec->guest_suspend_latency_s),
			 "resume_latency_s", j_num(rec->resume_latency_s),
			 "guest_resume_s", j_num(rec->guest_resume_s),
			 "fs_sync_log_s", j_num(c->fs_sync_s),
			 "sync_phase_s", j_num(rec->sync_phase_s),
			 "floor_s", j_num(rec->floor_s),
			 "sync_over_floor", j_num(m_ratio(rec)),
			 "phases_s", j_phases(c));
}

static json_t *j_config(const struct lab_opts *o, const struct config *cf)
{
	return json_pack("{s:s, s:i, s:I, s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:o}",
			 "state", cf->state,
			 "sync", cf->sync,
			 "dirty_target_bytes", (json_int_t)cf->dirty,
			 "profile", j_str(o->profile ? o->profile->name : NULL),
			 "n_ok", cf->n_ok,
			 "n_total", cf->n_total,
			 "suspend_latency_s", j_stats(&cf->suspend),
			 "resume_latency_s", j_stats(&cf->resume),
			 "sync_phase_s", j_stats(&cf->sync_phase),
			 "sync_over_floor", j_stats(&cf->ratio),
			 "dirty_at_request_kb", j_stats(&cf->dirty_kb));
}

/* NULL on allocation failure; json_pack drops its "o" arguments then. */
static json_t *j_report(const struct lab_opts *o, const struct lab_result *r)
{
	json_t *cycles = json_array(), *summary = json_array();
	struct config cf;
	bool ok = cycles && summary;

	for (int i = 0; ok && i < r->n; i++)
		ok = !json_array_append_new(cycles, j_cycle(&r->rec[i]));
	for (int k = 0; ok && k < n_configs(o); k++)
		ok = !config_get(o, r, k, &cf) &&
		     !json_array_append_new(summary, j_config(o, &cf));
	if (!ok) {
		json_decref(cycles);
		json_decref(summary);
		return NULL;
	}
	return json_pack("{s:s, s:o, s:{s:o, s:s}, s:o, s:o}",
			 "schema", REPORT_SCHEMA,
			 "provenance", j_provenance(o, r),
			 "floor", "write_bytes_per_s", j_num(r->floor_bps),
			 "method", FLOOR_METHOD,
			 "cycles", cycles,
			 "summary", summary);
}

int report_json(const char *path, const struct lab_opts *o,
		const struct lab_result *r)
{
	json_t *j = j_report(o, r);
	int rc;

	if (!j) {
		fprintf(stderr, "suspend-lab: JSON report %s: out of memory\n", path);
		return -1;
	}
	errno = 0;
	rc = json_dump_file(j, path, JSON_INDENT(2) | JSON_SORT_KEYS |
			    JSON_REAL_PRECISION(12));
	json_decref(j);
	if (rc) {
		report_err("cannot write JSON report", path, errno ? errno : EIO);
		return -1;
	}
	return 0;
}

/* ---- CSV ---- */

static void csv_num(FILE *f, double v)
{
	if (measured(v))
		fprintf(f, ",%.9g", v);
	else
		fputc(',', f);
}

/* Our strings are identifiers, but a stray comma must not shift columns. */
static void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_str(FILE *f, const char *s)
{
	fputc(',', f);
	csv_field(f, s);
}

static void csv_header(FILE *f)
{
	fputs("state,sync,dirty_target_bytes,cycle,verdict,rc,"
	      "dirty_at_request_kb,writeback_at_request_kb,suspend_latency_s,"
	      "suspend_latency_source,guest_suspend_latency_s,resume_latency_s,"
	      "fs_sync_log_s,sync_phase_s,floor_s,sync_over_floor", f);
	for (size_t i = 0; i < sizeof(csv_phases) / sizeof(csv_phases[0]); i++)
		fprintf(f, ",%s_s", csv_phases[i]);
	fputc('\n', f);
}

static void csv_row(FILE *f, const struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;

	csv_field(f, rec->state);
	fprintf(f, ",%d,%llu,%d", rec->sync,
		(unsigned long long)rec->dirty_target_bytes, rec->index + 1);
	csv_str(f, verdict_name(c->verdict));
	fprintf(f, ",%d", c->rc);
	csv_num(f, m_dirty_kb(rec));
	csv_num(f, m_writeback_kb(rec));
	csv_num(f, rec->suspend_latency_s);
	csv_str(f, rec->suspend_latency_source);
	csv_num(f, rec->guest_suspend_latency_s);
	csv_num(f, rec->resume_latency_s);
	csv_num(f, c->fs_sync_s);
	csv_num(f, rec->sync_phase_s);
	csv_num(f, rec->floor_s);
	csv_num(f, m_ratio(rec));
	for (size_t i = 0; i < sizeof(csv_phases) / sizeof(csv_phases[0]); i++)
		csv_num(f, cycle_phase_s(c, csv_phases[i]));
	fputc('\n', f);
}

int report_csv(const char *path, const struct lab_opts *o,
	       const struct lab_result *r)
{
	FILE *f;
	int err;

	(void)o;	/* every record carries its configuration */
	f = fopen(path, "w");
	if (!f) {
		report_err("cannot write CSV report", path, errno);
		return -1;
	}
	csv_header(f);
	for (int i = 0; i < r->n; i++)
		csv_row(f, &r->rec[i]);
	err = ferror(f) ? EIO : 0;
	if (fclose(f) && !err)
		err = errno;
	if (err) {
		report_err("cannot write CSV report", path, err);
		return -1;
	}
	return 0;
}

/* ---- plot ---- */

/* One line of the plot: a (state, sync) pair over ascending dirty sizes. */
struct series {
	const char *state;
	int sync;
	int n;
	double mib[LAB_MAX_DIRTY];
	double median[LAB_MAX_DIRTY], min[LAB_MAX_DIRTY], max[LAB_MAX_DIRTY];
};

struct plot {
	struct series line[LAB_MAX_STATES * LAB_MAX_SYNC];
	int n_lines;
	double xmax, ymax;
	char dir[256], data[300], script[300];
};

static void sort_dirty(const struct lab_opts *o, int *order)
{
	for (int i = 0; i < o->n_dirty; i++) {
		int j = i;

		for (; j > 0 && o->dirty[order[j - 1]] > o->dirty[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/* Lines with no OK cycle are left out: gnuplot rejects empty blocks. */
static int plot_collect(struct plot *pl, const struct lab_opts *o,
			const struct lab_result *r)
{
	int order[LAB_MAX_DIRTY];
	struct config cf;

	sort_dirty(o, order);
	for (int s = 0; s < o->n_states; s++)
	for (int y = 0; y < o->n_syncs; y++) {
		struct series *l = &pl->line[pl->n_lines];

		l->state = o->states[s];
		l->sync = o->syncs[y];
		l->n = 0;
		for (int d = 0; d < o->n_dirty; d++) {
			if (config_get(o, r, config_index(o, s, y, order[d]), &cf))
				return -1;
			if (cf.dirty / MIB > pl->xmax)
				pl->xmax = cf.dirty / MIB;
			if (!cf.suspend.n)
				continue;
			l->mib[l->n] = cf.dirty / MIB;
			l->median[l->n] = cf.suspend.median;
			l->min[l->n] = cf.suspend.min;
			l->max[l->n] = cf.suspend.max;
			if (cf.suspend.max > pl->ymax)
				pl->ymax = cf.suspend.max;
			l->n++;
		}
		if (l->n)
			pl->n_lines++;
	}
	return 0;
}

/* A gnuplot double-quoted string: \n breaks the line, \ and " escaped. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '\n')
			fputs("\\n", f);
		else if ((unsigned char)*s < ' ')
			continue;
		else if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* gnuplot data blocks, "index i" in the script: MiB median_s min_s max_s */
static void plot_data(FILE *f, const struct plot *pl)
{
	for (int i = 0; i < pl->n_lines; i++) {
		const struct series *l = &pl->line[i];

		fprintf(f, "%s# sync %s, %s: dirty_MiB median_s min_s max_s\n",
			i ? "\n\n" : "", l->sync ? "on" : "off", l->state);
		for (int k = 0; k < l->n; k++)
			fprintf(f, "%.9g %.9g %.9g %.9g\n", l->mib[k],
				l->median[k], l->min[k], l->max[k]);
	}
}

static void plot_script(FILE *f, const struct plot *pl, const char *out,
			bool svg, const struct lab_opts *o,
			const struct lab_result *r)
{
	char lim[96], title[512];

	profile_limits(lim, sizeof(lim), o->profile);
	snprintf(title, sizeof(title),
		 "Suspend latency against dirty page cache (median, min-max bars)\n"
		 "kernel %s, profile %s (%s), firmware %s, %s, %s",
		 or_unknown(r->kernel_release),
		 or_unknown(o->profile ? o->profile->name : NULL), lim,
		 firmware_name(o->firmware), or_unknown(accel_of(o, r)),
		 or_unknown(r->date));
	/* noenhanced: kernel releases are full of '_' and '^' is possible */
	if (svg)
		fputs("set terminal svg size 960,600 dynamic noenhanced"
		      " font 'sans,12' background rgb 'white'\n", f);
	else
		fputs("set terminal pngcairo size 1200,750 noenhanced"
		      " font 'sans,11'\n", f);
	fputs("set output ", f);
	gp_str(f, out);
	fputs("\nset title ", f);
	gp_str(f, title);
	fputs("\nD = ", f);
	gp_str(f, pl->data);
	fputs("\nset xlabel 'dirty page cache written before the request (MiB)'\n"
	      "set ylabel 'suspend latency, request to suspended (s)'\n"
	      "set key top left box opaque\nset grid\n", f);
	/* fixed ranges: gnuplot warns about empty autoscaled ones */
	fprintf(f, "set xrange [0:%.9g]\nset yrange [0:%.9g]\n",
		pl->xmax > 0 ? pl->xmax * 1.08 : 1,
		pl->ymax > 0 ? pl->ymax * 1.15 : 1);
	if (!pl->n_lines) {
		fputs("unset key\nset label 1 'no successful cycle to plot'"
		      " at graph 0.5,0.5 center\nplot NaN notitle\n", f);
		return;
	}
	for (int i = 0; i < pl->n_lines; i++)
		fprintf(f, "%s D index %d using 1:2:3:4 with yerrorlines lw 2 pt 7"
			" dt %d title \"sync %s, %s\"", i ? ", \\\n    " : "plot",
			i, pl->line[i].sync ? 1 : 2, pl->line[i].sync ? "on" : "off",
			pl->line[i].state);
	fputc('\n', f);
}

static int write_file(const char *path, void (*fn)(FILE *f, const void *ctx),
		      const void *ctx)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f)
		return -1;
	fn(f, ctx);
	err = ferror(f);
	return fclose(f) || err ? -1 : 0;
}

struct script_ctx {
	const struct plot *pl;
	const char *out;
	bool svg;
	const struct lab_opts *o;
	const struct lab_result *r;
};

static void data_cb(FILE *f, const void *ctx)
{
	plot_data(f, ctx);
}

static void script_cb(FILE *f, const void *ctx)
{
	const struct script_ctx *c = ctx;

	plot_script(f, c->pl, c->out, c->svg, c->o, c->r);
}

static int plot_files(struct plot *pl, const struct script_ctx *sc)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(pl->dir, sizeof(pl->dir), "%s/slab-plot.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(pl->dir)) {
		report_err("plot: cannot make a directory like", pl->dir, errno);
		pl->dir[0] = '\0';
		return -1;
	}
	snprintf(pl->data, sizeof(pl->data), "%s/latency.dat", pl->dir);
	snprintf(pl->script, sizeof(pl->script), "%s/latency.gp", pl->dir);
	if (write_file(pl->data, data_cb, pl) ||
	    write_file(pl->script, script_cb, sc)) {
		report_err("plot: cannot write the gnuplot input in", pl->dir,
			   errno ? errno : EIO);
		return -1;
	}
	return 0;
}

static void plot_cleanup(struct plot *pl)
{
	if (!pl->dir[0])
		return;
	unlink(pl->data);
	unlink(pl->script);
	rmdir(pl->dir);
}

/* $GNUPLOT names another binary; the tests use it to fake a missing one. */
static int plot_run(const struct plot *pl, const char *out)
{
	const char *gp = getenv("GNUPLOT");
	posix_spawn_file_actions_t fa;
	char *argv[3];
	struct stat st;
	int err, status;
	pid_t pid;

	if (!gp || !*gp)
		gp = "gnuplot";
	argv[0] = (char *)gp;
	argv[1] = (char *)pl->script;
	argv[2] = NULL;
	/* gnuplot reads the script file; a terminal on stdin must not matter */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	err = posix_spawnp(&pid, gp, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err == ENOENT) {
		fprintf(stderr, "suspend-lab: plot: %s not found; apt-get install gnuplot-nox\n",
			gp);
		return -1;
	}
	if (err) {
		report_err("plot: cannot run", gp, err);
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			report_err("plot: lost", gp, errno);
			return -1;
		}
	if (WIFEXITED(status) && !WEXITSTATUS(status) && !stat(out, &st) &&
	    st.st_size > 0)
		return 0;
	fprintf(stderr, "suspend-lab: plot: %s did not render %s (wait status %#x)\n",
		gp, out, status);
	unlink(out);	/* a half-written plot would pass for a result */
	return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

int report_plot(const char *path, const struct lab_opts *o,
		const struct lab_result *r)
{
	struct plot pl;
	struct script_ctx sc = { &pl, path, ends_with(path, ".svg"), o, r };
	int rc;

	if (!sc.svg && !ends_with(path, ".png")) {
		fprintf(stderr, "suspend-lab: plot: %s: name it *.svg or *.png\n",
			path);
		return -1;
	}
	memset(&pl, 0, sizeof(pl));
	if (plot_collect(&pl, o, r)) {
		fprintf(stderr, "suspend-lab: plot: out of memory\n");
		return -1;
	}
	rc = plot_files(&pl, &sc);
	if (!rc)
		rc = plot_run(&pl, path);
	plot_cleanup(&pl);
	return rc;
}

/* The lab's table, JSON and CSV, rendered from its summary. */
#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "cliopt.h"
#include "csv.h"
#include "outfile.h"

#define MIB 1048576.0
#define FLOOR_METHOD "fio sequential 1 MiB direct writes"

/* Per-cycle columns of the CSV; the JSON has every phase instead. */
static const char *const csv_phases[] = {
	"freeze_processes", "dpm_suspend", "machine_suspend", "dpm_resume",
};

const char *report_firmware_name(enum vm_firmware fw)
{
	return fw == VM_FW_UEFI ? "uefi" : "bios";
}

/* vm.c pairs the firmware with a machine type: OVMF wants q35 */
const char *report_machine_name(enum vm_firmware fw)
{
	return fw == VM_FW_UEFI ? "q35" : "pc";
}

void report_profile_limits(char *buf, size_t n, const struct disk_profile *p)
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

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

static const char *accel_of(const struct lab_view *v)
{
	return v->r->accel ? v->r->accel : v->o->hx.accel;
}

/* ---- table ---- */

static void col_ms(FILE *f, int w, double s)
{
	if (isnan(s))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.1f", w, s * 1000);
}

static void col_num(FILE *f, int w, const char *fmt, double v)
{
	char buf[32];

	if (isnan(v))
		snprintf(buf, sizeof(buf), "-");
	else
		snprintf(buf, sizeof(buf), fmt, v);
	fprintf(f, " %*s", w, buf);
}

static void table_header(FILE *f, const struct lab_view *v)
{
	const struct lab_opts *o = v->o;
	const struct lab_result *r = v->r;
	char lim[96];

	report_profile_limits(lim, sizeof(lim), o->hx.profile);
	fprintf(f, "suspend-lab %s, %s\n", LAB_VERSION, or_unknown(r->date));
	fprintf(f, "kernel    %s, knob %s\n", or_unknown(r->kernel_release),
		or_unknown(r->knob));
	fprintf(f, "qemu      %s, accel %s, firmware %s (machine %s)\n",
		or_unknown(r->qemu_version), or_unknown(accel_of(v)),
		report_firmware_name(o->hx.firmware), report_machine_name(o->hx.firmware));
	fprintf(f, "profile   %s: %s\n", or_unknown(o->hx.profile ? o->hx.profile->name : NULL), lim);
	if (r->floor_bps > 0)
		fprintf(f, "floor     %.1f MiB/s (%s)\n", r->floor_bps / MIB, FLOOR_METHOD);
	else
		fprintf(f, "floor     not measured\n");
	fprintf(f, "\nlatencies in ms over the OK cycles; sync/floor is the sync phase over dirty bytes / floor\n");
	fprintf(f, "%-6s %-4s %-10s %-7s %9s %8s %9s %9s %9s %9s %10s %9s %9s %9s %10s\n",
		"state", "sync", "workload", "wb", "size_MiB", "ok/total", "susp_med", "susp_p95",
		"susp_max", "sync_med", "sync/floor", "resm_med", "resm_p95",
		"resm_max", "dirty_kB");
}

static void table_row(FILE *f, const struct lab_summary *cf)
{
	char mib[24], ok[24];

	snprintf(mib, sizeof(mib), "%.6g", cf->dirty / MIB);
	snprintf(ok, sizeof(ok), "%d/%d", cf->n_ok, cf->n_total);
	fprintf(f, "%-6s %-4s %-10s %-7s %9s %8s", cf->state, cf->sync ? "on" : "off",
		cf->cf.workload->name, writeback_name(cf->cf.wb), mib, ok);
	col_ms(f, 9, cf->suspend.median);
	col_ms(f, 9, cf->suspend.p95);
	col_ms(f, 9, cf->suspend.max);
	col_ms(f, 9, cf->sync_phase.median);
	col_num(f, 10, "%.2f", cf->ratio.median);
	col_ms(f, 9, cf->resume.median);
	col_ms(f, 9, cf->resume.p95);
	col_ms(f, 9, cf->resume.max);
	col_num(f, 10, "%.0f", cf->dirty_kb.median);
	fputc('\n', f);
}

/* Where the resume went: each span's median, p95 and max. */
static void table_spans(FILE *f, const struct lab_view *v)
{
	fprintf(f, "\nresume spans in ms, median/p95/max over the OK cycles (README: where resume goes)\n");
	fprintf(f, "%-6s %-4s %-10s %-7s %9s", "state", "sync", "workload", "wb", "size_MiB");
	for (int k = 0; k < LAB_SPANS; k++)
		fprintf(f, " %20s", lab_span_names[k]);
	fputc('\n', f);
	for (int i = 0; i < v->n_sum; i++) {
		const struct lab_summary *cf = &v->sum[i];

		fprintf(f, "%-6s %-4s %-10s %-7s %9.6g", cf->state, cf->sync ? "on" : "off",
			cf->cf.workload->name, writeback_name(cf->cf.wb), cf->dirty / MIB);
		for (int k = 0; k < LAB_SPANS; k++) {
			char b[64];

			if (cf->span[k].n)
				snprintf(b, sizeof(b), "%.1f/%.1f/%.1f", cf->span[k].median * 1000,
					 cf->span[k].p95 * 1000, cf->span[k].max * 1000);
			else
				snprintf(b, sizeof(b), "-");
			fprintf(f, " %20s", b);
		}
		fputc('\n', f);
	}
}

void report_table(FILE *f, const struct lab_view *v)
{
	table_header(f, v);
	for (int k = 0; k < v->n_sum; k++)
		table_row(f, &v->sum[k]);
	table_spans(f, v);
	for (int i = 0; i < v->r->n; i++) {
		const struct cycle_record *rec = &v->r->rec[i];

		if (rec->c.verdict == VERDICT_OK)
			continue;
		fprintf(f, "failed: %s sync %s %s/%s %.6g MiB cycle %d: %s%s%s\n",
			rec->state ? rec->state : "?", rec->sync ? "on" : "off",
			rec->workload ? rec->workload->name : "?", writeback_name(rec->wb),
			rec->dirty_target_bytes / MIB, rec->index + 1,
			verdict_name(rec->c.verdict), rec->c.why[0] ? ": " : "",
			rec->c.why);
	}
}

/* ---- JSON ---- */

static json_t *j_num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* kB counts from /proc/meminfo are integers; keep them so */
static json_t *j_kb(long long v)
{
	return v >= 0 ? json_integer(v) : json_null();
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
	return json_pack("{s:o, s:o, s:o, s:i, s:b}", "name", j_str(p->name),
			 "write_bytes_per_s", j_limit(p->write_bps),
			 "write_iops", j_limit(p->write_iops),
			 "flush_ms", p->flush_ms, "volatile_cache", p->volatile_cache);
}

static json_t *j_provenance(const struct lab_view *v)
{
	const struct lab_opts *o = v->o;
	const struct lab_result *r = v->r;

	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:o, s:o, s:o, s:i,"
			 " s:o, s:i}",
			 "program_version", LAB_VERSION,
			 "date", j_str(r->date),
			 "kernel_release", j_str(r->kernel_release),
			 "qemu_version", j_str(r->qemu_version),
			 "accel", j_str(accel_of(v)),
			 "firmware", report_firmware_name(o->hx.firmware),
			 "machine", report_machine_name(o->hx.firmware),
			 "profile", j_profile(o->hx.profile),
			 "knob", j_str(r->knob),
			 "guest_mem_mib", r->mem_mib > 0 ? json_integer(r->mem_mib) : json_null(),
			 "cycles_per_config", o->cycles,
			 "boot_s", r->boot_s >= 0 ? json_real(r->boot_s) : json_null(),
			 "boots", r->boots);
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

static json_t *j_spans(const struct cycle_record *rec)
{
	json_t *o = json_object();

	for (int k = 0; o && k < LAB_SPANS; k++)
		json_object_set_new(o, lab_span_names[k], j_num(lab_span(rec, k)));
	if (o)
		json_object_set_new(o, "clock_step", j_num(rec->clock_step_s));
	return o;
}

static json_t *j_span_stats(const struct lab_summary *cf)
{
	json_t *o = json_object();

	for (int k = 0; o && k < LAB_SPANS; k++)
		json_object_set_new(o, lab_span_names[k], j_stats(&cf->span[k]));
	return o;
}

static json_t *j_cycle(const struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;
	bool skip = c->skip_events > 0;

	return json_pack("{s:o, s:i, s:s, s:s, s:o, s:I, s:i, s:s, s:o, s:i, s:o, s:o, s:o, s:o,"
			 " s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "state", j_str(rec->state),
			 "sync", rec->sync,
			 "workload", rec->workload ? rec->workload->name : "?",
			 "writeback", writeback_name(rec->wb),
			 "request_after_s", j_num(rec->request_after_s),
			 "dirty_target_bytes", (json_int_t)rec->dirty_target_bytes,
			 "cycle", rec->index + 1,
			 "verdict", verdict_name(c->verdict),
			 "why", json_string(c->why),
			 "rc", c->rc,
			 "dirty_at_request_kb", j_kb(c->dirty_kb),
			 "writeback_at_request_kb", j_kb(c->writeback_kb),
			 /* the kernel's own at-risk report, when it skipped */
			 "kernel_at_risk_dirty_kb", j_kb(skip ? c->skip_dirty_kb : -1),
			 "kernel_at_risk_writeback_kb", j_kb(skip ? c->skip_writeback_kb : -1),
			 "suspend_latency_s", j_num(rec->suspend_latency_s),
			 "suspend_latency_source", j_str(rec->suspend_latency_source),
			 "guest_suspend_latency_s", j_num(rec->guest_suspend_latency_s),
			 "resume_latency_s", j_num(rec->resume_latency_s),
			 "guest_resume_s", j_num(rec->guest_resume_s),
			 "fs_sync_log_s", j_num(c->fs_sync_s >= 0 ? c->fs_sync_s : NAN),
			 "sync_phase_s", j_num(rec->sync_phase_s),
			 "floor_s", j_num(rec->floor_s),
			 "sync_over_floor", j_num(rec->sync_over_floor),
			 "phases_s", j_phases(c),
			 "resume_spans_s", j_spans(rec));
}

static json_t *j_config(const struct lab_view *v, const struct lab_summary *cf)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:I, s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:o,"
			 " s:o, s:o}",
			 "state", cf->state,
			 "sync", cf->sync,
			 "workload", cf->cf.workload->name,
			 "writeback", writeback_name(cf->cf.wb),
			 "dirty_target_bytes", (json_int_t)cf->dirty,
			 "profile", j_str(v->o->hx.profile ? v->o->hx.profile->name : NULL),
			 "n_ok", cf->n_ok,
			 "n_total", cf->n_total,
			 "suspend_latency_s", j_stats(&cf->suspend),
			 "resume_latency_s", j_stats(&cf->resume),
			 "guest_resume_s", j_stats(&cf->guest_resume),
			 "sync_phase_s", j_stats(&cf->sync_phase),
			 "sync_over_floor", j_stats(&cf->ratio),
			 "dirty_at_request_kb", j_stats(&cf->dirty_kb),
			 "resume_spans_s", j_span_stats(cf));
}

/* NULL on allocation failure; json_pack drops its "o" arguments then. */
static json_t *j_report(const struct lab_view *v)
{
	json_t *cycles = json_array(), *summary = json_array();
	bool ok = cycles && summary;

	for (int i = 0; ok && i < v->r->n; i++)
		ok = !json_array_append_new(cycles, j_cycle(&v->r->rec[i]));
	for (int k = 0; ok && k < v->n_sum; k++)
		ok = !json_array_append_new(summary, j_config(v, &v->sum[k]));
	if (!ok) {
		json_decref(cycles);
		json_decref(summary);
		return NULL;
	}
	return json_pack("{s:s, s:o, s:{s:o, s:s}, s:o, s:o}",
			 "schema", REPORT_SCHEMA,
			 "provenance", j_provenance(v),
			 "floor", "write_bytes_per_s",
			 j_num(v->r->floor_bps > 0 ? v->r->floor_bps : NAN),
			 "method", FLOOR_METHOD,
			 "cycles", cycles,
			 "summary", summary);
}

static int dump_json(FILE *f, const void *ctx)
{
	return json_dumpf(ctx, f, JSON_INDENT(2) | JSON_SORT_KEYS |
			  JSON_REAL_PRECISION(12)) ? -1 : 0;
}

int report_json(const char *path, const struct lab_view *v)
{
	json_t *j = j_report(v);
	int rc;

	if (!j) {
		fprintf(stderr, "%s: JSON report %s: out of memory\n", cli_prog, path);
		return -1;
	}
	rc = outfile_write(path, dump_json, j);
	json_decref(j);
	return rc;
}

/* ---- CSV ---- */

static int write_csv(FILE *f, const void *ctx)
{
	static const char *const cols[] = {
		"state", "sync", "workload", "writeback", "request_after_s",
		"dirty_target_bytes", "cycle", "verdict",
		"rc", "dirty_at_request_kb", "writeback_at_request_kb",
		"suspend_latency_s", "suspend_latency_source",
		"guest_suspend_latency_s", "resume_latency_s", "guest_resume_s",
		"fs_sync_log_s", "sync_phase_s", "floor_s", "sync_over_floor",
		"freeze_processes_s", "dpm_suspend_s", "machine_suspend_s", "dpm_resume_s",
		"span_wake_s", "span_kernel_s", "span_agent_s", "span_channel_s",
		"span_remainder_s", "clock_step_s",
	};
	const struct lab_view *v = ctx;
	struct csv c;

	csv_begin(&c, f, cols, sizeof(cols) / sizeof(cols[0]));
	for (int i = 0; i < v->r->n; i++) {
		const struct cycle_record *rec = &v->r->rec[i];

		csv_str(&c, rec->state);
		csv_int(&c, rec->sync);
		csv_str(&c, rec->workload ? rec->workload->name : "?");
		csv_str(&c, writeback_name(rec->wb));
		csv_num(&c, rec->request_after_s);
		csv_int(&c, (long long)rec->dirty_target_bytes);
		csv_int(&c, rec->index + 1);
		csv_str(&c, verdict_name(rec->c.verdict));
		csv_int(&c, rec->c.rc);
		csv_kb(&c, rec->c.dirty_kb);
		csv_kb(&c, rec->c.writeback_kb);
		csv_num(&c, rec->suspend_latency_s);
		csv_str(&c, rec->suspend_latency_source);
		csv_num(&c, rec->guest_suspend_latency_s);
		csv_num(&c, rec->resume_latency_s);
		csv_num(&c, rec->guest_resume_s);
		csv_num(&c, rec->c.fs_sync_s >= 0 ? rec->c.fs_sync_s : NAN);
		csv_num(&c, rec->sync_phase_s);
		csv_num(&c, rec->floor_s);
		csv_num(&c, rec->sync_over_floor);
		for (size_t k = 0; k < sizeof(csv_phases) / sizeof(csv_phases[0]); k++) {
			double s = cycle_phase_s(&rec->c, csv_phases[k]);

			csv_num(&c, s >= 0 ? s : NAN);
		}
		for (int k = 0; k < LAB_SPANS; k++)
			csv_num(&c, lab_span(rec, k));
		csv_num(&c, rec->clock_step_s);
		csv_end_row(&c);
	}
	return csv_finish(&c);
}

int report_csv(const char *path, const struct lab_view *v)
{
	return outfile_write(path, write_csv, v);
}

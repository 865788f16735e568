/* The lab's table for the terminal, rendered from its summary. */
#define _GNU_SOURCE
#include "escape.h"
#include "report.h"

#include <math.h>
#include <string.h>

#define MIB 1048576.0
#define FLOOR_METHOD "fio sequential 1 MiB direct writes"

static const char *or_unknown(const char *s)
{
	return s && *s ? s : "unknown";
}

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
	/* the guest names its kernel: shown, never a terminal's control code */
	fputs("kernel    ", f);
	text_line(f, or_unknown(r->kernel_release));
	fputs(", knob ", f);
	text_line(f, or_unknown(r->knob));
	fputc('\n', f);
	fprintf(f, "qemu      %s, accel %s, firmware %s (machine %s)\n",
		or_unknown(r->qemu_version), or_unknown(report_accel(v)),
		report_firmware_name(o->hx.firmware), report_machine_name(o->hx.firmware));
	fprintf(f, "profile   %s: %s; filesystem %s\n",
		or_unknown(o->hx.profile ? o->hx.profile->name : NULL), lim, o->hx.fs->name);
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

/* What the sync cost the device, and the profile's prediction of it. */
static void table_device(FILE *f, const struct lab_view *v)
{
	bool any = false;

	for (int i = 0; i < v->n_sum; i++)
		any |= v->sum[i].sync_writes.n > 0;
	if (!any)
		return;
	fprintf(f, "\nthe sync on the device, medians over the OK cycles: requests, MiB, flushes;\n"
		"predicted = max(bytes / bandwidth, requests / IOPS) + flushes x flush latency\n");
	fprintf(f, "%-6s %-4s %-10s %-7s %9s %9s %9s %8s %9s %9s %10s\n", "state", "sync",
		"workload", "wb", "size_MiB", "writes", "MiB", "flushes", "sync_ms", "pred_ms",
		"meas/pred");
	for (int i = 0; i < v->n_sum; i++) {
		const struct lab_summary *cf = &v->sum[i];

		if (!cf->sync_writes.n)
			continue;
		fprintf(f, "%-6s %-4s %-10s %-7s %9.6g", cf->state, cf->sync ? "on" : "off",
			cf->cf.workload->name, writeback_name(cf->cf.wb), cf->dirty / MIB);
		col_num(f, 9, "%.0f", cf->sync_writes.median);
		col_num(f, 9, "%.1f", cf->sync_bytes.median / MIB);
		col_num(f, 8, "%.0f", cf->sync_flushes.median);
		col_ms(f, 9, cf->sync_phase.median);
		col_ms(f, 9, cf->sync_predicted.median);
		col_num(f, 10, "%.2f", cf->sync_over_predicted.median);
		fputc('\n', f);
	}
}

/* How much of each window the host took: what the latencies are not. */
static void table_host(FILE *f, const struct lab_view *v)
{
	fprintf(f, "\nthe host's share in ms, median/max over the OK cycles: QEMU stopped, the harness\n"
		"late, QEMU's threads waiting for a CPU other tasks used (HostStall past %.1f s and %.0f%% of a window)\n",
		HOSTLOAD_STALL_MIN_S, HOSTLOAD_STALL_FRAC * 100);
	fprintf(f, "%-6s %-4s %-10s %-7s %9s %17s %17s %11s\n", "state", "sync", "workload", "wb",
		"size_MiB", "suspend", "resume", "resume_ms");
	for (int i = 0; i < v->n_sum; i++) {
		const struct lab_summary *cf = &v->sum[i];
		const struct stats *w[2] = { &cf->host_suspend, &cf->host_resume };

		fprintf(f, "%-6s %-4s %-10s %-7s %9.6g", cf->state, cf->sync ? "on" : "off",
			cf->cf.workload->name, writeback_name(cf->cf.wb), cf->dirty / MIB);
		for (int k = 0; k < 2; k++) {
			char b[64];

			if (w[k]->n)
				snprintf(b, sizeof(b), "%.1f/%.1f", w[k]->median * 1000,
					 w[k]->max * 1000);
			else
				snprintf(b, sizeof(b), "-");
			fprintf(f, " %17s", b);
		}
		col_ms(f, 11, cf->resume.median);
		fputc('\n', f);
	}
}

/* Attempts the host took, each measured again: what the OK cycles are not. */
static void table_stalls(FILE *f, const struct lab_view *v)
{
	int n = lab_stalled_attempts(v->r);

	if (!n)
		return;
	fprintf(f, "\nhost stalls: %d attempt(s) the host took (HostStall), not measurements;"
		" a cycle is measured again up to %d time(s)\n", n, lab_stall_retries(v->o));
	for (int i = 0; i < v->r->n; i++) {
		const struct cycle_record *rec = &v->r->rec[i];

		for (int k = 0; k < rec->n_stalls; k++)
			fprintf(f, "stalled: %s sync %s %s/%s %.6g MiB cycle %d attempt %d, measured again: %s: %s\n",
				rec->state ? rec->state : "?", rec->sync ? "on" : "off",
				rec->workload ? rec->workload->name : "?", writeback_name(rec->wb),
				rec->dirty_target_bytes / MIB, rec->index + 1, rec->stalls[k].attempt,
				verdict_name(VERDICT_HOST_STALL), rec->stalls[k].why);
	}
}

void report_table(FILE *f, const struct lab_view *v)
{
	table_header(f, v);
	for (int k = 0; k < v->n_sum; k++)
		table_row(f, &v->sum[k]);
	table_spans(f, v);
	table_device(f, v);
	table_host(f, v);
	table_stalls(f, v);
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


/* The lab's CSV: one row per cycle, through the one CSV writer. */
#define _GNU_SOURCE
#include "report.h"

#include <math.h>
#include <string.h>

#include "csv.h"
#include "outfile.h"

/* Per-cycle columns of the CSV; the JSON has every phase instead. */
static const char *const csv_phases[] = {
	"freeze_processes", "dpm_suspend", "machine_suspend", "dpm_resume",
};

/* requests, bytes, flushes (and the flush time): empty when not counted */
static void csv_counts(struct csv *c, const struct dev_counts *d, bool time)
{
	csv_num(c, d ? (double)d->wr_ops : NAN);
	csv_num(c, d ? (double)(d->wr_bytes + d->zero_bytes) : NAN);
	csv_num(c, d ? (double)d->flush_ops : NAN);
	if (time)
		csv_num(c, d ? d->flush_time_s : NAN);
}

static void csv_host(struct csv *c, const struct host_window *w)
{
	csv_num(c, w->measured ? hostload_taken(w) : NAN);
	csv_num(c, w->measured ? w->stopped_s : NAN);
	csv_num(c, w->measured ? w->wait_s : NAN);
	csv_num(c, w->measured && isfinite(w->others_cpu_s) ? w->others_cpu_s : NAN);
}

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
		"span_remainder_s", "clock_step_s", "dev_sync_source",
		"dev_sync_write_requests", "dev_sync_write_bytes", "dev_sync_flush_requests",
		"dev_sync_flush_time_s", "dev_suspend_write_requests",
		"dev_suspend_write_bytes", "dev_suspend_flush_requests",
		"sync_predicted_s", "sync_over_predicted",
		"host_suspend_taken_s", "host_suspend_qemu_stopped_s", "host_suspend_run_queue_wait_s",
		"host_suspend_others_cpu_s",
		"host_resume_taken_s", "host_resume_qemu_stopped_s", "host_resume_run_queue_wait_s",
		"host_resume_others_cpu_s",
		/* devcb.h's phases, in order */
		"dev_suspend_prepare_slowest_device", "dev_suspend_prepare_slowest_s",
		"dev_suspend_slowest_device", "dev_suspend_slowest_s",
		"dev_suspend_late_slowest_device", "dev_suspend_late_slowest_s",
		"dev_suspend_noirq_slowest_device", "dev_suspend_noirq_slowest_s",
		"dev_resume_noirq_slowest_device", "dev_resume_noirq_slowest_s",
		"dev_resume_early_slowest_device", "dev_resume_early_slowest_s",
		"dev_resume_slowest_device", "dev_resume_slowest_s",
		"dev_resume_complete_slowest_device", "dev_resume_complete_slowest_s",
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
		csv_str(&c, rec->dev_sync_source);
		csv_counts(&c, strcmp(rec->dev_sync_source, "none") ? &rec->dev_sync : NULL, true);
		csv_counts(&c, rec->dev_measured ? &rec->dev_suspend : NULL, false);
		csv_num(&c, rec->sync_predicted_s);
		csv_num(&c, rec->sync_over_predicted);
		csv_host(&c, &rec->host_suspend);
		csv_host(&c, &rec->host_resume);
		for (int p = 0; p < DEVCB__PHASES; p++) {
			struct devcb_time t;
			bool any = devcb_slowest(&rec->c, p, &t, 1) == 1;

			csv_str(&c, any ? t.dev : "");
			csv_num(&c, any ? t.s : NAN);
		}
		csv_end_row(&c);
	}
	return csv_finish(&c);
}

int report_csv(const char *path, const struct lab_view *v)
{
	return outfile_write(path, write_csv, v);
}

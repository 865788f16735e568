#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool same_config(const struct lab_summary *cf, const struct cycle_record *rec)
{
	return rec->state && !strcmp(rec->state, cf->state) &&
	       rec->sync == cf->sync && rec->dirty_target_bytes == cf->dirty &&
	       rec->workload == cf->cf.workload && rec->wb == cf->cf.wb;
}

typedef double (*metric_fn)(const struct cycle_record *rec);

static double m_suspend(const struct cycle_record *r) { return r->suspend_latency_s; }
static double m_resume(const struct cycle_record *r) { return r->resume_latency_s; }
static double m_sync(const struct cycle_record *r) { return r->sync_phase_s; }
static double m_ratio(const struct cycle_record *r) { return r->sync_over_floor; }
static double m_guest_resume(const struct cycle_record *r) { return r->guest_resume_s; }
static double m_pred(const struct cycle_record *r) { return r->sync_predicted_s; }
static double host(const struct host_window *w) { return w->measured ? hostload_taken(w) : NAN; }
static double m_host_suspend(const struct cycle_record *r) { return host(&r->host_suspend); }
static double m_host_resume(const struct cycle_record *r) { return host(&r->host_resume); }
static double m_pred_ratio(const struct cycle_record *r) { return r->sync_over_predicted; }
/* device counts exist only where a sync was counted */
static double dev(const struct cycle_record *r, double v)
{
	return strcmp(r->dev_sync_source, "none") ? v : NAN;
}
static double m_sync_writes(const struct cycle_record *r) { return dev(r, r->dev_sync.wr_ops); }
static double m_sync_bytes(const struct cycle_record *r)
{
	return dev(r, r->dev_sync.wr_bytes + r->dev_sync.zero_bytes);
}
static double m_sync_flushes(const struct cycle_record *r) { return dev(r, r->dev_sync.flush_ops); }
static double m_dirty_kb(const struct cycle_record *r)
{
	return r->c.dirty_kb >= 0 ? (double)r->c.dirty_kb : NAN;
}

const char *const lab_span_names[LAB_SPANS] = {
	"wake", "kernel", "agent", "channel", "remainder",
};

double lab_span(const struct cycle_record *r, int k)
{
	const double v[LAB_SPANS] = {
		r->span_wake_s, r->span_kernel_s, r->span_agent_s,
		r->span_channel_s, r->span_remainder_s,
	};

	return k >= 0 && k < LAB_SPANS ? v[k] : NAN;
}

/* The configuration's OK cycles' device callbacks (devsum.h). */
static int devs_of(const struct lab_result *r, struct lab_summary *cf)
{
	const struct cycle_record **ok = malloc((r->n ? r->n : 1) * sizeof(*ok));
	int n = 0, rc;

	if (!ok)
		return -1;
	for (int i = 0; i < r->n; i++)
		if (same_config(cf, &r->rec[i]) && r->rec[i].c.verdict == VERDICT_OK)
			ok[n++] = &r->rec[i];
	rc = devsum_compute(ok, n, &cf->devs);
	free(ok);
	return rc;
}

static void stat_of(const struct lab_result *r, const struct lab_summary *cf,
		    metric_fn fn, double *buf, struct stats *s)
{
	for (int i = 0; i < r->n; i++)
		buf[i] = same_config(cf, &r->rec[i]) &&
			 r->rec[i].c.verdict == VERDICT_OK ? fn(&r->rec[i]) : NAN;
	stats_compute(buf, r->n, s);
}

int lab_summarise(const struct lab_opts *o, const struct lab_result *r,
		  struct lab_summary **out)
{
	int n = lab_n_configs(o);
	struct lab_summary *sum = calloc(n ? n : 1, sizeof(*sum));
	double *buf = malloc((r->n ? r->n : 1) * sizeof(*buf));
	bool oom = false;

	if (!sum || !buf) {
		free(sum);
		free(buf);
		return -1;
	}
	for (int k = 0; k < n; k++) {
		struct lab_summary *cf = &sum[k];

		lab_config_at(o, k, &cf->cf);
		cf->state = cf->cf.state;
		cf->sync = cf->cf.sync;
		cf->dirty = cf->cf.dirty;
		for (int i = 0; i < r->n; i++)
			if (same_config(cf, &r->rec[i])) {
				cf->n_total++;
				cf->n_ok += r->rec[i].c.verdict == VERDICT_OK;
				cf->n_stalled += r->rec[i].n_stalls +
						 (r->rec[i].c.verdict == VERDICT_HOST_STALL);
			}
		stat_of(r, cf, m_suspend, buf, &cf->suspend);
		stat_of(r, cf, m_resume, buf, &cf->resume);
		stat_of(r, cf, m_sync, buf, &cf->sync_phase);
		stat_of(r, cf, m_ratio, buf, &cf->ratio);
		stat_of(r, cf, m_dirty_kb, buf, &cf->dirty_kb);
		stat_of(r, cf, m_guest_resume, buf, &cf->guest_resume);
		stat_of(r, cf, m_sync_writes, buf, &cf->sync_writes);
		stat_of(r, cf, m_sync_bytes, buf, &cf->sync_bytes);
		stat_of(r, cf, m_sync_flushes, buf, &cf->sync_flushes);
		stat_of(r, cf, m_pred, buf, &cf->sync_predicted);
		stat_of(r, cf, m_pred_ratio, buf, &cf->sync_over_predicted);
		stat_of(r, cf, m_host_suspend, buf, &cf->host_suspend);
		stat_of(r, cf, m_host_resume, buf, &cf->host_resume);
		for (int k = 0; k < LAB_SPANS; k++) {
			for (int i = 0; i < r->n; i++)
				buf[i] = same_config(cf, &r->rec[i]) &&
					 r->rec[i].c.verdict == VERDICT_OK ?
					 lab_span(&r->rec[i], k) : NAN;
			stats_compute(buf, r->n, &cf->span[k]);
		}
		oom |= devs_of(r, cf) != 0;
	}
	free(buf);
	if (oom) {
		free(sum);
		return -1;
	}
	*out = sum;
	return n;
}

static void pc_add(struct pc_summary *s, const struct pc_record *r, double *lost,
		   int *n_lost)
{
	s->cuts++;
	if (r->verdict == VERDICT_NO_SUSPEND_EVENT)
		s->no_suspend++;
	if (!r->judged) {
		s->failed += r->verdict != VERDICT_NO_SUSPEND_EVENT;
		return;
	}
	s->judged++;
	s->written += r->bytes_written;
	s->dataset += r->dataset_bytes;
	s->dirty_at_cut += r->dirty_kb_at_cut > 0 ? r->dirty_kb_at_cut * 1024ULL : 0;
	s->lost += r->bytes_lost;
	lost[(*n_lost)++] = (double)r->bytes_lost;
	s->fsync_intact += r->fsync_intact;
	s->fs_clean += r->fs_clean;
	s->unmountable += r->verdict == VERDICT_FS_UNMOUNTABLE;
	for (int v = 0; v < FV__COUNT; v++)
		s->files[v] += r->n[v];
	s->unexpected_entries += r->n_unexpected;
	if (r->kernel_at_risk_kb >= 0) {
		s->kernel_figures++;
		s->within_figure += r->bytes_lost <= (uint64_t)r->kernel_at_risk_kb * 1024;
		s->within_slack += pc_loss_within_risk(r);
		if (r->at_risk_slack_kb > s->max_slack_kb)
			s->max_slack_kb = r->at_risk_slack_kb;
	}
}

int pc_summarise(const struct pc_result *run, struct pc_summary **out)
{
	struct pc_summary *sum = calloc(2 * (CUT__COUNT + 1), sizeof(*sum));
	double *lost = malloc((run->n ? run->n : 1) * sizeof(*lost));
	int n = 0;

	if (!sum || !lost) {
		free(sum);
		free(lost);
		return -1;
	}
	for (int sync = 0; sync <= 1; sync++)
		for (int cut = 0; cut <= CUT__COUNT; cut++) {
			struct pc_summary *s = &sum[n];
			int n_lost = 0;

			memset(s, 0, sizeof(*s));
			s->sync = sync;
			s->cut = cut;
			for (int i = 0; i < run->n; i++) {
				const struct pc_record *r = &run->rec[i];

				if (r->sync == sync && (cut == CUT__COUNT || (int)r->cut == cut))
					pc_add(s, r, lost, &n_lost);
			}
			stats_compute(lost, n_lost, &s->lost_bytes);
			if (s->cuts)
				n++;
		}
	free(lost);
	*out = sum;
	return n;
}

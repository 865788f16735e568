/* From what a cycle recorded to the figures the lab reports. */
#include "lab.h"

#include <math.h>
#include <string.h>

int lab_n_configs(const struct lab_opts *o)
{
	return o->n_states * o->n_syncs * o->n_workloads * o->n_wbs * o->n_dirty;
}

void lab_config_at(const struct lab_opts *o, int k, struct lab_config *c)
{
	c->dirty = o->dirty[k % o->n_dirty];
	k /= o->n_dirty;
	c->wb = o->wbs[k % o->n_wbs];
	k /= o->n_wbs;
	c->workload = o->workloads[k % o->n_workloads];
	k /= o->n_workloads;
	c->sync = o->syncs[k % o->n_syncs];
	k /= o->n_syncs;
	c->state = o->states[k];
}

void lab_record_init(struct cycle_record *rec, const struct lab_config *cf, int index)
{
	memset(rec, 0, sizeof(*rec));
	rec->state = cf->state;
	rec->sync = cf->sync;
	rec->workload = cf->workload;
	rec->wb = cf->wb;
	rec->request_after_s = NAN;
	rec->dirty_target_bytes = cf->dirty;
	rec->index = index;
	cycle_init(&rec->c, cf->state);
	rec->suspend_latency_s = rec->guest_suspend_latency_s = NAN;
	rec->resume_latency_s = rec->guest_resume_s = NAN;
	rec->sync_phase_s = rec->floor_s = rec->sync_over_floor = NAN;
	rec->span_wake_s = rec->span_kernel_s = rec->span_agent_s = NAN;
	rec->span_channel_s = rec->span_remainder_s = rec->clock_step_s = NAN;
	rec->suspend_latency_source = "none";
	rec->dev_sync_source = "none";
	rec->sync_predicted_s = rec->sync_over_predicted = NAN;
}

/* a phase time, NAN when the trace lacks it */
static double at(double t)
{
	return t >= 0 ? t : NAN;
}

/*
 * The resume's first timestamp on the host's clock.  machine_suspend's end
 * is stamped on the mono trace clock, halted until timekeeping resumes, so
 * this is where timekeeping resumed: from the guest's realtime (mono and
 * realtime advance together from there), through the alignment measured
 * after the resume (the guest's clock may have stepped across it).
 */
static double resume_began_host(const struct cycle *c)
{
	const struct guest_clocks *sent = &c->resumed_guest;
	double ms_end = at(cycle_phase_end(c, "machine_suspend"));

	return sent->real - (sent->mono - ms_end) - c->off_post;
}

/* freeze: keys go on until RESUMED arrives; the one that woke the guest
 * is the last pressed before its resume began (else the first) */
static double waking_key(const struct cycle *c)
{
	double began = resume_began_host(c), key = c->n_keys ? c->key_host[0] : NAN;

	for (int i = 1; i < c->n_keys; i++)
		if (c->key_host[i] <= began)
			key = c->key_host[i];
	return key;
}

static void spans(struct cycle_record *rec, double wake)
{
	const struct cycle *c = &rec->c;
	const struct guest_clocks *sent = &c->resumed_guest;
	double ms_end = at(cycle_phase_end(c, "machine_suspend"));
	double thaw_end = at(cycle_phase_end(c, "thaw_processes"));

	rec->span_wake_s = resume_began_host(c) - wake;
	rec->span_kernel_s = thaw_end - ms_end;
	rec->span_agent_s = sent->mono - thaw_end;
	rec->span_channel_s = c->resumed_host - (sent->real - c->off_post);
	rec->span_remainder_s = c->off_post_err;
	rec->clock_step_s = c->off_post - c->off_pre;
}

void lab_derive(struct cycle_record *rec, double floor_bps)
{
	const struct cycle *c = &rec->c;
	double ms = at(cycle_phase_begin(c, "machine_suspend"));

	double wake = c->n_keys ? waking_key(c) : c->wake_host;

	rec->guest_suspend_latency_s = ms - c->req_guest.mono;
	rec->resume_latency_s = c->resumed_host - wake;
	rec->guest_resume_s = at(cycle_phase_end(c, "thaw_processes")) -
			      at(cycle_phase_end(c, "machine_suspend"));
	rec->sync_phase_s = at(cycle_phase_s(c, "sync_filesystems"));
	spans(rec, wake);
	/* what the disk's own limit allows, for a cycle that measured a sync */
	rec->floor_s = floor_bps > 0 && c->verdict == VERDICT_OK ?
		rec->dirty_target_bytes / floor_bps : NAN;
	rec->sync_over_floor = rec->sync_phase_s > 0 && rec->floor_s > 0 ?
		rec->sync_phase_s / rec->floor_s : NAN;
	/* mem: the QMP event's own timestamp against our receipt of the
	 * request, both host clocks; freeze has no event, so the guest's
	 * trace clock measures the same span */
	if (!strcmp(rec->state, "mem") && !isnan(c->suspend_event) &&
	    !isnan(c->req_host)) {
		rec->suspend_latency_s = c->suspend_event - c->req_host;
		rec->suspend_latency_source = "qmp_event";
	} else if (!isnan(rec->guest_suspend_latency_s)) {
		rec->suspend_latency_s = rec->guest_suspend_latency_s;
		rec->suspend_latency_source = "guest_trace";
	} else {
		rec->suspend_latency_s = NAN;
		rec->suspend_latency_source = "none";
	}
}

/* From what a cycle recorded to the figures the lab reports. */
#include "lab.h"

#include <math.h>
#include <string.h>

void lab_record_init(struct cycle_record *rec, const char *state, int sync,
		     uint64_t dirty, int index)
{
	memset(rec, 0, sizeof(*rec));
	rec->state = state;
	rec->sync = sync;
	rec->dirty_target_bytes = dirty;
	rec->index = index;
	cycle_init(&rec->c, state);
	rec->suspend_latency_s = rec->guest_suspend_latency_s = NAN;
	rec->resume_latency_s = rec->guest_resume_s = NAN;
	rec->sync_phase_s = rec->floor_s = rec->sync_over_floor = NAN;
	rec->suspend_latency_source = "none";
}

/* a phase time, NAN when the trace lacks it */
static double at(double t)
{
	return t >= 0 ? t : NAN;
}

void lab_derive(struct cycle_record *rec, double floor_bps)
{
	const struct cycle *c = &rec->c;
	double ms = at(cycle_phase_begin(c, "machine_suspend"));

	rec->guest_suspend_latency_s = ms - c->req_guest.mono;
	rec->resume_latency_s = c->resumed_host - c->wake_host;
	rec->guest_resume_s = at(cycle_phase_end(c, "thaw_processes")) -
			      at(cycle_phase_end(c, "machine_suspend"));
	rec->sync_phase_s = at(cycle_phase_s(c, "sync_filesystems"));
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

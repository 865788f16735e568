/* A cycle's host windows, and the verdict when the host took the cycle. */
#include "lab.h"

#include <math.h>
#include <stdio.h>

void lab_host_windows(struct hostload *hl, struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;
	double down = !isnan(c->suspend_event) ? c->suspend_event : c->wake_host;
	const struct host_window *w;
	const char *which;

	hostload_window(hl, c->req_host, down, &rec->host_suspend);
	hostload_window(hl, c->wake_host, c->resumed_host, &rec->host_resume);
	if (rec->c.verdict != VERDICT_OK)
		return;
	if (hostload_stalled(&rec->host_suspend)) {
		w = &rec->host_suspend;
		which = "suspend";
	} else if (hostload_stalled(&rec->host_resume)) {
		w = &rec->host_resume;
		which = "resume";
	} else {
		return;
	}
	rec->c.verdict = VERDICT_HOST_STALL;
	hostload_describe(w, which, rec->c.why, sizeof(rec->c.why));
}

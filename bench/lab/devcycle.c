/* What the device saw during a cycle, and what the profile predicts. */
#include "lab.h"

#include <math.h>
#include <string.h>

/* Host CLOCK_REALTIME of a guest trace instant before the suspend (mono
 * seconds), through the alignment measured before the request. */
static double host_real(const struct cycle *c, double guest_mono)
{
	return guest_mono + (c->req_guest.real - c->req_guest.mono) - c->off_pre;
}

int lab_dev_before(struct hx *h, struct dev_counts *q0)
{
	return devstats_query(h->vm.qmp, DEVSTATS_DATA_DEVICE, hx_ms(h, h->base.qmp), q0);
}

void lab_dev_after(struct hx *h, const struct dev_counts *q0, struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;
	double b = cycle_phase_begin(c, "sync_filesystems");
	double e = cycle_phase_end(c, "sync_filesystems");
	struct dev_counts q1;
	struct dev_model m;

	if (devstats_query(h->vm.qmp, DEVSTATS_DATA_DEVICE, hx_ms(h, h->base.qmp), &q1))
		return;
	rec->dev_measured = true;
	rec->dev_suspend = devstats_delta(&q1, q0);
	if (b < 0 || e < 0)
		return;		/* no sync: nothing to place or predict */
	if (h->drive_on && !devlog_window(h->drive.log, 0, host_real(c, b),
					  host_real(c, e), &rec->dev_sync)) {
		rec->dev_sync_source = "nbdkit_log";
	} else {
		/* the suspend's writes are the sync's, give or take the freeze */
		rec->dev_sync = rec->dev_suspend;
		rec->dev_sync_source = "qmp_suspend";
	}
	m = devmodel_predict(h->o->profile, &rec->dev_sync);
	rec->sync_predicted_s = m.predict_s > 0 ? m.predict_s : NAN;
	rec->sync_over_predicted = devmodel_ratio(e - b, &m);
}

/*
 * Per-device attribution, as sleepgraph gives it: the kernel's
 * device_pm_callback_start/end trace events, each callback placed in the
 * dpm_* phase (suspend_resume event) that encloses its start.
 */
#ifndef SLAB_DEVCB_H
#define SLAB_DEVCB_H

#include <stdbool.h>

#define DEVCB_MAX 2048		/* callbacks kept per cycle (a 6.1 guest: ~1500) */
#define DEVCB_TOP 3		/* slowest devices reported per phase */

enum devcb_phase {
	DEVCB_PREPARE, DEVCB_SUSPEND, DEVCB_SUSPEND_LATE, DEVCB_SUSPEND_NOIRQ,
	DEVCB_RESUME_NOIRQ, DEVCB_RESUME_EARLY, DEVCB_RESUME, DEVCB_COMPLETE,
	DEVCB__PHASES,
	DEVCB_NONE = DEVCB__PHASES,	/* outside every dpm_* phase */
};

struct dev_cb {
	char dev[48];		/* "driver device", e.g. "virtio_blk virtio1" */
	double begin, end;	/* guest CLOCK_MONOTONIC seconds; end < 0: never ended */
	int err;
};

struct devcbs {
	int n, dropped;
	struct dev_cb cb[DEVCB_MAX];
};

/* One device's time in one phase of a cycle. */
struct devcb_time {
	const char *dev;
	double s;
};

struct cycle;

/* sleepgraph's names: "suspend_prepare", "suspend", ..., "resume_complete" */
const char *devcb_phase_name(enum devcb_phase p);
/*
 * A trace line of either event: "kworker/u4:2-40 [001] ..... 12.3:
 * device_pm_callback_start: virtio_blk virtio1, parent: 0000:00:04.0,
 * bus[suspend]" and "... device_pm_callback_end: virtio_blk virtio1, err=0".
 * An end pairs with its device's latest open start.  False if not one.
 */
bool devcb_parse(struct devcbs *d, const char *line);
/* The phase whose span holds the callback's start. */
enum devcb_phase devcb_phase_of(const struct cycle *c, const struct dev_cb *cb);
/*
 * The slowest ended callbacks of phase p, slowest first, a device's
 * callbacks in the phase summed: up to max entries, their count returned.
 */
int devcb_slowest(const struct cycle *c, enum devcb_phase p, struct devcb_time *out, int max);
/* Callbacks of phase p that started and never ended. */
int devcb_unended(const struct cycle *c, enum devcb_phase p);

#endif

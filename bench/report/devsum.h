/*
 * The slowest devices of a configuration, per dpm phase: each device's time
 * in the phase per OK cycle (0 in a cycle where it made no callback), its
 * median and max, the DEVCB_TOP largest medians kept.
 */
#ifndef SLAB_DEVSUM_H
#define SLAB_DEVSUM_H

#include "devcb.h"
#include "stats.h"

struct cycle_record;

struct devsum_dev {
	char dev[48];
	struct stats s;		/* seconds per cycle */
};

struct devsum_phase {
	int n;
	struct devsum_dev top[DEVCB_TOP];
};

struct devsum {
	struct devsum_phase phase[DEVCB__PHASES];
};

/* recs: the configuration's OK cycles.  0, or -1 when out of memory. */
int devsum_compute(const struct cycle_record *const *recs, int n, struct devsum *out);

#endif

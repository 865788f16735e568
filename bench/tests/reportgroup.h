/*
 * A synthetic one-size sweep for the grouped plot: states x sync {off, on}
 * x every workload x writeback {held, default} at 64 MiB, 3 cycles each,
 * latencies set directly.  Held with sync on spans more than a factor of
 * 20 (a log axis); mem sync on mixed/default has no OK cycle, and mem sync
 * on smallfiles/held one failed cycle of three.
 */
#ifndef REPORTGROUP_H
#define REPORTGROUP_H

#include "lab.h"

/* Fills o and r (records in static storage) with n_states of mem, freeze. */
void reportgroup_make(struct lab_opts *o, struct lab_result *r, int n_states);

#endif

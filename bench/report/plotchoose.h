/*
 * Which chart the lab's plot draws.  Latency against size needs sizes to
 * spread over: a sweep at one size would be a vertical smear of lines at
 * one x with a legend of every configuration, so it gets grouped bars by
 * workload instead.  Pure: decided from the configurations alone, the
 * experiment's design and not its outcome (a size whose cycles all failed
 * still counts).
 */
#ifndef SLAB_PLOTCHOOSE_H
#define SLAB_PLOTCHOOSE_H

#include "lab.h"

enum plot_kind {
	PLOT_BY_SIZE,	/* latency against dirty MiB, a line per configuration */
	PLOT_GROUPED,	/* bars per workload, sync side by side, a panel per writeback */
};

/* More than one distinct dirty size in cf[0..n): PLOT_BY_SIZE; exactly
 * one: PLOT_GROUPED; none (n <= 0): PLOT_BY_SIZE, whose empty chart says so. */
enum plot_kind plot_choose(const struct lab_config *cf, int n);

#endif

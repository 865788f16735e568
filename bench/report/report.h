/*
 * What a lab run leaves behind: a table for the terminal, and JSON, CSV and
 * a plot for later.  Every file names its units in its keys or columns and
 * carries the provenance (kernel, QEMU, firmware, disk profile, floor) that
 * a number needs to mean anything.
 */
#ifndef SLAB_REPORT_H
#define SLAB_REPORT_H

#include <stdio.h>

#include <jansson.h>	/* readers of report_json's output use it too */

#include "lab.h"

#define REPORT_SCHEMA "suspend-lab/latency/1"

/*
 * Provenance, one row per configuration (state x sync x dirty, in the
 * order of o), then one line per failed cycle.  Statistics cover the OK
 * cycles only: a failed cycle's partial timings would pass for fast ones.
 */
void report_table(FILE *f, const struct lab_opts *o, const struct lab_result *r);

/*
 * Schema REPORT_SCHEMA: provenance, floor, every cycle and a summary per
 * configuration; not measured is null, and so is an unthrottled profile
 * limit.  0, or -1 after one line on stderr.
 */
int report_json(const char *path, const struct lab_opts *o,
		const struct lab_result *r);

/* One row per cycle, a header of unit-suffixed names; empty = not measured. */
int report_csv(const char *path, const struct lab_opts *o,
	       const struct lab_result *r);

/*
 * Suspend latency (median, min-max bars) against dirty MiB, one line per
 * sync x state, by gnuplot (or $GNUPLOT): SVG for *.svg, PNG for *.png.
 * -1 after one line on stderr, also when gnuplot is missing.
 */
int report_plot(const char *path, const struct lab_opts *o,
		const struct lab_result *r);

#endif

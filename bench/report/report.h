/*
 * What a lab run leaves behind: a table for the terminal, and JSON, CSV and
 * a plot for later, all rendered from one summary (summary.h).  Every file
 * names its units in its keys or columns and carries the provenance
 * (kernel, QEMU, firmware, disk profile, floor) that a number needs to mean
 * anything.  Files are written whole or not at all (outfile.h).
 */
#ifndef SLAB_REPORT_H
#define SLAB_REPORT_H

#include <stdio.h>

#include <jansson.h>	/* readers of report_json's output use it too */

#include "lab.h"
#include "summary.h"

#define REPORT_SCHEMA "suspend-lab/latency/2"

struct lab_view {
	const struct lab_opts *o;
	const struct lab_result *r;
	const struct lab_summary *sum;	/* lab_summarise() */
	int n_sum;
};

/*
 * Provenance, one row per configuration (state x sync x dirty, in the
 * order of o) with the median, p95 and max of suspend and resume, then one
 * line per failed cycle.
 */
void report_table(FILE *f, const struct lab_view *v);

/* Schema REPORT_SCHEMA: provenance, floor, every cycle and summary[] per
 * configuration; not measured is null.  0, or -1 after one line. */
int report_json(const char *path, const struct lab_view *v);

/* One row per cycle, a header of unit-suffixed names; empty = not measured. */
int report_csv(const char *path, const struct lab_view *v);

/*
 * Suspend and resume latency (median line, min-max bars, p95 marks)
 * against dirty MiB, one line per sync x state, by gnuplot (or $GNUPLOT):
 * SVG for *.svg, PNG for *.png.  The y axis is logarithmic when the
 * medians span more than a factor of 20.  -1 after one line on stderr,
 * also when gnuplot is missing.
 */
int report_plot(const char *path, const struct lab_view *v);

/* Shared by the writers. */
const char *report_firmware_name(enum vm_firmware fw);
const char *report_machine_name(enum vm_firmware fw);
void report_profile_limits(char *buf, size_t n, const struct disk_profile *p);
const char *report_accel(const struct lab_view *v);

#endif

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

/* Schema REPORT_SCHEMA: provenance, floor, every cycle (with the attempts
 * the host took, stalled_attempts[]) and summary[] per configuration
 * (n_stalled), and host_stalls; not measured is null.  0, or -1 after one
 * line. */
int report_json(const char *path, const struct lab_view *v);

/* One row per cycle, a header of unit-suffixed names; empty = not measured. */
int report_csv(const char *path, const struct lab_view *v);

/*
 * Suspend and resume latency by gnuplot (or $GNUPLOT): SVG for *.svg, PNG
 * for *.png.  The chart follows the sweep (plot_choose(), plotchoose.h):
 * over more than one dirty size, latency against dirty MiB (median line,
 * min-max bars, p95 marks), a line per state x sync x workload x
 * writeback; at one size, bars grouped by workload (median bar, whisker
 * to the max, p95 diamond), one per state x sync, a panel per writeback
 * mode.  A panel's y axis is logarithmic when its values span more than a
 * factor of 20.  -1 after one line on stderr, also when gnuplot is missing.
 */
int report_plot(const char *path, const struct lab_view *v);

/*
 * One self-contained page: the text report, what the sync costs, the
 * slowest devices, the chart in svg (a file to inline; NULL: none) and
 * every cycle's timelines to scale.  0, or -1 after one line.
 */
int report_html(const char *path, const struct lab_view *v, const char *svg);

/* Shared by the writers. */
const char *report_firmware_name(enum vm_firmware fw);
const char *report_machine_name(enum vm_firmware fw);
void report_profile_limits(char *buf, size_t n, const struct disk_profile *p);
const char *report_accel(const struct lab_view *v);

#endif

/*
 * Summaries, computed once: every writer (table, JSON, CSV, plot) and the
 * evidence section read these instead of summing for themselves.
 */
#ifndef SLAB_SUMMARY_H
#define SLAB_SUMMARY_H

#include "devsum.h"
#include "lab.h"
#include "powercut.h"
#include "stats.h"

#define LAB_SPANS 5
/* "wake", "kernel", "agent", "channel", "remainder" */
extern const char *const lab_span_names[LAB_SPANS];
double lab_span(const struct cycle_record *r, int k);

/* One lab configuration; statistics over its OK cycles only, since a
 * failed cycle's partial timings would pass for fast ones. */
struct lab_summary {
	struct lab_config cf;
	const char *state;		/* cf's, for short */
	int sync;
	uint64_t dirty;
	int n_ok, n_total;
	int n_stalled;			/* attempts the host took (HostStall), measured again or not */
	struct stats suspend, resume, sync_phase, ratio, dirty_kb, guest_resume;
	struct stats span[LAB_SPANS];	/* the resume's spans, lab_span_names */
	/* what the device saw during the sync, and measured / predicted */
	struct stats sync_writes, sync_bytes, sync_flushes, sync_predicted, sync_over_predicted;
	/* what the host took from QEMU (hostload.h) in each window */
	struct stats host_suspend, host_resume;
	struct devsum devs;		/* the slowest devices per phase */
};

/* One per configuration, in lab_config_at()'s order; the caller frees
 * *out.  Count, or -1 when out of memory. */
int lab_summarise(const struct lab_opts *o, const struct lab_result *r,
		  struct lab_summary **out);

/* Power cuts of one setting at one cut point (cut == CUT__COUNT: all). */
struct pc_summary {
	int sync;
	enum cut_point cut;
	int cuts;			/* that ran or were meant to */
	int judged;			/* cut, rebooted and judged */
	int no_suspend;			/* NoSuspendEvent: nothing was cut */
	int failed;			/* any other failure: not judged */
	uint64_t written, dataset, dirty_at_cut, lost;
	struct stats lost_bytes;	/* per judged cut */
	int fsync_intact, fs_clean, unmountable;
	int files[FV__COUNT];		/* per file verdict, summed */
	int unexpected_entries;
	int kernel_figures, within_figure, within_slack;
	long long max_slack_kb;
};

/* Per setting (0 then 1) and cut point, then all cut points: only the
 * rows with cuts.  Count, or -1; the caller frees *out. */
int pc_summarise(const struct pc_result *run, struct pc_summary **out);

#endif

/*
 * One suspend/resume cycle driven through the agent and QMP, and what the
 * guest's trace and kernel log said about it.
 */
#ifndef SLAB_CYCLE_H
#define SLAB_CYCLE_H

#include <stdbool.h>

#include "devcb.h"
#include "vm.h"

#define CYCLE_MAX_PHASES 48
#define CYCLE_MAX_KEYS 64

/* Default waits at --timeout-scale 1 (hx.h's base values). */

struct phase {
	char name[40];		/* suspend_resume action, e.g. sync_filesystems */
	double begin, end;	/* guest CLOCK_MONOTONIC seconds; end < 0: open */
};

struct cycle_timeouts {		/* already scaled, in ms */
	int request_ms;		/* SUSPEND sent to REQUEST */
	int suspend_ms;		/* request to SUSPEND event (mem) */
	int wake_ms;		/* wake to RESUMED */
	int done_ms;		/* RESUMED to DONE */
	int qmp_ms;		/* each QMP command */
	int first_key_ms;	/* freeze: quiet time before the first key */
	int key_every_ms;	/* freeze: key repeat */
	int resume_delay_ms;	/* test-only: the agent waits before RESUMED */
};

/* The guest's clocks at one instant, seconds; NAN when not reported. */
struct guest_clocks {
	double mono, real, boot;
};

struct cycle {
	enum verdict verdict;
	char why[256];			/* what went wrong, for the report */
	char state[8];
	int rc;				/* errno of the state write */
	char kernel_err[120];		/* the first kernel error of the request */
	long long dirty_kb, writeback_kb;	/* /proc/meminfo at the request */
	struct guest_clocks req_guest, resumed_guest;	/* resumed: as RESUMED left */
	double resumed_ret_mono;	/* guest mono when the state write returned */
	/*
	 * Guest CLOCK_REALTIME minus host CLOCK_REALTIME, measured just
	 * before the request and just after DONE, each to within its error
	 * (half the round trip); NAN when not measured.
	 */
	double off_pre, off_pre_err, off_post, off_post_err;
	/* host CLOCK_REALTIME seconds, the clock of QMP's event timestamps;
	 * NAN until it happened */
	double req_host, suspend_event, wake_host, resumed_host;
	/* freeze: every key press; the one that woke the guest is the last
	 * before its resume began (lab_derive picks it into wake_host) */
	double key_host[CYCLE_MAX_KEYS];
	int n_keys;
	double fs_sync_s;		/* "Filesystems sync: X seconds"; <0 absent */
	int fs_sync_lines;
	/*
	 * The kernel's report of the page cache not on storage, made on every
	 * suspend (sync or not) right before the system sleeps, when no I/O
	 * can complete: Dirty + WritebackTmp, and Writeback.  A cut while
	 * suspended loses both.
	 */
	int skip_events;		/* power:suspend_page_cache events */
	long long skip_dirty_kb, skip_writeback_kb;	/* from the event */
	int skip_lines;			/* "PM: Page cache not on storage: ..."
					 * (only with pm_debug_messages on) */
	long long skip_line_dirty_kb, skip_line_writeback_kb;
	int n_phases;
	struct phase phases[CYCLE_MAX_PHASES];
	struct devcbs cbs;		/* every device callback (devcb.h) */
};

extern const struct cycle_timeouts cycle_default_timeouts;

/*
 * Runs SUSPEND <state> and wakes the guest: mem by system_wakeup after the
 * SUSPEND event, freeze by i8042 key presses.  The verdict is also in
 * c->verdict; fields never reached stay NAN.
 */
enum verdict cycle_run(struct vm *vm, const char *state,
		       const struct cycle_timeouts *to, struct cycle *c);

/* A cycle that has not run: NotRun, nothing measured. */
void cycle_init(struct cycle *c, const char *state);

/* Parsers, exposed for the offline tests. */
bool cycle_parse_trace(struct cycle *c, const char *line);
bool cycle_parse_kmsg(struct cycle *c, const char *line);

/* Total seconds spent in phase name (all its spans); <0 if absent. */
double cycle_phase_s(const struct cycle *c, const char *name);
/* First begin of name, guest seconds; <0 if absent. */
double cycle_phase_begin(const struct cycle *c, const char *name);
int cycle_phase_count(const struct cycle *c, const char *name);
/* Last end of name, guest seconds; <0 if absent or open. */
double cycle_phase_end(const struct cycle *c, const char *name);

#endif

/*
 * One suspend/resume cycle driven through the agent and QMP, and what the
 * guest's trace and kernel log said about it.
 */
#ifndef SLAB_CYCLE_H
#define SLAB_CYCLE_H

#include <stdbool.h>

#include "vm.h"

#define CYCLE_MAX_PHASES 48

struct phase {
	char name[40];		/* suspend_resume action, e.g. sync_filesystems */
	double begin, end;	/* guest CLOCK_MONOTONIC seconds; end < 0: open */
};

struct cycle_timeouts {
	int suspend_ms;		/* request to SUSPEND event (mem) */
	int wake_ms;		/* wake to RESUMED */
	int first_key_ms;	/* freeze: quiet time before the first key */
	int key_every_ms;	/* freeze: key repeat */
};

struct cycle {
	enum verdict verdict;
	char state[8];
	int rc;				/* errno of the state write */
	long long dirty_kb, writeback_kb;	/* /proc/meminfo at the request */
	double req_guest, resumed_guest;	/* guest monotonic s */
	double req_host, suspend_event, wake_host, resumed_host; /* host s */
	double fs_sync_s;		/* "Filesystems sync: X seconds"; <0 absent */
	int fs_sync_lines;
	/*
	 * The kernel's at-risk report, made on every suspend (sync or not)
	 * once tasks are frozen, right before devices suspend: dirty page
	 * cache (Dirty + WritebackTmp, at risk) and, apart, Writeback.
	 */
	int skip_events;		/* power:suspend_page_cache events */
	long long skip_dirty_kb, skip_writeback_kb;	/* from the event */
	int skip_lines;			/* "PM: Dirty page cache at risk: ..."
					 * (only with pm_debug_messages on) */
	long long skip_line_dirty_kb, skip_line_writeback_kb;
	int n_phases;
	struct phase phases[CYCLE_MAX_PHASES];
};

extern const struct cycle_timeouts cycle_default_timeouts;

/* Runs SUSPEND <state> and wakes the guest: mem by system_wakeup after the
 * SUSPEND event, freeze by i8042 key presses. */
enum verdict cycle_run(struct vm *vm, const char *state,
		       const struct cycle_timeouts *to, struct cycle *c);

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

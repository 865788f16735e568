/*
 * The suspend lab: one experiment is a set of configurations (state x sync x
 * dirty size) run for some cycles each on one disk profile and firmware.
 * Options and per-cycle records live here; lab.c runs them, derive.c turns
 * a cycle into figures, report/ summarises and writes them.
 */
#ifndef SLAB_LAB_H
#define SLAB_LAB_H

#include <stdbool.h>
#include <stdint.h>

#include "cycle.h"
#include "devstats.h"
#include "hostload.h"
#include "hx.h"
#include "workload.h"

#define LAB_VERSION "0.2.0"
#define LAB_MAX_STATES 2
#define LAB_MAX_DIRTY 16
#define LAB_MAX_SYNC 2
#define LAB_MAX_WORKLOADS 4
#define LAB_MAX_WB 2

struct lab_opts {
	struct hx_opts hx;		/* kernel, profile, out dir, ... */
	const char *states[LAB_MAX_STATES];	/* "mem", "freeze" */
	int n_states;
	int syncs[LAB_MAX_SYNC];	/* 0 and/or 1 */
	int n_syncs;
	uint64_t dirty[LAB_MAX_DIRTY];	/* bytes the workload writes */
	int n_dirty;
	const struct workload *workloads[LAB_MAX_WORKLOADS];
	int n_workloads;
	enum writeback wbs[LAB_MAX_WB];
	int n_wbs;
	int window_ms;			/* default writeback: the request comes within this */
	int runtime_s;			/* timed workloads run this long */
	unsigned int seed;		/* request moments */
	int cycles;			/* per configuration, 1..1000 */
	int mem_mb;			/* guest RAM; 0 = sized from the dirty list */
	int resume_delay_ms;		/* test-only: the agent waits before RESUMED */
	/* a HostStall cycle is measured again up to this many times; 0 (a
	 * zeroed struct): LAB_STALL_RETRIES, LAB_STALL_NO_RETRY: never */
	int stall_retries;
};

#define LAB_STALL_RETRIES 3
#define LAB_STALL_RETRIES_MAX 20
#define LAB_STALL_NO_RETRY (-1)

/* One configuration of an experiment. */
struct lab_config {
	const char *state;
	int sync;
	const struct workload *workload;
	enum writeback wb;
	uint64_t dirty;
};

/* Configurations in a fixed order: state, sync, workload, writeback, size. */
int lab_n_configs(const struct lab_opts *o);
void lab_config_at(const struct lab_opts *o, int k, struct lab_config *c);

/* Every figure is NAN when not measured; negative values are kept. */
struct cycle_record {
	const char *state;
	int sync;
	const struct workload *workload;
	enum writeback wb;
	double request_after_s;		/* default writeback: request this long after the start */
	uint64_t dirty_target_bytes;
	int index;			/* cycle number within its configuration */
	struct cycle c;			/* verdict, phases, timestamps */
	double suspend_latency_s;
	const char *suspend_latency_source;	/* "qmp_event", "guest_trace" or "none" */
	double guest_suspend_latency_s;	/* request to machine_suspend, guest */
	double resume_latency_s;	/* wake to agent RESUMED, host */
	double guest_resume_s;		/* machine_suspend end to thaw end, guest */
	double sync_phase_s;		/* sync_filesystems span */
	double floor_s;			/* dirty bytes / floor bandwidth */
	double sync_over_floor;
	/*
	 * Resume, wake to RESUMED on the host, in spans (README): wake to the
	 * kernel's timekeeping resuming (firmware and early resume), the
	 * kernel's resume to thaw (trace clock), thaw to RESUMED sent (guest),
	 * and sent to received.  The first and last cross from the host's
	 * clock to the guest's through the alignment measured after the
	 * resume, so the spans add up to resume_latency_s; how far a boundary
	 * may be off is remainder_s, that alignment's error.  clock_step_s:
	 * how far the guest's clock stepped across the suspend (the kernel's
	 * error in the time it slept), from the alignments before and after.
	 */
	double span_wake_s, span_kernel_s, span_agent_s, span_channel_s;
	double span_remainder_s;
	double clock_step_s;
	/*
	 * What the device saw (devstats.h): QMP's counters from the request
	 * to the resume, and the sync phase's requests from the drive
	 * model's log (or, without it, QMP's whole suspend); the profile's
	 * prediction of the sync from those, and measured / predicted.
	 */
	bool dev_measured;
	struct dev_counts dev_suspend, dev_sync;
	const char *dev_sync_source;	/* "nbdkit_log", "qmp_suspend" or "none" */
	double sync_predicted_s, sync_over_predicted;
	/*
	 * What the host took from QEMU (hostload.h): from the request to the
	 * suspend (mem: QMP's SUSPEND event; freeze: the waking key) and from
	 * the wake to RESUMED.  Past its threshold the cycle is HostStall.
	 */
	struct host_window host_suspend, host_resume;
	/* earlier attempts of this cycle that the host took (HostStall),
	 * oldest first; the record itself is the last attempt */
	struct lab_stall *stalls;
	int n_stalls;
};

/* One attempt of a cycle that the host took: what it measured and why it
 * is not a measurement. */
struct lab_stall {
	int attempt;			/* 1-based */
	const char *window;		/* the window the host took: "suspend", "resume" */
	double taken_s, wall_s;		/* of that window */
	struct host_window host_suspend, host_resume;
	double suspend_latency_s, resume_latency_s;	/* as measured, not trusted */
	char why[256];
};

struct lab_result {
	char kernel_release[128];
	char qemu_version[32];
	char knob[64];			/* suspend_sync or sync_on_suspend */
	bool at_risk_report;		/* kernel has power:suspend_page_cache */
	char date[32];			/* ISO 8601, UTC */
	const char *accel;
	double boot_s;			/* QEMU start to agent READY */
	int mem_mib;			/* guest RAM used */
	double floor_bps;		/* fio sequential direct write, bytes/s */
	int boots;
	double time_boot_s, time_floor_s, time_cycles_s;	/* where the run went */
	int n;
	struct cycle_record *rec;
};

/* Parses argv into o; 0 on success, 1 when --help was printed, 2 after a
 * one-line error on stderr.  Files are checked later (hx_check_inputs). */
int lab_parse_args(int argc, char **argv, struct lab_opts *o);
/* The guest RAM an experiment gets: room for its largest dirty size. */
int lab_mem_mb(const struct lab_opts *o);
/* The largest --dirty size. */
uint64_t lab_max_dirty(const struct lab_opts *o);

/* QMP's counters before a cycle, then the record's device figures after
 * it (devcycle.c): 0, or -1 when QMP could not say. */
int lab_dev_before(struct hx *h, struct dev_counts *q0);
void lab_dev_after(struct hx *h, const struct dev_counts *q0, struct cycle_record *rec);

/* The record's host windows from the sampler, and HostStall past the
 * threshold (hostwin.c). */
void lab_host_windows(struct hostload *hl, struct cycle_record *rec);

/* fio's sequential direct write bandwidth on the data disk, bytes/s, after
 * a progress line; -1 after one line (floor.c). */
double lab_floor(struct hx *h);

/* Fills a record's figures from its cycle (derive.c). */
void lab_derive(struct cycle_record *rec, double floor_bps);
/* A record for a cycle that is about to run, with nothing measured. */
void lab_record_init(struct cycle_record *rec, const struct lab_config *cf, int index);

/*
 * Runs the experiment, a HostStall cycle measured again up to
 * lab_stall_retries() times; 0 if every cycle is OK in the end, 1 after
 * one line per configuration that lacks cycles.  base, if not NULL,
 * replaces the harness's base timeouts (tests).
 */
int lab_run(const struct lab_opts *o, struct lab_result *r,
	    const struct hx_timeouts *base);
void lab_result_free(struct lab_result *r);
/* The guest's names and the boot's figures into r (lab_run's end). */
void lab_provenance(struct lab_result *r, const struct hx *h);
/* The UTC time now, ISO 8601. */
void lab_now_iso(char *buf, size_t n);
/* Cycles that ran to a verdict of OK. */
int lab_ok_cycles(const struct lab_result *r);

/* HostStall retries (stall.c): the bound in effect for o; the record's
 * last attempt kept in its stalls (0, or -1 when out of memory); one line
 * on stderr per configuration with fewer OK cycles than asked, their count
 * returned; the stalled attempts of a result. */
int lab_stall_retries(const struct lab_opts *o);
int lab_stall_keep(struct cycle_record *rec, int attempt);
int lab_lacking(const struct lab_opts *o, const struct lab_result *r);
int lab_stalled_attempts(const struct lab_result *r);

#endif

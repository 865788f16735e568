/*
 * The suspend lab: one experiment is a set of configurations (state x sync x
 * dirty size) run for some cycles each on one disk profile and firmware.
 * Options, per-cycle records and summaries live here; lab.c runs them,
 * stats.c summarises, report.c prints and writes them.
 */
#ifndef SLAB_LAB_H
#define SLAB_LAB_H

#include <stdbool.h>
#include <stdint.h>

#include "cycle.h"
#include "vm.h"

#define LAB_VERSION "0.1.0"
#define LAB_MAX_STATES 2
#define LAB_MAX_DIRTY 16
#define LAB_MAX_SYNC 2

struct disk_profile {
	const char *name;	/* nvme, sata, emmc, sd, hdd */
	const char *what;	/* one line for --help and the README */
	uint64_t write_bps;	/* QEMU throttling.bps-write; 0 = unthrottled */
	uint64_t write_iops;	/* throttling.iops-write; 0 = unthrottled */
};

struct lab_opts {
	const char *kernel, *initrd, *tools_disk;
	const char *out_dir;		/* results directory */
	const char *states[LAB_MAX_STATES];	/* "mem", "freeze" */
	int n_states;
	int syncs[LAB_MAX_SYNC];	/* 0 and/or 1 */
	int n_syncs;
	uint64_t dirty[LAB_MAX_DIRTY];	/* bytes */
	int n_dirty;
	int cycles;			/* per configuration, 1..1000 */
	enum vm_firmware firmware;
	const struct disk_profile *profile;
	const char *accel;		/* tcg, kvm */
	int mem_mb;			/* guest RAM; 0 = sized from the dirty list */
	bool show_command, keep_logs, quiet;
	int timeout_scale;		/* multiplies every step timeout, 1..100 */
};

struct cycle_record {
	const char *state;
	int sync;
	uint64_t dirty_target_bytes;
	int index;			/* cycle number within its configuration */
	struct cycle c;			/* verdict, phases, timestamps */
	double suspend_latency_s;	/* <0 when not measured */
	const char *suspend_latency_source;	/* "qmp_event" or "guest_trace" */
	double guest_suspend_latency_s;	/* request to machine_suspend, guest */
	double resume_latency_s;	/* wake to agent RESUMED, host */
	double guest_resume_s;		/* machine_suspend end to thaw end, guest */
	double sync_phase_s;		/* sync_filesystems span; <0 absent */
	double floor_s;			/* dirty bytes / floor bandwidth */
};

struct lab_result {
	char kernel_release[128];
	char qemu_version[32];
	char knob[64];			/* suspend_sync or sync_on_suspend */
	bool at_risk_report;		/* kernel has power:suspend_sync_skipped */
	char date[32];			/* ISO 8601, UTC */
	const char *accel;
	double boot_s;			/* QEMU start to agent READY */
	int mem_mib;			/* guest RAM used */
	double floor_bps;		/* fio sequential direct write, bytes/s */
	int n;
	struct cycle_record *rec;
};

extern const struct disk_profile lab_profiles[];
const struct disk_profile *lab_profile(const char *name);

/* Parses argv into o; 0 on success, 1 when --help was printed, 2 after a
 * one-line error on stderr. */
int lab_parse_args(int argc, char **argv, struct lab_opts *o);
/* "64M" -> 67108864; K, M, G are powers of 1024; false if malformed. */
bool lab_parse_size(const char *s, uint64_t *bytes);

/* Runs the experiment; 0 if every cycle is OK, 1 otherwise. */
int lab_run(const struct lab_opts *o, struct lab_result *r);
void lab_result_free(struct lab_result *r);
/* Async-signal-safe enough for a fatal signal: kills QEMU, removes the
 * data image. */
void lab_emergency_cleanup(void);

#endif

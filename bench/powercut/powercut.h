/*
 * Battery death during suspend: write a known dataset without fsync (and a
 * control file with it), suspend, SIGKILL QEMU at a chosen point, boot a
 * fresh QEMU on the same disk and judge every byte against the manifest.
 */
#ifndef SLAB_POWERCUT_H
#define SLAB_POWERCUT_H

#include <stdbool.h>
#include <stdint.h>

#include "lab.h"

enum cut_point { CUT_REQUEST, CUT_SYNC, CUT_SUSPENDED, CUT__COUNT };
enum file_verdict {
	FV_INTACT, FV_MISSING, FV_TRUNCATED, FV_CORRUPTED,
	FV_NOT_JUDGED,			/* the cycle failed before the oracle ran */
};
/* oracle self-tests: make the oracle see damage it must report */
enum pc_tamper { TAMPER_NONE, TAMPER_MANIFEST, TAMPER_IMAGE };

#define PC_MAX_FILES 12

struct pc_opts {
	const char *kernel, *initrd, *tools_disk, *out_dir;
	const char *state;		/* mem or freeze */
	int sync;			/* 0 or 1 */
	enum cut_point cut;
	bool mix;			/* cycle through the cut points */
	int cut_offset_ms;		/* CUT_SYNC: after the request; -1 random */
	int cycles;
	uint64_t big_bytes;		/* the largest file of the dataset */
	const struct disk_profile *profile;
	enum pc_tamper tamper;
	bool keep_logs, quiet;
	unsigned int seed;
};

struct pc_file {
	char path[96];			/* under the data mount */
	const char *kind;		/* new, append, rename, newdir, control, fio */
	uint64_t seed, size;		/* expected content and size */
	bool fsync;
	/* the oracle's findings after the reboot */
	enum file_verdict v;
	uint64_t actual, good;
};

struct pc_record {
	char kernel_release[128], qemu_version[32], knob[64];
	const char *state;
	int sync;
	enum cut_point cut;
	int cut_offset_ms;		/* CUT_SYNC; else -1 */
	enum verdict verdict;		/* of the whole cycle */
	bool cut_by_sigkill;		/* QEMU died of exactly our SIGKILL */
	bool fs_mounted, fs_clean;	/* after reboot; e2fsck -fn */
	int fio_verify;			/* 1 ok, 0 failed, -1 not run */
	uint64_t bytes_written;
	long long dirty_kb_at_cut;	/* /proc/meminfo at the request */
	long long kernel_at_risk_kb;	/* "PM: Sync skipped" dirty+writeback; -1 */
	long long at_risk_slack_kb;	/* how far those counters may lag; -1 */
	uint64_t bytes_lost;
	int n[FV_NOT_JUDGED + 1];	/* per file_verdict */
	bool fsync_intact;
	int n_files;
	struct pc_file files[PC_MAX_FILES];
};

const char *cut_name(enum cut_point c);
const char *file_verdict_name(enum file_verdict v);
/* Judges one file from what VERIFY saw. */
enum file_verdict pc_judge(uint64_t want, bool exists, uint64_t actual,
			   uint64_t good);

/*
 * The most that Dirty + Writeback may read below the truth: both are
 * global vmstat counters, and each CPU holds back up to its stat threshold
 * of pages before folding them in.  From the guest's "cpus=N threshold=T"
 * (pages); -1 if unparsable.
 */
long long pc_counter_slack_kb(const char *out);
/* Lost no more than the kernel said was at risk, give or take that slack. */
bool pc_loss_within_risk(const struct pc_record *r);

/* One power-cut cycle on a fresh disk image; 0 if the cycle ran. */
int pc_cycle(const struct pc_opts *o, int index, struct pc_record *rec);
void pc_emergency_cleanup(void);

#endif

/*
 * Battery death during suspend: write a known dataset (a manifest of files,
 * each with the part that was fsync'd), suspend, SIGKILL QEMU at a chosen
 * point, boot a fresh QEMU on the same disk and judge every byte, every
 * entry, and the filesystem.
 */
#ifndef SLAB_POWERCUT_H
#define SLAB_POWERCUT_H

#include <stdbool.h>
#include <stdint.h>

#include "hx.h"

enum cut_point { CUT_REQUEST, CUT_SYNC, CUT_SUSPENDED, CUT__COUNT };
enum file_verdict {
	FV_INTACT, FV_MISSING, FV_TRUNCATED, FV_CORRUPTED,
	FV_NOT_REGULAR,			/* a symlink, directory, ... in its place */
	FV_UNREADABLE,			/* the filesystem did not mount, or
					 * refused to read the file */
	FV_NOT_JUDGED,			/* the cycle failed before the oracle ran */
	FV__COUNT
};
/* oracle self-tests: make the oracle see damage it must report */
enum pc_tamper { TAMPER_NONE, TAMPER_MANIFEST, TAMPER_IMAGE };

#define PC_MAX_FILES 12
#define PC_MAX_UNEXPECTED 8

struct pc_opts {
	struct hx_opts hx;		/* kernel, profile, out dir, ... */
	const char *state;		/* mem or freeze */
	int sync;			/* 0 or 1, per cycle */
	int syncs;			/* bit 0: sync=0 runs, bit 1: sync=1 runs */
	enum cut_point cut;
	bool mix;			/* cycle through the cut points */
	bool offset_given;		/* --cut-offset was given */
	int cut_offset_ms;		/* CUT_SYNC: after the request; -1 random */
	int cycles;
	uint64_t big_bytes;		/* the largest file of the dataset */
	enum pc_tamper tamper;
	unsigned int seed;
	/* the kernel's writeback of the dataset starts right before the
	 * request, behind a queue of 4 requests: writes are in flight, and
	 * queued behind the suspended disk, when the system sleeps */
	bool inflight;
};

struct pc_file {
	char path[96];			/* under the data mount */
	const char *kind;		/* new, append, rename, newdir, control, fio,
					 * overwrite (in place, of synced bytes) */
	uint64_t seed, size;		/* expected content and size */
	uint64_t durable;		/* the first bytes fsync'd before the cut */
	/* the oracle's findings after the reboot */
	enum file_verdict v;
	uint64_t actual, good, first_bad, lost;
};

struct pc_record {
	char kernel_release[128], qemu_version[32], knob[64];
	const char *state;
	int sync;
	enum cut_point cut;
	int cut_offset_ms;		/* CUT_SYNC; else -1 */
	enum verdict verdict;		/* of the whole cycle */
	char why[256];
	bool cut_by_sigkill;		/* QEMU died of exactly our SIGKILL */
	bool judged;			/* the oracle gave its verdicts */
	bool fs_mounted, fs_clean;	/* after reboot; e2fsck -fn */
	int fio_verify;			/* 1 ok, 0 failed, -1 not run */
	uint64_t bytes_written;		/* in this cycle */
	uint64_t dataset_bytes;		/* every file's expected size */
	long long dirty_kb_at_cut;	/* /proc/meminfo at the request */
	long long kernel_at_risk_kb;	/* the kernel's at-risk figure; -1 */
	long long kernel_writeback_kb;	/* of it under writeback; -1 */
	long long at_risk_slack_kb;	/* how far those counters may lag; -1 */
	uint64_t bytes_lost;
	int n[FV__COUNT];		/* per file_verdict */
	bool fsync_intact;		/* every durable byte survived */
	int n_unexpected;		/* entries the dataset never made */
	char unexpected[PC_MAX_UNEXPECTED][96];
	int n_files;
	struct pc_file files[PC_MAX_FILES];
};

const char *cut_name(enum cut_point c);
const char *file_verdict_name(enum file_verdict v);

/* ---- the oracle (oracle.c): pure, tested offline ---- */

/*
 * Judges one file from what VERIFY saw (type "reg", "lnk", "none", ...):
 * its verdict, and its lost bytes: every damaged byte of the expected
 * ones plus every byte beyond the expected size.
 */
enum file_verdict pc_judge(struct pc_file *f, const char *type);
/* The whole dataset lost: the filesystem did not mount. */
void pc_judge_unmountable(struct pc_record *r);
/* The mounted filesystem refused to read the file (EIO, EUCLEAN, ...):
 * unreadable, every byte lost. */
void pc_judge_unreadable(struct pc_file *f);
/* Sums the verdicts, bytes lost and the durable check into r. */
void pc_tally(struct pc_record *r);
/*
 * One entry from LIST (type, path under the mount): counted and named in
 * r->unexpected when the dataset never made it.  True if unexpected.
 */
bool pc_check_entry(struct pc_record *r, const char *type, const char *path);

/*
 * The most that the kernel's counters may read below the truth: global
 * vmstat counters, each CPU holding back up to its stat threshold of pages
 * before folding them in.  From the guest's "cpus=N threshold=T" (pages);
 * -1 if unparsable.
 */
long long pc_counter_slack_kb(const char *out);
/* The kernel's at-risk figure in a console line ("PM: Page cache not on
 * storage: T kB (dirty: D kB, writeback: W kB)"): T, or -1. */
long long pc_kernel_at_risk_kb(const char *line);
/* Lost no more than the kernel said was at risk, give or take that slack. */
bool pc_loss_within_risk(const struct pc_record *r);

/* ---- the dataset (dataset.c) ---- */

void pc_plan(const struct pc_opts *o, int index, struct pc_record *r);
enum verdict pc_write_dataset(struct hx *h, struct pc_record *r);
/* The same, calling mark before (done false) and after each file's writer;
 * the durable heads are written before the first call. */
typedef void (*pc_mark_fn)(void *ctx, int file, bool done);
enum verdict pc_write_dataset_marked(struct hx *h, struct pc_record *r, pc_mark_fn mark,
				     void *ctx);
/*
 * The oracle on a guest with the dataset mounted at mnt (pcverify.c):
 * VERIFY for each file of r, fio's own verify for its file, and LIST
 * against the manifest; paths in tolerated (NULL-terminated, may be NULL),
 * and the directories above them, are neither judged nor unexpected.
 * The caller tallies (pc_tally).
 */
enum verdict pc_verify_mounted(struct hx *h, struct pc_record *r, const char *mnt,
			       const char *const *tolerated);

/* ---- a cycle (powercut.c) ---- */

/* A record of a cut that has not run: NotRun, nothing judged. */
void pc_record_init(struct pc_record *r, const struct pc_opts *o, int index);
/*
 * One power-cut cycle on a fresh disk image; the verdict is also in
 * rec->verdict.  base, if not NULL, replaces the harness's base timeouts.
 */
enum verdict pc_cycle(const struct pc_opts *o, int index, struct pc_record *rec,
		      const struct hx_timeouts *base);

/* A whole run: its records, in the order they ran. */
struct pc_result {
	const struct pc_opts *o;
	char date[32];
	int n;
	struct pc_record *rec;
};

/* Options (pcopts.c): 0, 1 after --help, 2 after one error line. */
int pc_parse_args(int argc, char **argv, struct pc_opts *o);

#endif

/*
 * Crash states of suspend cycles: record each write a cycle issues
 * (QEMU's blklogwrites), replay the disk as it stood after any of them
 * (logfmt.h, states.h, image.h), judge every state with the power-cut
 * oracle, many states per guest boot, in shards that merge into one
 * report.
 *
 * A recording lives in <rec>/cycle-<n>/: base.img (the pristine image the
 * guest booted on), write.log, and meta.json (the setting, the dataset's
 * seed and the marks: the log's size at each event of the cycle).
 */
#ifndef SLAB_CRASH_H
#define SLAB_CRASH_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "hx.h"
#include "powercut.h"
#include "states.h"

#define CS_SCHEMA "suspend-lab/crash-states/1"
#define CS_SHARD_SCHEMA "suspend-lab/crash-shard/1"
#define CS_MAX_PER_BOOT 24
/* The longest --out, --rec or --image: what crash-states derives from
 * them fits its buffers, so a longer one is refused, never cut. */
#define CS_PATH_MAX 512
/* A state whose image could not be built from the log: not judged. */
#define CS_REPLAY_FAILED "ReplayFailed"

struct cs_opts {
	struct hx_opts hx;
	const char *cmd;		/* all, record, judge, merge, replay */
	const char *state;		/* mem or freeze */
	int syncs;			/* bit 0: sync=0, bit 1: sync=1 */
	int cycles;			/* per setting */
	uint64_t big_bytes;
	unsigned seed;
	struct cs_model model;		/* drop window set per cycle */
	bool drop_flush;		/* test-only D states */
	int per_boot;
	int shard_k, shard_n;
	const char *rec_dir;		/* default <out>/rec */
	int replay_cycle;		/* replay: which cycle, 1-based */
	const char *replay_state, *replay_image;
	uint64_t given;			/* bit i: longopts[i] was on the command line */
};

/* One recorded cycle, as meta.json keeps it. */
struct cs_cycle {
	int number;			/* 1-based, the directory's */
	char dir[700];
	int sync;
	char state[8];
	uint64_t big_bytes;
	unsigned seed;
	int plan_index;			/* pc_plan()'s index */
	char date[32], kernel_release[128], qemu_version[32], knob[64], profile[16];
	char fs[16];			/* the filesystem recorded (fskind.h) */
	/* the log's size at each event, bytes */
	uint64_t at_start, at_request, at_suspended, at_end;
	bool suspended;
	int n_files;
	uint64_t file_begin[PC_MAX_FILES], file_end[PC_MAX_FILES];
	bool replay_matches;		/* the whole log replayed == the disk QEMU wrote */
	char log_sha256[65], base_sha256[65];	/* as meta.json has them, once proven */
	/* from the log, once loaded */
	struct lw_log log;
	struct cs_marks m;
	int f_begin[PC_MAX_FILES], f_end[PC_MAX_FILES];
	int sync_last_flush;		/* the last barrier after the request; -1 */
	int n_flushes;
	int fsync_pos;			/* the control file's fsync returned; -1 */
};

/* What the oracle found in one state. */
struct cs_result {
	int index;			/* over the whole run, enumeration order */
	int cycle;			/* 1-based */
	int sync;
	char name[48];
	enum cs_kind kind;
	int pos;
	enum cs_phase phase;
	bool judged;
	char verdict[32];		/* verdict_name(), or the failure */
	bool mounted, fs_clean;
	int fio_verify;			/* 1, 0, -1 not run */
	int files_judged;
	uint64_t expected_bytes, durable_bytes, lost_bytes;
	bool fsync_intact;
	int n[FV__COUNT];
	int n_unexpected;
};

/* Options (csopts.c): 0, 1 after --help, 2 after one error line. */
int cs_parse_args(int argc, char **argv, struct cs_opts *o);

/* ---- recordings (meta.c, metaread.c) ---- */
#define CS_META_SCHEMA "suspend-lab/crash-recording/2"
/* before meta.json carried the recording's sizes and digests */
#define CS_META_SCHEMA_V1 "suspend-lab/crash-recording/1"
/* meta.json with the sizes and digests of base.img and write.log, sealed
 * (recdigest.h): 0, or -1 after one line. */
int cs_meta_write(const struct cs_cycle *c);
/* meta.json read, its seal and fields checked, into c: its JSON, or NULL
 * after one line naming the file. */
json_t *cs_meta_load(struct cs_cycle *c, const char *path);
/* Reads meta.json and scans the log: 0, or -1 after one line. */
int cs_cycle_load(struct cs_cycle *c, const char *dir, int number);
void cs_cycle_free(struct cs_cycle *c);
/* Every cycle-<n> under rec, in order: count, or -1 after one line. */
int cs_cycles_load(const char *rec, struct cs_cycle **out);
/* The run's states in enumeration order, drop window from the control
 * file's fsync when o->drop_flush: count or -1.  (*cyc)[i] is the index
 * of state i's cycle. */
int cs_run_states(const struct cs_opts *o, struct cs_cycle *cy, int n_cy,
		  struct cs_state **st, int **cyc);

/* A path to write, outside the recording rec by name and by inode
 * (recguard.c): 0, or 2 after one line naming the option --opt. */
int cs_check_outside(const char *rec, const char *opt, const char *path);

/* ---- record (record.c) ---- */
enum verdict cs_record(const struct cs_opts *o, int number, int sync, const char *dir);

/*
 * What a state is judged against: the manifest of files whose writer had
 * returned by the state's position (the rest are tolerated, not judged).
 * r gets the judged files; tol the paths tolerated, NULL-terminated.
 */
#define CS_MAX_TOL (PC_MAX_FILES + 2)
void cs_expect(const struct cs_cycle *c, const struct cs_state *s, struct pc_record *r,
	       char tol[CS_MAX_TOL][96], const char *tolp[CS_MAX_TOL + 1]);

/* ---- judging (judge.c) ---- */
struct cs_job {
	const struct cs_cycle *cycle;
	const struct cs_state *state;
	char image[1000];
	struct pc_record rec;		/* the expected files */
	const char *tol[CS_MAX_TOL + 1];
	char tol_buf[CS_MAX_TOL][96];
	struct cs_result *res;
	int h_image;			/* cleanup handle */
};
/* Judges a batch of built images: fills each res (judged or not). */
struct cs_backend {
	void (*batch)(void *ctx, struct cs_job *jobs, int n);
	void *ctx;
};
/* The guest backend (vmjudge.c). */
struct cs_backend cs_vm_backend(const struct cs_opts *o);
void cs_vm_backend_done(struct cs_backend *b);

/* Judges this shard's states, writes <out>/crash-shard-K-of-N.json (its
 * path in path).  0, 1 if a state could not be judged or the shard not
 * written, 2 on bad input. */
int cs_judge(const struct cs_opts *o, const struct cs_backend *be, char *path, size_t n);

/* ---- shards and the report (shard.c, csreport.c, csplot.c) ---- */
struct cs_run {
	char provenance[4096];		/* JSON text, from the recordings */
	int n_cycles;
	struct cs_cycle *cy;		/* marks only: no log */
	int n;
	struct cs_result *res;		/* every state, enumeration order */
};
int cs_shard_write(const char *path, const struct cs_opts *o, const struct cs_cycle *cy,
		   int n_cy, int total, const struct cs_result *res, int n);
/* Combines shard files into run; 0, or 2 after one line. */
int cs_merge(char **paths, int n, struct cs_run *run);
void cs_run_free(struct cs_run *run);
/* Table on f; crash.json, crash.csv, crash.svg under dir, all three
 * replaced or none: 0, or -1 after a line. */
void cs_report_table(FILE *f, const struct cs_run *run);
int cs_report_files(const char *dir, const struct cs_run *run);
/* The SVG at path: 0, or -1 (a line only if gnuplot cannot be run). */
int cs_plot(const char *path, const struct cs_run *run);

#endif

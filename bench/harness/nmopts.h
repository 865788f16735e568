/*
 * nomtime-bench's command line: what it measures (filesystems opted in to
 * O_NOMTIME, disk models, counts) and the guest's files.  Every rejection
 * is one line that names the option, the value and what it accepts.
 */
#ifndef SLAB_NMOPTS_H
#define SLAB_NMOPTS_H

#include <stdbool.h>

#define NM_MAX_RUNS	50
#define NM_MAX_FS	4

struct nm_opts {
	const char *kernel, *initrd;
	const char *fs[NM_MAX_FS];	/* fskind.h names, each once */
	int n_fs;
	const char *cache[2];		/* "wc", "nowc", each once */
	int n_cache;
	const char *profile;
	int count, runs, gap_ms, settle_s;
	bool keep_logs;
};

/* 0 parsed, 1 after --help (usage on stdout), 2 after one error line. */
int nm_parse_args(int argc, char **argv, struct nm_opts *o);
/* "ext4, xfs, f2fs": the kinds that opted in to O_NOMTIME. */
const char *nm_nomtime_names(void);

#endif

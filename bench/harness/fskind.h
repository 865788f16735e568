/*
 * The filesystems the lab runs on, and the one place that knows each of
 * them: how to make it, how to mount it, and how to check it after a cut.
 * Every program asks here; none switches on a filesystem's name.
 */
#ifndef SLAB_FSKIND_H
#define SLAB_FSKIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fs_kind {
	const char *name;		/* as mount -t takes it */
	uint64_t min_bytes;		/* the smallest image its mkfs accepts */
	const char *mount_opts;		/* always given to the lab's mounts ("" none) */
	const char *nomtime_opts;	/* added to allow_nomtime ("" none) */
	bool nomtime;			/* opted in to O_NOMTIME (FS_ALLOW_NOMTIME) */
	const char *checker;		/* its read-only checker, as the README names it */
	int fail_from;			/* checker status from which it failed to
					 * check at all (0: any non-zero is damage) */
	bool debugfs;			/* power-cut's --tamper image finds blocks with debugfs */
};

/* The kinds, in the order "--fs all" runs them. */
extern const struct fs_kind fs_kinds[];
extern const size_t fs_n_kinds;

/* The kind named name, or NULL. */
const struct fs_kind *fs_kind_find(const char *name);

/* The names, separated by sep ("ext4|xfs|btrfs|f2fs"), for messages. */
const char *fs_kind_names(const char *sep);

/* Makes the filesystem in file (created or truncated to bytes, at least
 * min_bytes), labelled label; 0, or -1 with one line on stderr. */
int fs_mkfs(const struct fs_kind *k, const char *label, const char *file,
	    uint64_t bytes);
/* The same; on failure why gets the cause, mkfs's own last line
 * included ("No space left on device"), for the verdict's text. */
int fs_mkfs_why(const struct fs_kind *k, const char *label, const char *file,
		uint64_t bytes, char *why, size_t len);

/*
 * Runs the kind's checker, read-only, on the image of an unmounted
 * filesystem.  0: clean; 1: the checker found damage; -1: it could not
 * check (not installed, killed, or its status says so).  why gets its last output line.  The checker
 * can be replaced by the program in $SLAB_FSCK (tests: a fake that reports
 * damage), called with the kind's name and the image.
 */
int fs_check(const struct fs_kind *k, const char *image, char *why, size_t len);

#endif

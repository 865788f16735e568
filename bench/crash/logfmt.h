/*
 * The dm-log-writes format (the kernel's
 * Documentation/admin-guide/device-mapper/log-writes.rst), as QEMU's
 * blklogwrites driver writes it: sector 0 holds a superblock, then each
 * entry is one header sector followed by its data sectors.  Sectors are the
 * log's sector size (the superblock says which).  QEMU logs an entry once
 * the operation on the image completed, so entry order is completion order;
 * a flush entry follows every write that completed before the flush did.
 *
 * After a SIGKILL the superblock's entry count is stale (QEMU updates it on
 * flushes) and the last entries may be half written, so lw_open() scans
 * the entries themselves and stops at the first one that cannot be whole.
 */
#ifndef SLAB_LOGFMT_H
#define SLAB_LOGFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LW_MAGIC 0x6a736677736872ULL
#define LW_VERSION 1ULL

enum {
	LW_FLUSH = 1 << 0,
	LW_FUA = 1 << 1,
	LW_DISCARD = 1 << 2,
	LW_MARK = 1 << 3,
	LW_METADATA = 1 << 4,
};
#define LW_FLAGS (LW_FLUSH | LW_FUA | LW_DISCARD | LW_MARK | LW_METADATA)

struct lw_entry {
	uint64_t sector, nr_sectors, flags, data_len;	/* as logged */
	uint64_t data_off;	/* where its data starts in the log */
	uint64_t end;		/* log offset just past it */
};

struct lw_log {
	int fd;
	uint32_t sectorsize;
	bool has_super;			/* a valid superblock (QEMU writes it on a flush) */
	uint64_t super_entries;		/* its entry count, possibly stale */
	uint64_t file_size;
	int n;				/* entries found whole */
	struct lw_entry *e;
	char stop[160];			/* why the scan ended */
};

/*
 * Scans the log at path.  default_ss is the sector size when no
 * superblock was written yet (a log cut before its first flush).  0, or -1
 * with why filled in (unreadable, a superblock of another format).
 */
int lw_open(struct lw_log *l, const char *path, uint32_t default_ss, char *why, size_t n);
void lw_close(struct lw_log *l);

/* Entries that ended at or before byte offset bytes: a mark taken from the
 * log's size while QEMU ran. */
int lw_entries_before(const struct lw_log *l, uint64_t bytes);

/* A write with data (discards and flushes carry none). */
bool lw_is_write(const struct lw_entry *e);
/* What a volatile write cache must have made durable once it completed:
 * a flush, or a FUA write. */
bool lw_is_barrier(const struct lw_entry *e);

/* Applies entry i to the image (writes its data; a discard reads back as
 * zeros).  0, or -1 with why. */
int lw_apply(const struct lw_log *l, int i, int img_fd, char *why, size_t n);

/* Hand-made logs, for the tests and self-checks. */
struct lw_writer {
	int fd;
	uint32_t ss;
	uint64_t next;		/* next entry's sector */
	uint64_t n;
};
int lw_writer_open(struct lw_writer *w, const char *path, uint32_t ss);
/* data: nr_sectors * ss bytes for a write; NULL for a flush or discard. */
int lw_writer_add(struct lw_writer *w, uint64_t sector, uint64_t nr_sectors,
		  uint64_t flags, const void *data);
/* The superblock with the count so far (what QEMU does on a flush). */
int lw_writer_super(struct lw_writer *w);
int lw_writer_close(struct lw_writer *w);

#endif

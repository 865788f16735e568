/*
 * t_replay: the write-log reader and replayer on hand-made logs.
 *
 * Guards: every entry of a dm-log-writes log is found with its flags
 * (writes, overwrites, flush, FUA, discard, write-zeroes); each prefix
 * replays to exactly the bytes an in-memory model holds; the scan trusts
 * entries, not the superblock's count (stale after a kill, or no
 * superblock at all before the first flush); it stops at a hole, a
 * truncated entry, unknown flags or dirty padding; marks taken from the
 * log's size map to entry counts; another file is refused; a 4096-byte
 * log sector works.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image.h"
#include "logfmt.h"
#include "tap.h"

#define SS 512
#define DISK_SECTORS 64

static char dir[] = "/tmp/t_replay.XXXXXX";
static char logp[128], basep[128], outp[128];

struct op {
	uint64_t sector, nr, flags;
	int fill;		/* data byte; -1: none */
};

/* writes, an overwrite, a flush, a FUA write, a discard, zeros, a flush */
static const struct op ops[] = {
	{ 0, 4, 0, 'a' },
	{ 10, 2, 0, 'b' },
	{ 2, 4, 0, 'c' },		/* overwrites the second half of 'a' */
	{ 0, 0, LW_FLUSH, -1 },
	{ 10, 1, LW_FUA, 'd' },
	{ 1, 2, LW_DISCARD, -1 },
	{ 20, 3, 0, 0 },		/* write-zeroes: logged as zero data */
	{ 0, 0, LW_FLUSH, -1 },
	{ 40, 8, 0, 'e' },
};
#define N_OPS ((int)(sizeof(ops) / sizeof(ops[0])))

static void model(unsigned char *img, int upto)
{
	memset(img, 0x11, DISK_SECTORS * SS);	/* the pristine image */
	for (int i = 0; i < upto; i++) {
		const struct op *o = &ops[i];

		if (o->flags & LW_DISCARD)
			memset(img + o->sector * SS, 0, o->nr * SS);
		else if (o->fill >= 0)
			memset(img + o->sector * SS, o->fill, o->nr * SS);
	}
}

static int write_log(const char *path, uint32_t ss, int n_ops, int super_at)
{
	struct lw_writer w;
	unsigned char *buf = malloc(16 * ss);

	if (!buf || lw_writer_open(&w, path, ss))
		return -1;
	for (int i = 0; i < n_ops; i++) {
		const struct op *o = &ops[i];

		memset(buf, o->fill, 16 * ss);
		if (lw_writer_add(&w, o->sector * SS / ss, o->nr * SS / ss, o->flags,
				  o->fill >= 0 ? buf : NULL))
			return -1;
		if (i + 1 == super_at && lw_writer_super(&w))
			return -1;
	}
	free(buf);
	return lw_writer_close(&w);
}

static void write_base(void)
{
	unsigned char img[DISK_SECTORS * SS];
	int fd = open(basep, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	model(img, 0);
	if (fd < 0 || write(fd, img, sizeof(img)) != (ssize_t)sizeof(img))
		exit(1);
	close(fd);
}

static bool image_is(const char *path, const unsigned char *want)
{
	unsigned char got[DISK_SECTORS * SS];
	int fd = open(path, O_RDONLY);
	ssize_t r = fd >= 0 ? read(fd, got, sizeof(got)) : -1;

	if (fd >= 0)
		close(fd);
	return r == (ssize_t)sizeof(got) && !memcmp(got, want, sizeof(got));
}

static void entries_and_prefixes(void)
{
	unsigned char want[DISK_SECTORS * SS];
	struct lw_log l;
	char why[200];
	bool exact = true;

	if (!tap_ok(!write_log(logp, SS, N_OPS, N_OPS) &&
		    !lw_open(&l, logp, SS, why, sizeof(why)), "hand-made log opens"))
		return;
	tap_ok(l.n == N_OPS && l.has_super && l.super_entries == N_OPS && l.sectorsize == SS,
	       "all %d entries found, superblock says %llu", l.n,
	       (unsigned long long)l.super_entries);
	tap_ok(lw_is_barrier(&l.e[3]) && lw_is_barrier(&l.e[4]) && lw_is_barrier(&l.e[7]) &&
	       !lw_is_barrier(&l.e[0]) && !lw_is_barrier(&l.e[5]) &&
	       (l.e[5].flags & LW_DISCARD) && !lw_is_write(&l.e[5]) && !lw_is_write(&l.e[3]),
	       "flush and FUA entries are barriers; a discard and a flush carry no data");
	tap_ok(l.e[1].sector == 10 && l.e[1].nr_sectors == 2 && l.e[8].nr_sectors == 8,
	       "sectors and lengths as logged");
	for (int p = 0; p <= l.n; p++) {
		struct cs_state s = { .kind = CS_PREFIX, .pos = p };

		model(want, p);
		if (cs_build_image(&l, &s, basep, outp, why, sizeof(why)) || !image_is(outp, want)) {
			exact = false;
			tap_diag("prefix %d differs from the model (%s)", p, why);
		}
	}
	tap_ok(exact, "every prefix 0..%d replays to exactly the model's bytes", l.n);
	{
		struct stat st;
		struct cs_state s = { .kind = CS_PREFIX, .pos = 4 };

		cs_build_image(&l, &s, basep, outp, why, sizeof(why));
		tap_ok(!stat(outp, &st) && st.st_size == DISK_SECTORS * SS,
		       "a replayed image keeps the pristine image's size");
	}
	/* marks: the log's size when an event happened */
	tap_ok(lw_entries_before(&l, l.e[3].end) == 4 &&
	       lw_entries_before(&l, l.e[3].end - 1) == 3 && lw_entries_before(&l, 0) == 0 &&
	       lw_entries_before(&l, l.file_size) == l.n,
	       "a mark taken from the log's size counts the entries that ended before it");
	lw_close(&l);
}

static void stale_or_no_super(void)
{
	struct lw_log l;
	char why[200];

	bool ok;

	write_log(logp, SS, N_OPS, 4);	/* superblock last written at the flush */
	ok = !lw_open(&l, logp, SS, why, sizeof(why));
	tap_ok(ok && l.n == N_OPS && l.super_entries == 4,
	       "stale superblock (4): the scan still finds %d entries", l.n);
	lw_close(&l);
	write_log(logp, SS, 3, 0);	/* cut before the first flush: no superblock */
	ok = !lw_open(&l, logp, SS, why, sizeof(why));
	tap_ok(ok && l.n == 3 && !l.has_super,
	       "no superblock yet: %d entries at the default sector size", l.n);
	lw_close(&l);
}

/* Damage at byte offset off of the log: the scan stops before entry stop_at. */
static void damaged(const char *what, off_t off, const void *bytes, size_t len,
		    bool truncate_there, int stop_at)
{
	struct lw_log l;
	char why[200];
	int fd;

	write_log(logp, SS, N_OPS, N_OPS);
	fd = open(logp, O_WRONLY);
	if (truncate_there ? ftruncate(fd, off) : pwrite(fd, bytes, len, off) != (ssize_t)len)
		tap_diag("could not damage the log");
	close(fd);
	fd = lw_open(&l, logp, SS, why, sizeof(why));
	tap_ok(!fd && l.n == stop_at - 1 && l.stop[0],
	       "%s: %d whole entries, then \"%s\"", what, l.n, l.stop);
	lw_close(&l);
}

int main(void)
{
	static const unsigned char zero[SS], flag[8] = { 0, 0, 0, 0, 0, 0, 0, 0x80 };
	struct lw_log l;
	char why[200];
	int fd;

	if (!mkdtemp(dir))
		return 1;
	snprintf(logp, sizeof(logp), "%s/w.log", dir);
	snprintf(basep, sizeof(basep), "%s/base.img", dir);
	snprintf(outp, sizeof(outp), "%s/out.img", dir);
	write_base();

	entries_and_prefixes();
	stale_or_no_super();
	{
		/* entry offsets of the hand-made log, in sectors: 1, 6, 9, 14, 15, 17, 18, 22, 23 */
		damaged("a hole where entry 3 never got written", 9 * SS, zero, SS, false, 3);
		damaged("entry 9's data cut short", 23 * SS + SS + 100, NULL, 0, true, 9);
		damaged("unknown flags in entry 2", 6 * SS + 16, flag, sizeof(flag), false, 2);
		damaged("non-zero padding in entry 4's header", 14 * SS + 40, "x", 1, false, 4);
	}

	fd = open(logp, O_WRONLY | O_TRUNC);
	tap_ok(fd >= 0 && write(fd, "not a log at all, just text....", 31) == 31,
	       "a file that is not a log");
	close(fd);
	tap_ok(lw_open(&l, logp, SS, why, sizeof(why)) == -1 && strstr(why, "not a dm-log-writes"),
	       "is refused: %s", why);

	/* a 4096-byte log sector: the same bytes land in the same places */
	{
		unsigned char want[DISK_SECTORS * SS];
		struct cs_state s = { .kind = CS_PREFIX };

		write_log(logp, 4096, 0, 0);
		tap_ok(!lw_open(&l, logp, 4096, why, sizeof(why)) && l.n == 0,
		       "an empty log has no entries");
		lw_close(&l);
		{
			struct lw_writer w;
			static unsigned char buf[8192];

			memset(buf, 'z', sizeof(buf));
			lw_writer_open(&w, logp, 4096);
			lw_writer_add(&w, 1, 2, 0, buf);
			lw_writer_add(&w, 0, 0, LW_FLUSH, NULL);
			lw_writer_super(&w);
			lw_writer_close(&w);
		}
		model(want, 0);
		memset(want + 4096, 'z', 8192);
		s.pos = 2;
		tap_ok(!lw_open(&l, logp, SS, why, sizeof(why)) && l.sectorsize == 4096 && l.n == 2 &&
		       !cs_build_image(&l, &s, basep, outp, why, sizeof(why)) && image_is(outp, want),
		       "4096-byte sectors: sector size from the superblock, bytes in place");
		lw_close(&l);
	}
	unlink(logp);
	unlink(basep);
	unlink(outp);
	rmdir(dir);
	return tap_done();
}

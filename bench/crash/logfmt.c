/* The dm-log-writes format: scan, apply, and a writer for hand-made logs. */
#define _GNU_SOURCE
#include "logfmt.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR 32		/* sector, nr_sectors, flags, data_len: __le64 each */
#define MAX_SS (1u << 20)

static uint64_t le(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static void put(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

__attribute__((format(printf, 3, 4)))
static int failf(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, off + got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += r;
	}
	return true;
}

static bool pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pwrite(fd, (const char *)buf + done, n - done, off + done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		done += r;
	}
	return true;
}

/* One header at sector s: false (with l->stop) if it cannot be a whole entry. */
static bool zero_pad(const unsigned char *sec, uint32_t ss)
{
	for (uint32_t i = HDR; i < ss; i++)
		if (sec[i])
			return false;
	return true;
}

static bool scan_one(struct lw_log *l, uint64_t s, unsigned char *sec, struct lw_entry *e)
{
	uint64_t off = s * l->sectorsize;

	if (off + l->sectorsize > l->file_size) {
		snprintf(l->stop, sizeof(l->stop), "end of log at entry %d", l->n + 1);
		return false;
	}
	if (!pread_all(l->fd, sec, l->sectorsize, off)) {
		snprintf(l->stop, sizeof(l->stop), "read error at entry %d", l->n + 1);
		return false;
	}
	e->sector = le(sec);
	e->nr_sectors = le(sec + 8);
	e->flags = le(sec + 16);
	e->data_len = le(sec + 24);
	e->data_off = off + l->sectorsize;
	e->end = e->data_off + (e->flags & LW_DISCARD ? 0 : e->nr_sectors * l->sectorsize);
	/* never written (a hole left by a later entry that completed first),
	 * unknown flags, non-zero padding, or data past the end: not whole */
	if ((!e->flags && !e->nr_sectors) || (e->flags & ~(uint64_t)LW_FLAGS) ||
	    (!(e->flags & LW_MARK) && !zero_pad(sec, l->sectorsize)) ||
	    e->nr_sectors > (UINT64_MAX / 2) / l->sectorsize || e->end > l->file_size) {
		snprintf(l->stop, sizeof(l->stop), "entry %d at sector %llu is not whole",
			 l->n + 1, (unsigned long long)s);
		return false;
	}
	return true;
}

int lw_open(struct lw_log *l, const char *path, uint32_t default_ss, char *why, size_t n)
{
	unsigned char super[HDR + 4], *sec;
	struct stat st;
	uint64_t s = 1;
	int cap = 0;

	memset(l, 0, sizeof(*l));
	l->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (l->fd < 0 || fstat(l->fd, &st)) {
		failf(why, n, "%s: %s", path, strerror(errno));
		lw_close(l);
		return -1;
	}
	/* a directory reads as a log of 0 entries: say what it is instead */
	if (!S_ISREG(st.st_mode)) {
		lw_close(l);
		return failf(why, n, "%s: not a regular file (%s)", path,
			     S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or socket");
	}
	l->file_size = st.st_size;
	l->sectorsize = default_ss;
	if (l->file_size >= sizeof(super) && pread_all(l->fd, super, sizeof(super), 0) &&
	    le(super) == LW_MAGIC) {
		uint32_t ss;

		memcpy(&ss, super + 24, 4);
		ss = le32toh(ss);
		if (le(super + 8) != LW_VERSION || ss < HDR + 1 || ss > MAX_SS || (ss & (ss - 1))) {
			lw_close(l);
			return failf(why, n, "%s: unsupported log (version %llu, sector size %u)",
				     path, (unsigned long long)le(super + 8), ss);
		}
		l->has_super = true;
		l->sectorsize = ss;
		l->super_entries = le(super + 16);
	} else if (l->file_size >= 8 && pread_all(l->fd, super, 8, 0) && le(super)) {
		lw_close(l);
		return failf(why, n, "%s: not a dm-log-writes log", path);
	}
	if (l->sectorsize <= HDR || l->sectorsize > MAX_SS) {
		lw_close(l);
		return failf(why, n, "%s: bad sector size %u", path, l->sectorsize);
	}
	sec = malloc(l->sectorsize);
	if (!sec) {
		lw_close(l);
		return failf(why, n, "out of memory");
	}
	snprintf(l->stop, sizeof(l->stop), "end of log");
	for (;;) {
		struct lw_entry e;

		if (!scan_one(l, s, sec, &e))
			break;
		if (l->n == cap) {
			struct lw_entry *ne = realloc(l->e, (cap ? cap * 2 : 256) * sizeof(*ne));

			if (!ne) {
				free(sec);
				lw_close(l);
				return failf(why, n, "out of memory");
			}
			l->e = ne;
			cap = cap ? cap * 2 : 256;
		}
		l->e[l->n++] = e;
		s = e.end / l->sectorsize;
	}
	free(sec);
	return 0;
}

void lw_close(struct lw_log *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->e);
	l->fd = -1;
	l->e = NULL;
	l->n = 0;
}

int lw_entries_before(const struct lw_log *l, uint64_t bytes)
{
	int k = 0;

	while (k < l->n && l->e[k].end <= bytes)
		k++;
	return k;
}

bool lw_is_write(const struct lw_entry *e)
{
	return e->nr_sectors && !(e->flags & (LW_DISCARD | LW_MARK | LW_FLUSH));
}

bool lw_is_barrier(const struct lw_entry *e)
{
	return (e->flags & LW_FLUSH) || ((e->flags & LW_FUA) && lw_is_write(e));
}

int lw_apply(const struct lw_log *l, int i, int img_fd, char *why, size_t n)
{
	static char buf[1 << 20];
	const struct lw_entry *e;
	uint64_t off, len, done;

	if (i < 0 || i >= l->n)
		return failf(why, n, "no entry %d (the log has %d)", i + 1, l->n);
	e = &l->e[i];
	off = e->sector * l->sectorsize;
	len = e->nr_sectors * l->sectorsize;
	if (e->flags & LW_DISCARD) {
		/* discarded blocks may read back as anything; zeros is what
		 * a punched hole gives, and what a replay onto a file can do */
		if (!fallocate(img_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len))
			return 0;
		memset(buf, 0, sizeof(buf));
		for (done = 0; done < len; done += sizeof(buf))
			if (!pwrite_all(img_fd, buf, len - done < sizeof(buf) ? len - done :
					sizeof(buf), off + done))
				return failf(why, n, "entry %d: zeroing: %s", i + 1, strerror(errno));
		return 0;
	}
	if (!lw_is_write(e))
		return 0;
	for (done = 0; done < len; done += sizeof(buf)) {
		size_t k = len - done < sizeof(buf) ? len - done : sizeof(buf);

		if (!pread_all(l->fd, buf, k, e->data_off + done))
			return failf(why, n, "entry %d: reading the log: %s", i + 1,
				     errno ? strerror(errno) : "short");
		if (!pwrite_all(img_fd, buf, k, off + done))
			return failf(why, n, "entry %d: writing the image: %s", i + 1,
				     strerror(errno));
	}
	return 0;
}

int lw_writer_open(struct lw_writer *w, const char *path, uint32_t ss)
{
	memset(w, 0, sizeof(*w));
	w->ss = ss;
	w->next = 1;
	w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	return w->fd < 0 ? -1 : 0;
}

int lw_writer_add(struct lw_writer *w, uint64_t sector, uint64_t nr_sectors,
		  uint64_t flags, const void *data)
{
	unsigned char *sec = calloc(1, w->ss);
	bool ok;

	if (!sec)
		return -1;
	put(sec, sector);
	put(sec + 8, nr_sectors);
	put(sec + 16, flags);
	ok = pwrite_all(w->fd, sec, w->ss, w->next * w->ss);
	free(sec);
	w->next++;
	if (ok && data && !(flags & LW_DISCARD))
		ok = pwrite_all(w->fd, data, nr_sectors * w->ss, w->next * w->ss);
	if (!(flags & LW_DISCARD))
		w->next += nr_sectors;
	w->n++;
	return ok ? 0 : -1;
}

int lw_writer_super(struct lw_writer *w)
{
	unsigned char *sec = calloc(1, w->ss);
	uint32_t ss = htole32(w->ss);
	bool ok;

	if (!sec)
		return -1;
	put(sec, LW_MAGIC);
	put(sec + 8, LW_VERSION);
	put(sec + 16, w->n);
	memcpy(sec + 24, &ss, 4);
	ok = pwrite_all(w->fd, sec, w->ss, 0);
	free(sec);
	return ok ? 0 : -1;
}

int lw_writer_close(struct lw_writer *w)
{
	int rc = close(w->fd);

	w->fd = -1;
	return rc;
}

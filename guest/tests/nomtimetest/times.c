// SPDX-License-Identifier: GPL-2.0
/* nomtimetest: mtime and ctime through every kind of write. */
#include "nt.h"
#include "gtap.h"

static char *src_path;

static int op_write(int fd)
{
	char b[BLK];

	fill(b, sizeof(b), 1);
	return write(fd, b, sizeof(b)) == (ssize_t)sizeof(b) ? 0 : -1;
}

static int op_pwrite(int fd)
{
	char b[BLK];

	fill(b, sizeof(b), 2);
	return pwrite(fd, b, sizeof(b), 2 * BLK) == (ssize_t)sizeof(b) ? 0 : -1;
}

static int op_pwritev(int fd)
{
	char a[100], b[200];
	struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };

	fill(a, sizeof(a), 3);
	fill(b, sizeof(b), 4);
	return pwritev(fd, iov, 2, 5 * BLK + 7) == 300 ? 0 : -1;
}

static int op_direct(int fd)
{
	void *b;
	int r;

	if (posix_memalign(&b, BLK, BLK))
		return -1;
	fill(b, BLK, 5);
	r = pwrite(fd, b, BLK, 3 * BLK) == BLK && !fdatasync(fd) ? 0 : -1;
	free(b);
	return r;
}

static int op_extend(int fd)
{
	char b[BLK];

	fill(b, sizeof(b), 6);
	return pwrite(fd, b, sizeof(b), FSIZE) == (ssize_t)sizeof(b) ? 0 : -1;
}

static int op_mmap(int fd)
{
	char *m = mmap(NULL, BLK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 4 * BLK);
	int r;

	if (m == MAP_FAILED)
		return -1;
	m[10] = 'M';
	r = msync(m, BLK, MS_SYNC);
	munmap(m, BLK);
	return r;
}

static int op_copy(int fd)
{
	int in = open(src_path, O_RDONLY);
	loff_t off_in = 0, off_out = 6 * BLK;
	ssize_t n;

	if (in < 0)
		return -1;
	n = copy_file_range(in, &off_in, fd, &off_out, BLK, 0);
	close(in);
	return n == BLK ? 0 : -1;
}

static int op_ftruncate(int fd)
{
	return ftruncate(fd, FSIZE - BLK);
}

static int op_punch(int fd)
{
	return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 7 * BLK, BLK);
}

static int op_prealloc(int fd)
{
	return fallocate(fd, FALLOC_FL_KEEP_SIZE, FSIZE, 4 * BLK);
}

/*
 * One operation on a fresh file through an fd opened with oflags; want_m
 * and want_c say whether mtime and ctime must move.
 */
static void check_times(const char *dir, const char *what, int (*op)(int),
			int oflags, bool want_m, bool want_c)
{
	const char *f = path(dir, "t");
	struct stat a, b;
	int fd, e, r;
	bool m, c;

	make_file(f, 0, 0666);
	e = (oflags & O_NOMTIME) ? openat2_(f, O_RDWR | oflags, &fd) :
				   try_open(f, O_RDWR | oflags, &fd);
	if (e) {
		ok(0, "%s: open: %s", what, err(e));
		return;
	}
	fstat(fd, &a);
	usleep(20000);	/* the coarse clock moves every tick (4 ms at HZ=250) */
	r = op(fd);
	e = r ? errno : 0;
	fstat(fd, &b);
	close(fd);
	m = moved(&a.st_mtim, &b.st_mtim);
	c = moved(&a.st_ctim, &b.st_ctim);
	ok(!r && m == want_m && c == want_c,
	   "%s%s: mtime %s, ctime %s (want %s, %s)%s%s", what,
	   (oflags & O_NOMTIME) ? " with O_NOMTIME" : " without O_NOMTIME",
	   m ? "changed" : "unchanged", c ? "changed" : "unchanged",
	   want_m ? "changed" : "unchanged", want_c ? "changed" : "unchanged",
	   r ? ", failed: " : "", r ? err(e) : "");
}

/* The data written through an O_NOMTIME fd is there. */
static void check_data(void)
{
	const char *f = path(allow, "t");
	char b[BLK], want[BLK];
	int fd;

	make_file(f, 0, 0666);
	if (openat2_(f, O_RDWR | O_DIRECT | O_NOMTIME, &fd) || op_direct(fd)) {
		ok(0, "O_DIRECT|O_NOMTIME write: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	fd = open(f, O_RDONLY);
	fill(want, sizeof(want), 5);
	ok(fd >= 0 && pread(fd, b, BLK, 3 * BLK) == BLK && !memcmp(b, want, BLK),
	   "the data of an O_DIRECT|O_NOMTIME overwrite reads back");
	if (fd >= 0)
		close(fd);
}

static int suid_write(void *arg)
{
	int fd, e;

	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		return 102;
	e = openat2_(arg, O_RDWR | O_NOMTIME, &fd);
	if (e)
		return e;
	return op_pwrite(fd) ? errno : 0;
}

void test_times(void)
{
	static const struct {
		const char *name;
		int (*op)(int);
		int oflags;
		bool honoured;	/* O_NOMTIME keeps both times */
		bool want_m, want_c;	/* without the flag */
	} ops[] = {
		{ "write", op_write, 0, true, true, true },
		{ "pwrite", op_pwrite, 0, true, true, true },
		{ "pwritev", op_pwritev, 0, true, true, true },
		{ "O_DIRECT overwrite + fdatasync", op_direct, O_DIRECT, true, true, true },
		{ "extending write", op_extend, 0, true, true, true },
		{ "mmap store + msync", op_mmap, 0, true, true, true },
		{ "copy_file_range into the file", op_copy, 0, true, true, true },
		{ "ftruncate", op_ftruncate, 0, false, true, true },
		{ "fallocate punch hole", op_punch, 0, false, true, true },
		{ "fallocate keep size", op_prealloc, 0, false, true, true },
	};
	char what[128];
	struct stat a, b;
	const char *u = path(allow, "suid");
	int e;

	src_path = strdup(path(allow, "src"));
	make_file(src_path, 0, 0644);
	for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		snprintf(what, sizeof(what), "%s (allow_nomtime)", ops[i].name);
		check_times(allow, what, ops[i].op, ops[i].oflags,
			    ops[i].want_m, ops[i].want_c);
		check_times(allow, what, ops[i].op, ops[i].oflags | O_NOMTIME,
			    ops[i].honoured ? false : ops[i].want_m,
			    ops[i].honoured ? false : ops[i].want_c);
	}
	check_times(deny, "write (no allow_nomtime)", op_write, 0, true, true);
	check_times(deny, "O_DIRECT overwrite + fdatasync (no allow_nomtime)", op_direct, O_DIRECT, true, true);
	check_data();

	/* the set-user-ID bit is still cleared on write, without a stamp */
	make_file(u, 1000, 04755);
	stat(u, &a);
	usleep(20000);
	e = in_child(suid_write, (void *)u);
	stat(u, &b);
	ok(!e && !(b.st_mode & S_ISUID) && !moved(&a.st_ctim, &b.st_ctim) &&
	   !moved(&a.st_mtim, &b.st_mtim),
	   "owner's write with O_NOMTIME to a set-user-ID file clears the bit; mtime and ctime stay (%s, mode %o, ctime %s, mtime %s)",
	   err(e), b.st_mode & 07777, moved(&a.st_ctim, &b.st_ctim) ? "changed" : "unchanged",
	   moved(&a.st_mtim, &b.st_mtim) ? "changed" : "unchanged");
}

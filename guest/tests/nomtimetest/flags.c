// SPDX-License-Identifier: GPL-2.0
/* nomtimetest: F_SETFL/F_GETFL, openat2 and the other open flags. */
#include "nt.h"
#include "gtap.h"

/*
 * open() and openat() ignore O_NOMTIME, as they ignore every flag they do
 * not know: the flag is for openat2() and F_SETFL only.
 */
static void open_ignores(const char *f)
{
	const char *g = path(deny, "f"), *n = path(deny, "plain-new");
	struct stat a = { 0 }, b = { 0 };
	char c = 'y';
	int fd, e;

	make_file(f, 0, 0666);
	e = try_open(f, O_RDWR | O_NOMTIME, &fd);
	if (!e) {
		fstat(fd, &a);
		usleep(20000);
		e = pwrite(fd, &c, 1, 0) == 1 && !fstat(fd, &b) ? 0 : errno;
		ok(!e && !(getfl(fd) & O_NOMTIME) && moved(&a.st_mtim, &b.st_mtim),
		   "open(O_NOMTIME) on allow_nomtime: the flag is dropped (F_GETFL %#o) and a write stamps mtime (%s)",
		   getfl(fd), moved(&a.st_mtim, &b.st_mtim) ? "changed" : "unchanged");
		close(fd);
	} else {
		ok(0, "open(O_NOMTIME) on allow_nomtime: %s, want success with the flag dropped", err(e));
	}
	make_file(g, 0, 0666);
	e = try_open(g, O_RDWR | O_NOMTIME, &fd);
	ok(!e && !(getfl(fd) & O_NOMTIME),
	   "open(O_NOMTIME) without allow_nomtime succeeds, the flag dropped, as an unknown bit (%s)", err(e));
	if (!e)
		close(fd);
	unlink(n);
	e = try_open(n, O_RDWR | O_CREAT | O_EXCL | O_NOMTIME, &fd);
	ok(!e && !access(n, F_OK),
	   "open(O_CREAT|O_EXCL|O_NOMTIME) without allow_nomtime creates the file (%s)", err(e));
	if (!e)
		close(fd);
	unlink(n);
}

void test_flags(void)
{
	const char *f = strdup(path(allow, "f"));
	int fd, fd2, e, fl;

	make_file(f, 0, 0666);
	e = try_open(f, O_RDWR, &fd);
	if (e) {
		ok(0, "open %s: %s", f, err(e));
		return;
	}
	fl = getfl(fd);
	ok(!(fl & O_NOMTIME), "F_GETFL of a plain open has no O_NOMTIME (%#o)", fl);
	ok(!fcntl(fd, F_SETFL, fl | O_NOMTIME | O_APPEND) &&
	   (getfl(fd) & (O_NOMTIME | O_APPEND)) == (O_NOMTIME | O_APPEND),
	   "F_SETFL O_NOMTIME|O_APPEND: F_GETFL shows both (%#o)", getfl(fd));
	ok(!fcntl(fd, F_SETFL, getfl(fd) & ~O_NOMTIME) &&
	   (getfl(fd) & (O_NOMTIME | O_APPEND)) == O_APPEND,
	   "F_SETFL without O_NOMTIME clears it and keeps O_APPEND (%#o)", getfl(fd));
	ok(!fcntl(fd, F_SETFL, O_NONBLOCK | O_NOATIME) &&
	   (getfl(fd) & (O_NOMTIME | O_NONBLOCK | O_NOATIME | O_APPEND)) == (O_NONBLOCK | O_NOATIME),
	   "F_SETFL of other flags leaves O_NOMTIME clear (%#o)", getfl(fd));
	ok(!fcntl(fd, F_SETFL, O_NOMTIME) &&
	   (getfl(fd) & (O_NOMTIME | O_NONBLOCK | O_NOATIME)) == O_NOMTIME,
	   "F_SETFL O_NOMTIME alone replaces the other status flags as usual (%#o)", getfl(fd));
	close(fd);

	/* openat2 */
	e = openat2_(f, O_RDWR | O_NOMTIME, &fd);
	ok(!e && (getfl(fd) & O_NOMTIME), "openat2(O_NOMTIME) succeeds and F_GETFL shows it (%s)", err(e));
	if (!e)
		close(fd);
	e = openat2_(path(deny, "f"), O_RDWR | O_NOMTIME, &fd);
	ok(e == EPERM, "openat2(O_NOMTIME) without allow_nomtime: EPERM (%s)", err(e));
	e = openat2_(f, O_RDWR | (1ULL << 28), &fd);
	ok(e == EINVAL, "openat2 with unknown flag bit 28 fails with EINVAL (%s)", err(e));
	e = openat2_(f, O_RDWR | (1ULL << 30), &fd);
	ok(e == EINVAL, "openat2 with unknown flag bit 30 fails with EINVAL (%s)", err(e));
	e = openat2_(f, O_RDWR | (1ULL << 40), &fd);
	ok(e == EINVAL, "openat2 with unknown flag bit 40 fails with EINVAL (%s)", err(e));
	e = openat2_(f, O_PATH | O_NOMTIME, &fd);
	ok(e == EINVAL, "openat2(O_PATH|O_NOMTIME) fails with EINVAL (%s)", err(e));
	open_ignores(f);
	e = try_open(f, O_PATH | O_NOMTIME, &fd);
	ok(!e && !(getfl(fd) & O_NOMTIME) && (getfl(fd) & O_PATH),
	   "open(O_PATH|O_NOMTIME) drops O_NOMTIME as it drops every flag O_PATH does not take (%s)", err(e));
	if (!e)
		close(fd);

	/* the other flags behave the same with and without O_NOMTIME */
	static const struct {
		const char *name;
		int flags;
		const char *target;	/* f, dir, link */
	} sweep[] = {
		{ "O_RDONLY", O_RDONLY, "f" }, { "O_WRONLY", O_WRONLY, "f" },
		{ "O_RDWR", O_RDWR, "f" }, { "O_APPEND", O_RDWR | O_APPEND, "f" },
		{ "O_NONBLOCK", O_RDWR | O_NONBLOCK, "f" },
		{ "O_DSYNC", O_RDWR | O_DSYNC, "f" }, { "O_SYNC", O_RDWR | O_SYNC, "f" },
		{ "O_DIRECT", O_RDWR | O_DIRECT, "f" }, { "O_NOATIME", O_RDWR | O_NOATIME, "f" },
		{ "O_LARGEFILE", O_RDWR | O_LARGEFILE, "f" }, { "O_NOCTTY", O_RDWR | O_NOCTTY, "f" },
		{ "O_CLOEXEC", O_RDWR | O_CLOEXEC, "f" }, { "O_TRUNC", O_RDWR | O_TRUNC, "f" },
		{ "O_CREAT", O_RDWR | O_CREAT, "f" },
		{ "O_CREAT|O_EXCL", O_RDWR | O_CREAT | O_EXCL, "f" },
		{ "O_NOFOLLOW", O_RDWR | O_NOFOLLOW, "link" },
		{ "O_NOFOLLOW on a file", O_RDWR | O_NOFOLLOW, "f" },
		{ "O_DIRECTORY", O_RDONLY | O_DIRECTORY, "dir" },
		{ "O_DIRECTORY on a file", O_RDONLY | O_DIRECTORY, "f" },
		{ "O_RDWR on a directory", O_RDWR, "dir" },
		{ "O_PATH", O_PATH, "f" }, { "O_TMPFILE", O_RDWR | O_TMPFILE, "dir" },
	};
	mkdir(path(allow, "dir"), 0755);
	unlink(path(allow, "link"));
	if (symlink("f", path(allow, "link")))
		diag("symlink: %s", strerror(errno));
	for (unsigned int i = 0; i < sizeof(sweep) / sizeof(sweep[0]); i++) {
		const char *t = path(allow, sweep[i].target);
		uint64_t fl = (unsigned int)sweep[i].flags;
		int fl2 = -1, fl3 = -1, e1, e2, e3, fd3;
		int fdf2 = -1, fdf3 = -1;
		struct stat s2 = { 0 }, s3 = { 0 };
		bool same;

		make_file(f, 0, 0666);
		e1 = try_open(t, sweep[i].flags, &fd);
		if (!e1)
			close(fd);
		make_file(f, 0, 0666);
		e3 = openat2_(t, fl, &fd3);
		if (!e3) {
			fl3 = getfl(fd3);
			fdf3 = fcntl(fd3, F_GETFD);
			fstat(fd3, &s3);
			close(fd3);
		}
		make_file(f, 0, 0666);
		e2 = openat2_(t, fl | O_NOMTIME, &fd2);
		if (!e2) {
			fl2 = getfl(fd2);
			fdf2 = fcntl(fd2, F_GETFD);
			fstat(fd2, &s2);
			close(fd2);
		}
		/* O_PATH takes no O_NOMTIME; everywhere else it is just added */
		if (sweep[i].flags & O_PATH)
			same = e2 == EINVAL;
		else
			same = e2 == e3 && fdf2 == fdf3 && s2.st_size == s3.st_size &&
			       (e3 || (!(fl3 & O_NOMTIME) && fl2 == (fl3 | O_NOMTIME)));
		ok(same && e3 == e1,
		   "%s: openat2 gives %s, F_GETFL %#o, FD %d, size %lld; with O_NOMTIME %s, %#o, FD %d, size %lld; open() %s",
		   sweep[i].name, err(e3), fl3, fdf3, (long long)s3.st_size, err(e2), fl2,
		   fdf2, (long long)s2.st_size, err(e1));
	}
	/* O_APPEND still appends with O_NOMTIME */
	make_file(f, 0, 0666);
	e = openat2_(f, O_WRONLY | O_APPEND | O_NOMTIME, &fd);
	if (!e) {
		struct stat st;

		ok(pwrite(fd, "z", 1, 0) == 1 && !fstat(fd, &st) && st.st_size == FSIZE + 1,
		   "O_APPEND|O_NOMTIME: a write lands at the end (size %lld)", (long long)st.st_size);
		close(fd);
	} else {
		ok(0, "open O_APPEND|O_NOMTIME: %s", err(e));
	}
}

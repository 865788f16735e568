// SPDX-License-Identifier: GPL-2.0
/* nomtimetest: F_SETFL/F_GETFL, openat2 and the other open flags. */
#include "nt.h"
#include "gtap.h"

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
		int fl1 = -1, fl2 = -1, e1, e2, e3, fd3;
		int fdf1 = -1, fdf2 = -1;
		struct stat s1 = { 0 }, s2 = { 0 };
		bool same;

		make_file(f, 0, 0666);
		e1 = try_open(t, sweep[i].flags, &fd);
		if (!e1) {
			fl1 = getfl(fd);
			fdf1 = fcntl(fd, F_GETFD);
			fstat(fd, &s1);
			close(fd);
		}
		make_file(f, 0, 0666);
		e2 = try_open(t, sweep[i].flags | O_NOMTIME, &fd2);
		if (!e2) {
			fl2 = getfl(fd2);
			fdf2 = fcntl(fd2, F_GETFD);
			fstat(fd2, &s2);
			close(fd2);
		}
		make_file(f, 0, 0666);
		e3 = openat2_(t, (unsigned int)sweep[i].flags, &fd3);
		if (!e3)
			close(fd3);
		/* O_PATH drops O_NOMTIME; everywhere else it is just added */
		same = e1 == e2 && fdf1 == fdf2 && s1.st_size == s2.st_size &&
		       (e1 || (!(fl1 & O_NOMTIME) &&
			       fl2 == ((sweep[i].flags & O_PATH) ? fl1 : (fl1 | O_NOMTIME))));
		ok(same && e3 == e1,
		   "%s: open gives %s, F_GETFL %#o, FD %d, size %lld; with O_NOMTIME %s, %#o, FD %d, size %lld; openat2 %s",
		   sweep[i].name, err(e1), fl1, fdf1, (long long)s1.st_size, err(e2), fl2,
		   fdf2, (long long)s2.st_size, err(e3));
	}
	/* O_APPEND still appends with O_NOMTIME */
	make_file(f, 0, 0666);
	e = try_open(f, O_WRONLY | O_APPEND | O_NOMTIME, &fd);
	if (!e) {
		struct stat st;

		ok(pwrite(fd, "z", 1, 0) == 1 && !fstat(fd, &st) && st.st_size == FSIZE + 1,
		   "O_APPEND|O_NOMTIME: a write lands at the end (size %lld)", (long long)st.st_size);
		close(fd);
	} else {
		ok(0, "open O_APPEND|O_NOMTIME: %s", err(e));
	}
}

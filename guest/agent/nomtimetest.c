// SPDX-License-Identifier: GPL-2.0
/*
 * nomtimetest: runs inside the guest and proves O_NOMTIME and the
 * allow_nomtime mount option (TAP); also the guest half of the benchmark.
 *
 * Guards, in "test" mode: the gate (EPERM without allow_nomtime, for root
 * too; no file left behind by a refused O_CREAT; visible in /proc/mounts;
 * remount sets and withdraws it, also for files already open); the owner
 * rule (a non-owner without CAP_FOWNER, and root in a child user namespace
 * on a file it does not own there, get EPERM; root in the initial one may);
 * the F_SETFL/F_GETFL round trip; openat2 (O_NOMTIME accepted, unknown
 * flags and O_PATH|O_NOMTIME refused with EINVAL); that every other open
 * flag behaves the same with and without O_NOMTIME; and the timestamps:
 * mtime and ctime unchanged through write, pwrite, pwritev, O_DIRECT,
 * extending writes, mmap stores and copy_file_range with the flag and
 * changed without it, while ftruncate and fallocate (hole punching, a
 * keep-size preallocation) still stamp them; a write still clears
 * set-user-ID.
 *
 * Usage:
 *   nomtimetest test ALLOW DENY
 *	ALLOW and DENY are the roots of two ext4 mounts, the first with
 *	allow_nomtime, the second without; /tmp is a tmpfs without it.
 *   nomtimetest prep FILE MIB
 *	writes FILE (MIB MiB of data), fsyncs it and its directory.
 *   nomtimetest bench FILE COUNT NOMTIME SYNC GAP_MS SETTLE_S
 *	COUNT O_DIRECT overwrites of 4 KiB, each followed by SYNC (fsync,
 *	fdatasync, syncfs or none), with or without O_NOMTIME (1 or 0), GAP_MS
 *	between them (not timed) so that each one sees a new timestamp,
 *	then SETTLE_S seconds for deferred journal commits.  Prints one line
 *	"result n=.. write_us=.. sync_us=.. op_us=.. mtime_moved=0|1"
 *	(medians in microseconds).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gtap.h"

#ifndef O_NOMTIME
#define O_NOMTIME	01000000000
#endif

#define BLK	4096
#define FSIZE	(64 * 1024)

static const char *allow, *deny;

static const char *path(const char *dir, const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static const char *err(int e)
{
	return e ? strerror(e) : "success";
}

/* open(); 0 on success (fd in *fd), else errno */
static int try_open(const char *p, int flags, int *fd)
{
	*fd = open(p, flags, 0666);
	return *fd < 0 ? errno : 0;
}

static int openat2_(const char *p, uint64_t flags, int *fd)
{
	struct open_how how = { .flags = flags };

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = 0666;
	*fd = syscall(SYS_openat2, AT_FDCWD, p, &how, sizeof(how));
	return *fd < 0 ? errno : 0;
}

static void fill(char *b, size_t n, int seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = 'a' + (seed + i) % 26;
}

/* A file of FSIZE bytes of data, synced, mode 0666 (0 or errno). */
static int make_file(const char *p, uid_t uid, mode_t mode)
{
	static char b[FSIZE];
	int fd, e = 0;

	unlink(p);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0)
		return errno;
	fill(b, sizeof(b), 0);
	if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b) || fsync(fd))
		e = errno ? errno : EIO;
	if (!e && (fchown(fd, uid, uid) || fchmod(fd, mode)))
		e = errno;
	close(fd);
	return e;
}

static bool has_opt(const char *mnt, const char *opt)
{
	char line[1024], dev[256], dir[256], type[64], opts[512];
	FILE *f = fopen("/proc/mounts", "r");
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %255s %63s %511s", dev, dir, type, opts) != 4 ||
		    strcmp(dir, mnt))
			continue;
		found = false;	/* the last mount on mnt counts */
		for (char *t = strtok(opts, ","); t; t = strtok(NULL, ","))
			if (!strcmp(t, opt))
				found = true;
	}
	fclose(f);
	return found;
}

static int getfl(int fd)
{
	return fcntl(fd, F_GETFL);
}

/* Runs fn in a child; its exit status is the result (0 or an errno). */
static int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg) & 0xff);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int write_file(const char *p, const char *s)
{
	int fd = open(p, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : EIO;
}

/* A new user namespace where uid and gid 0 map to the real 0 (0 or errno). */
static int enter_userns(int extra)
{
	if (unshare(CLONE_NEWUSER | extra))
		return errno;
	if (write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/gid_map", "0 0 1"))
		return 200;
	return 0;
}

/* ---------------------------------------------------------------- */
/* The gate and the owner rule                                      */

struct who {
	const char *path;
	int flags;
	bool setfl;	/* open plainly, then F_SETFL O_NOMTIME */
};

/* open (or F_SETFL) as the current credentials: 0 or errno */
static int attempt(void *arg)
{
	struct who *w = arg;
	int fd, e;

	if (!w->setfl)
		return try_open(w->path, w->flags, &fd);
	e = try_open(w->path, w->flags & ~O_NOMTIME, &fd);
	if (e)
		return 100;
	if (fcntl(fd, F_SETFL, getfl(fd) | O_NOMTIME))
		return errno;
	return (getfl(fd) & O_NOMTIME) ? 0 : 101;
}

static int as_user(void *arg)
{
	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		return 102;
	return attempt(arg);
}

static int as_userns_root(void *arg)
{
	int e = enter_userns(0);

	return e ? 103 : attempt(arg);
}

static int remount_in_userns(void *arg)
{
	int e = enter_userns(CLONE_NEWNS);

	if (e)
		return 103;
	return mount("none", arg, NULL, MS_REMOUNT, "allow_nomtime") ? errno : 0;
}

/*
 * Root of a child user and mount namespace mounts its own tmpfs with
 * allow_nomtime, uses the flag there, withdraws the option, is refused.
 */
static int own_tmpfs_in_userns(void *arg)
{
	const char *dir = arg;
	int e = enter_userns(CLONE_NEWNS), fd;

	if (e)
		return 103;
	if (mount("nmtmp", dir, "tmpfs", 0, "allow_nomtime"))
		return 104;
	e = try_open(path(dir, "own"), O_RDWR | O_CREAT | O_NOMTIME, &fd);
	if (e)
		return e;
	close(fd);
	if (mount("nmtmp", dir, NULL, MS_REMOUNT, "noallow_nomtime"))
		return 105;
	e = try_open(path(dir, "own"), O_RDWR | O_NOMTIME, &fd);
	return e == EPERM ? 0 : 106;
}

static void test_gate(void)
{
	char own[] = "/tmp/nm-userns";
	struct who w;
	int fd, e, fd2;

	ok(has_opt(allow, "allow_nomtime"), "/proc/mounts shows allow_nomtime on %s", allow);
	ok(!has_opt(deny, "allow_nomtime"), "/proc/mounts shows no allow_nomtime on %s", deny);

	make_file(path(deny, "f"), 0, 0666);
	make_file(path(allow, "f"), 0, 0666);
	e = try_open(path(deny, "f"), O_RDWR | O_NOMTIME, &fd);
	ok(e == EPERM, "root, owner, no allow_nomtime: open(O_NOMTIME) fails with EPERM (%s)", err(e));
	if (!e)
		close(fd);
	e = try_open(path(allow, "f"), O_RDWR | O_NOMTIME, &fd);
	ok(!e && (getfl(fd) & O_NOMTIME), "allow_nomtime: open(O_NOMTIME) succeeds and F_GETFL shows it (%s)", err(e));
	if (!e)
		close(fd);

	unlink(path(deny, "new"));
	e = try_open(path(deny, "new"), O_RDWR | O_CREAT | O_NOMTIME, &fd);
	ok(e == EPERM && access(path(deny, "new"), F_OK) && errno == ENOENT,
	   "no allow_nomtime: open(O_CREAT|O_NOMTIME) fails with EPERM and creates nothing (%s)", err(e));
	unlink(path(allow, "new"));
	e = try_open(path(allow, "new"), O_RDWR | O_CREAT | O_EXCL | O_NOMTIME, &fd);
	ok(!e && (getfl(fd) & O_NOMTIME), "allow_nomtime: open(O_CREAT|O_EXCL|O_NOMTIME) creates the file with the flag (%s)", err(e));
	if (!e)
		close(fd);
	e = try_open(deny, O_RDWR | O_TMPFILE | O_NOMTIME, &fd);
	ok(e == EPERM, "no allow_nomtime: O_TMPFILE|O_NOMTIME fails with EPERM (%s)", err(e));
	if (!e)
		close(fd);
	e = try_open(allow, O_RDWR | O_TMPFILE | O_NOMTIME, &fd);
	ok(!e && (getfl(fd) & O_NOMTIME), "allow_nomtime: O_TMPFILE|O_NOMTIME succeeds (%s)", err(e));
	if (!e)
		close(fd);

	/* another filesystem type: /tmp is a tmpfs without the option */
	make_file("/tmp/nm-f", 0, 0666);
	e = try_open("/tmp/nm-f", O_RDWR | O_NOMTIME, &fd);
	ok(e == EPERM, "tmpfs without allow_nomtime: EPERM (%s)", err(e));
	if (!e)
		close(fd);
	unlink("/tmp/nm-f");

	/* F_SETFL goes through the same gate */
	e = try_open(path(deny, "f"), O_RDWR | O_APPEND, &fd);
	if (!e) {
		int before = getfl(fd);
		int r = fcntl(fd, F_SETFL, before | O_NOMTIME);

		ok(r < 0 && errno == EPERM && getfl(fd) == before,
		   "no allow_nomtime: F_SETFL O_NOMTIME fails with EPERM, F_GETFL unchanged");
		close(fd);
	} else {
		ok(0, "open %s: %s", path(deny, "f"), err(e));
	}

	/* the owner rule: a non-owner without CAP_FOWNER */
	make_file(path(allow, "rootf"), 0, 0666);
	make_file(path(allow, "userf"), 1000, 0666);
	make_file(path(allow, "otherf"), 2000, 0666);
	w = (struct who){ path(allow, "rootf"), O_RDWR | O_NOMTIME, false };
	e = in_child(as_user, &w);
	ok(e == EPERM, "uid 1000 on root's file: open(O_NOMTIME) fails with EPERM (%s)", err(e));
	w.setfl = true;
	e = in_child(as_user, &w);
	ok(e == EPERM, "uid 1000 on root's file: F_SETFL O_NOMTIME fails with EPERM (%s)", err(e));
	w = (struct who){ path(allow, "userf"), O_RDWR | O_NOMTIME, false };
	e = in_child(as_user, &w);
	ok(e == 0, "uid 1000 on its own file: open(O_NOMTIME) succeeds (%s)", err(e));
	w = (struct who){ path(deny, "f"), O_RDWR | O_NOMTIME, false };
	make_file(path(deny, "userf"), 1000, 0666);
	w.path = path(deny, "userf");
	e = in_child(as_user, &w);
	ok(e == EPERM, "uid 1000 on its own file, no allow_nomtime: EPERM (%s)", err(e));
	e = try_open(path(allow, "otherf"), O_RDWR | O_NOMTIME, &fd);
	ok(!e, "root (CAP_FOWNER) on uid 2000's file: open(O_NOMTIME) succeeds (%s)", err(e));
	if (!e)
		close(fd);

	/* root in a child user namespace, uid 2000 not mapped there */
	w = (struct who){ path(allow, "otherf"), O_RDWR | O_NOMTIME, false };
	e = in_child(as_userns_root, &w);
	ok(e == EPERM, "root in a child user namespace on a file it does not own there: open(O_NOMTIME) fails with EPERM (%s)", err(e));
	w.setfl = true;
	e = in_child(as_userns_root, &w);
	ok(e == EPERM, "root in a child user namespace on a file it does not own there: F_SETFL fails with EPERM (%s)", err(e));
	w = (struct who){ path(allow, "rootf"), O_RDWR | O_NOMTIME, false };
	e = in_child(as_userns_root, &w);
	ok(e == 0, "root in a child user namespace on a file it owns there: open(O_NOMTIME) succeeds (%s)", err(e));
	e = in_child(remount_in_userns, (void *)deny);
	ok(e == EPERM && !has_opt(deny, "allow_nomtime"),
	   "root in a child user namespace cannot remount %s with allow_nomtime (%s)", deny, err(e));
	mkdir(own, 0755);
	e = in_child(own_tmpfs_in_userns, own);
	ok(e == 0, "root in a child user namespace may allow it on a tmpfs it mounts itself, and withdraw it (%s)",
	   e > 100 ? "set-up failed" : err(e));

	/* the administrator grants and withdraws it on a live filesystem */
	e = mount("none", deny, NULL, MS_REMOUNT, "allow_nomtime") ? errno : 0;
	ok(!e && has_opt(deny, "allow_nomtime"), "remount,allow_nomtime: /proc/mounts shows it (%s)", err(e));
	e = try_open(path(deny, "f"), O_RDWR | O_NOMTIME, &fd);
	ok(!e, "after remount,allow_nomtime: open(O_NOMTIME) succeeds (%s)", err(e));
	if (e)	/* the next checks then fail on the missing flag */
		try_open(path(deny, "f"), O_RDWR, &fd);
	e = mount("none", deny, NULL, MS_REMOUNT, "noallow_nomtime") ? errno : 0;
	ok(!e && !has_opt(deny, "allow_nomtime"), "remount,noallow_nomtime: /proc/mounts no longer shows it (%s)", err(e));
	e = try_open(path(deny, "f"), O_RDWR | O_NOMTIME, &fd2);
	ok(e == EPERM, "after remount,noallow_nomtime: open(O_NOMTIME) fails with EPERM (%s)", err(e));
	if (!e)
		close(fd2);
	{
		struct stat a = { 0 }, b = { 0 };
		char c = 'x';

		fstat(fd, &a);
		usleep(20000);
		ok(fd >= 0 && pwrite(fd, &c, 1, 0) == 1 && !fstat(fd, &b) &&
		   (getfl(fd) & O_NOMTIME) &&
		   (a.st_mtim.tv_sec != b.st_mtim.tv_sec || a.st_mtim.tv_nsec != b.st_mtim.tv_nsec),
		   "a file opened before the withdrawal keeps O_NOMTIME in F_GETFL, but its writes stamp mtime again");
		if (fd >= 0)
			close(fd);
	}
	e = mount("none", allow, NULL, MS_REMOUNT, "") ? errno : 0;
	ok(!e && has_opt(allow, "allow_nomtime") && !has_opt(deny, "allow_nomtime"),
	   "a remount that does not name the option keeps it as it was (%s)", err(e));
}

/* ---------------------------------------------------------------- */
/* F_SETFL / F_GETFL, openat2, the other flags                      */

static void test_flags(void)
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

/* ---------------------------------------------------------------- */
/* The timestamps                                                   */

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

static bool moved(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec || a->tv_nsec != b->tv_nsec;
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
	e = try_open(f, O_RDWR | oflags, &fd);
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
	fd = open(f, O_RDWR | O_DIRECT | O_NOMTIME);
	if (fd < 0 || op_direct(fd)) {
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
	int fd;

	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		return 102;
	fd = open(arg, O_RDWR | O_NOMTIME);
	if (fd < 0)
		return errno;
	return op_pwrite(fd) ? errno : 0;
}

static void test_times(void)
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

static int run_tests(void)
{
	printf("TAP version 13\n");
	/* uid 1000 must reach the mounts: the initramfs root may be 0700 */
	if (chmod("/", 0755) || chmod("/mnt", 0755))
		diag("chmod / or /mnt: %s", strerror(errno));
	chmod(allow, 01777);
	chmod(deny, 01777);
	test_gate();
	test_flags();
	test_times();
	printf("1..%d\n", tests);
	diag("%d of %d failed", failed, tests);
	return failed ? 1 : 0;
}

/* ---------------------------------------------------------------- */
/* The benchmark's guest half                                       */

static int prep(const char *f, long mib)
{
	char *b = malloc(1 << 20);
	char d[512], *slash;
	int fd, dfd;

	if (!b)
		return 1;
	fill(b, 1 << 20, 9);
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (long i = 0; i < mib; i++)
		if (write(fd, b, 1 << 20) != 1 << 20)
			return 1;
	if (fsync(fd))
		return 1;
	close(fd);
	snprintf(d, sizeof(d), "%s", f);
	slash = strrchr(d, '/');
	if (slash)
		*slash = '\0';
	dfd = open(slash ? d : ".", O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || fsync(dfd))
		return 1;
	close(dfd);
	free(b);
	return 0;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int bench(const char *f, int count, int nomtime, const char *sync, int gap_ms,
		 int settle_s)
{
	double *w = calloc(count, sizeof(double)), *s = calloc(count, sizeof(double));
	double *t = calloc(count, sizeof(double));
	struct stat a, b;
	void *buf;
	long blocks;
	int fd;

	if (!w || !s || !t || posix_memalign(&buf, BLK, BLK))
		return 1;
	fd = open(f, O_RDWR | O_DIRECT | (nomtime ? O_NOMTIME : 0));
	if (fd < 0 || fstat(fd, &a)) {
		perror(f);
		return 1;
	}
	blocks = a.st_size / BLK;
	for (int i = 0; i < count; i++) {
		double t0, t1, t2;
		int r = 0;

		fill(buf, BLK, i);
		usleep(gap_ms * 1000);
		t0 = now_us();
		if (pwrite(fd, buf, BLK, (off_t)(i % blocks) * BLK) != BLK)
			return 2;
		t1 = now_us();
		if (!strcmp(sync, "fsync"))
			r = fsync(fd);
		else if (!strcmp(sync, "fdatasync"))
			r = fdatasync(fd);
		else if (!strcmp(sync, "syncfs"))
			r = syncfs(fd);
		if (r)
			return 3;
		t2 = now_us();
		w[i] = t1 - t0;
		s[i] = t2 - t1;
		t[i] = t2 - t0;
	}
	fstat(fd, &b);
	close(fd);
	sleep(settle_s);
	printf("result n=%d write_us=%.0f sync_us=%.0f op_us=%.0f mtime_moved=%d\n",
	       count, median(w, count), median(s, count), median(t, count),
	       moved(&a.st_mtim, &b.st_mtim));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "test")) {
		allow = argv[2];
		deny = argv[3];
		return run_tests();
	}
	if (argc == 4 && !strcmp(argv[1], "prep"))
		return prep(argv[2], atol(argv[3]));
	if (argc == 8 && !strcmp(argv[1], "bench"))
		return bench(argv[2], atoi(argv[3]), atoi(argv[4]), argv[5], atoi(argv[6]),
			     atoi(argv[7]));
	fprintf(stderr, "usage: nomtimetest test ALLOW DENY | prep FILE MIB | "
		"bench FILE COUNT NOMTIME fsync|fdatasync|syncfs|none GAP_MS SETTLE_S\n");
	return 2;
}

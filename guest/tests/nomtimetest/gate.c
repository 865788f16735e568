// SPDX-License-Identifier: GPL-2.0
/* nomtimetest: the gate (allow_nomtime) and the owner rule. */
#include "nt.h"
#include "gtap.h"

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
		return openat2_(w->path, w->flags, &fd);
	e = openat2_(w->path, w->flags & ~O_NOMTIME, &fd);
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
	e = openat2_(path(dir, "own"), O_RDWR | O_CREAT | O_NOMTIME, &fd);
	if (e)
		return e;
	close(fd);
	if (mount("nmtmp", dir, NULL, MS_REMOUNT, "noallow_nomtime"))
		return 105;
	e = openat2_(path(dir, "own"), O_RDWR | O_NOMTIME, &fd);
	return e == EPERM ? 0 : 106;
}

void test_gate(void)
{
	char own[] = "/tmp/nm-userns";
	struct who w;
	int fd, e, fd2;

	ok(has_opt(allow, "allow_nomtime"), "/proc/mounts shows allow_nomtime on %s", allow);
	ok(!has_opt(deny, "allow_nomtime"), "/proc/mounts shows no allow_nomtime on %s", deny);

	make_file(path(deny, "f"), 0, 0666);
	make_file(path(allow, "f"), 0, 0666);
	e = openat2_(path(deny, "f"), O_RDWR | O_NOMTIME, &fd);
	ok(e == EPERM, "root, owner, no allow_nomtime: openat2(O_NOMTIME) fails with EPERM (%s)", err(e));
	if (!e)
		close(fd);
	e = openat2_(path(allow, "f"), O_RDWR | O_NOMTIME, &fd);
	ok(!e && (getfl(fd) & O_NOMTIME), "allow_nomtime: openat2(O_NOMTIME) succeeds and F_GETFL shows it (%s)", err(e));
	if (!e)
		close(fd);

	unlink(path(deny, "new"));
	e = openat2_(path(deny, "new"), O_RDWR | O_CREAT | O_NOMTIME, &fd);
	ok(e == EPERM && access(path(deny, "new"), F_OK) && errno == ENOENT,
	   "no allow_nomtime: openat2(O_CREAT|O_NOMTIME) fails with EPERM and creates nothing (%s)", err(e));
	unlink(path(allow, "new"));
	e = openat2_(path(allow, "new"), O_RDWR | O_CREAT | O_EXCL | O_NOMTIME, &fd);
	ok(!e && (getfl(fd) & O_NOMTIME), "allow_nomtime: openat2(O_CREAT|O_EXCL|O_NOMTIME) creates the file with the flag (%s)", err(e));
	if (!e)
		close(fd);
	e = openat2_(deny, O_RDWR | O_TMPFILE | O_NOMTIME, &fd);
	ok(e == EPERM, "no allow_nomtime: O_TMPFILE|O_NOMTIME fails with EPERM (%s)", err(e));
	if (!e)
		close(fd);
	e = openat2_(allow, O_RDWR | O_TMPFILE | O_NOMTIME, &fd);
	ok(!e && (getfl(fd) & O_NOMTIME), "allow_nomtime: O_TMPFILE|O_NOMTIME succeeds (%s)", err(e));
	if (!e)
		close(fd);

	/* another filesystem type: /tmp is a tmpfs without the option */
	make_file("/tmp/nm-f", 0, 0666);
	e = openat2_("/tmp/nm-f", O_RDWR | O_NOMTIME, &fd);
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
	ok(e == EPERM, "uid 1000 on root's file: openat2(O_NOMTIME) fails with EPERM (%s)", err(e));
	w.setfl = true;
	e = in_child(as_user, &w);
	ok(e == EPERM, "uid 1000 on root's file: F_SETFL O_NOMTIME fails with EPERM (%s)", err(e));
	w = (struct who){ path(allow, "userf"), O_RDWR | O_NOMTIME, false };
	e = in_child(as_user, &w);
	ok(e == 0, "uid 1000 on its own file: openat2(O_NOMTIME) succeeds (%s)", err(e));
	w = (struct who){ path(deny, "f"), O_RDWR | O_NOMTIME, false };
	make_file(path(deny, "userf"), 1000, 0666);
	w.path = path(deny, "userf");
	e = in_child(as_user, &w);
	ok(e == EPERM, "uid 1000 on its own file, no allow_nomtime: EPERM (%s)", err(e));
	e = openat2_(path(allow, "otherf"), O_RDWR | O_NOMTIME, &fd);
	ok(!e, "root (CAP_FOWNER) on uid 2000's file: openat2(O_NOMTIME) succeeds (%s)", err(e));
	if (!e)
		close(fd);

	/* root in a child user namespace, uid 2000 not mapped there */
	w = (struct who){ path(allow, "otherf"), O_RDWR | O_NOMTIME, false };
	e = in_child(as_userns_root, &w);
	ok(e == EPERM, "root in a child user namespace on a file it does not own there: openat2(O_NOMTIME) fails with EPERM (%s)", err(e));
	w.setfl = true;
	e = in_child(as_userns_root, &w);
	ok(e == EPERM, "root in a child user namespace on a file it does not own there: F_SETFL fails with EPERM (%s)", err(e));
	w = (struct who){ path(allow, "rootf"), O_RDWR | O_NOMTIME, false };
	e = in_child(as_userns_root, &w);
	ok(e == 0, "root in a child user namespace on a file it owns there: openat2(O_NOMTIME) succeeds (%s)", err(e));
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
	e = openat2_(path(deny, "f"), O_RDWR | O_NOMTIME, &fd);
	ok(!e, "after remount,allow_nomtime: openat2(O_NOMTIME) succeeds (%s)", err(e));
	if (e)	/* the next checks then fail on the missing flag */
		try_open(path(deny, "f"), O_RDWR, &fd);
	e = mount("none", deny, NULL, MS_REMOUNT, "noallow_nomtime") ? errno : 0;
	ok(!e && !has_opt(deny, "allow_nomtime"), "remount,noallow_nomtime: /proc/mounts no longer shows it (%s)", err(e));
	e = openat2_(path(deny, "f"), O_RDWR | O_NOMTIME, &fd2);
	ok(e == EPERM, "after remount,noallow_nomtime: openat2(O_NOMTIME) fails with EPERM (%s)", err(e));
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

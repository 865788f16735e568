// SPDX-License-Identifier: GPL-2.0
/*
 * knobtest: runs inside the guest and proves kernel.suspend_sync (TAP).
 *
 * Guards: the default value; that the sysctl and /sys/power/sync_on_suspend
 * are one state; that malformed writes fail and change nothing; that the
 * documented leniency (white space, 0x1, 01) holds; that a non-root writer
 * and root in a new user namespace are refused.
 *
 * Usage: knobtest [expected default: 0 or 1]   (default 1)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SYSCTL	"/proc/sys/kernel/suspend_sync"
#define SYSFS	"/sys/power/sync_on_suspend"

static int tests, failed;

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		failed++;
}

/* Value of a view as 0/1, or -1 if unreadable or not a plain 0/1 line. */
static int get(const char *path)
{
	char buf[16] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n == 2 && buf[1] == '\n' && (buf[0] == '0' || buf[0] == '1'))
		return buf[0] - '0';
	return -1;
}

/* One write() of len bytes at offset off; 0 or errno. */
static int put_at(const char *path, const char *val, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = pwrite(fd, val, len, off);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;	/* a short write is a silent partial accept */
	close(fd);
	return err;
}

static int put(const char *path, const char *val)
{
	return put_at(path, val, strlen(val), 0);
}

/* Runs fn in a child; returns the child's exit code (an errno or 0). */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* plain write(): seq_file-backed id maps refuse pwrite() */
static int put_map(const char *path, const char *map)
{
	int fd, err = 0;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, map, strlen(map)) != (ssize_t)strlen(map))
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static int write_map(const char *file, const char *map)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	return put_map(path, map);
}

static int as_user(void)
{
	if (setgid(1000) || setuid(1000))
		return 200;
	return put(SYSCTL, "0");
}

/* root in a child user namespace, mapped to the real root: passes the
 * mode check, so only the capability check can refuse it */
static int as_userns_root(void)
{
	if (unshare(CLONE_NEWUSER))
		return 201;
	if (write_map("uid_map", "0 0 1"))
		return 202;
	if (write_map("setgroups", "deny"))
		return 203;
	if (write_map("gid_map", "0 0 1"))
		return 204;
	return put(SYSCTL, "0");
}

/*
 * An unprivileged user who becomes root of its own user namespace.  As with
 * newuidmap(1), the privileged parent writes the child's id maps.
 */
static int user_userns_root(void)
{
	int go[2], ready[2], status, err = -1;
	char path[64], c;
	pid_t pid;

	if (pipe(go) || pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (setgid(1000) || setuid(1000) || unshare(CLONE_NEWUSER))
			_exit(200);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(201);
		if (getuid() != 0)
			_exit(202);	/* the map did not make us root */
		_exit(put(SYSCTL, "0"));
	}
	if (pid < 0 || read(ready[0], &c, 1) != 1)
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	if (!put_map(path, "0 1000 1")) {
		snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
		put_map(path, "deny");
		snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
		put_map(path, "0 1000 1");
	}
	if (write(go[1], "g", 1) == 1 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status))
		err = WEXITSTATUS(status);
out:
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	return err;
}

static const char *show(const char *s, size_t len)
{
	static char buf[64];
	size_t i, o = 0;

	for (i = 0; i < len && o < sizeof(buf) - 8; i++) {
		if (s[i] == '\n')
			o += sprintf(buf + o, "\\n");
		else if (s[i] == '\t')
			o += sprintf(buf + o, "\\t");
		else
			buf[o++] = s[i];
	}
	if (i < len)
		o += sprintf(buf + o, "...(%zu)", len);
	buf[o] = '\0';
	return buf;
}

int main(int argc, char **argv)
{
	static const char *const bad[] = {
		"2", "-1", "\n", " ", "abc", "1abc", "0 1", "1 0", "1\n1\n",
		"+1", "1.0", "0x2", "08", "1,0", "true", "y", "on", "-0x1",
		"99999999999999999999999", "00000000000000000000001",
	};
	static const char *const lenient[] = {
		"1\n", " 1", "1 \n", "\t1\n", "0x1", "01",
	};
	int def = argc > 1 ? atoi(argv[1]) : 1;
	char longbuf[5000];
	struct stat st;
	unsigned int i;
	int start, err;

	printf("TAP version 13\n");

	ok(stat(SYSCTL, &st) == 0 && (st.st_mode & 07777) == 0644 &&
	   st.st_uid == 0, "%s exists, mode 0644, owned by root", SYSCTL);
	ok(get(SYSCTL) == def, "sysctl default is %d (read %d)", def,
	   get(SYSCTL));
	ok(get(SYSFS) == def, "sysfs default is %d (read %d)", def, get(SYSFS));

	/* one state, two views */
	ok(!put(SYSCTL, "0") && get(SYSFS) == 0, "sysctl 0 shows in sysfs");
	ok(!put(SYSFS, "1") && get(SYSCTL) == 1, "sysfs 1 shows in sysctl");
	ok(!put(SYSFS, "0") && get(SYSCTL) == 0, "sysfs 0 shows in sysctl");
	ok(!put(SYSCTL, "1") && get(SYSFS) == 1, "sysctl 1 shows in sysfs");

	/* malformed writes, from both starting values */
	for (start = 0; start <= 1; start++) {
		put(SYSCTL, start ? "1" : "0");
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			err = put(SYSCTL, bad[i]);
			ok(err == EINVAL && get(SYSCTL) == start &&
			   get(SYSFS) == start,
			   "write \"%s\" at %d: EINVAL, unchanged (errno %d)",
			   show(bad[i], strlen(bad[i])), start, err);
		}
		/* a zero-length write() never reaches the handler: it writes
		 * nothing, returns 0, and must leave the value alone */
		err = put(SYSCTL, "");
		ok(err == 0 && get(SYSCTL) == start && get(SYSFS) == start,
		   "zero-length write at %d: nothing written, unchanged (errno %d)",
		   start, err);
		memset(longbuf, 'a', sizeof(longbuf));
		longbuf[sizeof(longbuf) - 1] = '0' + !start;
		err = put_at(SYSCTL, longbuf, sizeof(longbuf), 0);
		ok(err == EINVAL && get(SYSCTL) == start,
		   "overlong %zu-byte write at %d: EINVAL, unchanged (errno %d)",
		   sizeof(longbuf), start, err);
		err = put_at(SYSCTL, start ? "0" : "1", 1, 1);
		ok(err == EINVAL && get(SYSCTL) == start,
		   "write at offset 1 at %d: EINVAL, unchanged (errno %d)",
		   start, err);
	}

	/* the leniency the documentation promises */
	for (i = 0; i < sizeof(lenient) / sizeof(lenient[0]); i++) {
		put(SYSCTL, "0");
		err = put(SYSCTL, lenient[i]);
		ok(!err && get(SYSCTL) == 1 && get(SYSFS) == 1,
		   "write \"%s\" accepted as 1 (errno %d)",
		   show(lenient[i], strlen(lenient[i])), err);
	}
	put(SYSCTL, "0");
	ok(!put(SYSCTL, "0x0\n") && get(SYSCTL) == 0, "write \"0x0\" is 0");

	/* privilege: the value must stay 1 through every refused write */
	put(SYSCTL, "1");
	err = in_child(as_user);
	ok(err == EACCES && get(SYSCTL) == 1,
	   "uid 1000 write refused (EACCES), unchanged (got %d)", err);
	err = in_child(as_userns_root);
	ok(err == EPERM && get(SYSCTL) == 1,
	   "root in a new user namespace refused (EPERM), unchanged (got %d)",
	   err);
	err = user_userns_root();
	ok((err == EACCES || err == EPERM) && get(SYSCTL) == 1,
	   "uid 1000 as root of its own user namespace refused (got %d)", err);

	put(SYSCTL, def ? "1" : "0");
	printf("1..%d\n", tests);
	printf("# knobtest: %d passed, %d failed\n", tests - failed, failed);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * knobtest: runs inside the guest and proves kernel.suspend_sync (TAP).
 *
 * Guards what the series documents: the default; that the sysctl and
 * /sys/power/sync_on_suspend are one state, both root-owned with mode 0644;
 * that other numbers fail with EINVAL, and that failed writes and writes
 * with no value change nothing; that writes behave exactly like those of
 * the sysctl core's own 0..1 integer sysctl (fs.protected_symlinks, handled
 * by proc_dointvec_minmax()) under every kernel.sysctl_writes_strict mode,
 * for malformed, lenient, empty, PAGE_SIZE-and-longer, offset and partial
 * writes on one fd; that an empty write cannot undo a concurrent sysfs
 * store; and that every writer (non-root, root without CAP_SYS_ADMIN, root
 * without any capability, root in user namespaces) gets the same answer from
 * both views.
 *
 * Usage: knobtest [expected default: 0 or 1]   (default 1)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gtap.h"

#define SYSCTL	"/proc/sys/kernel/suspend_sync"
#define SYSFS	"/sys/power/sync_on_suspend"
/* the sysctl core's own 0..1 integer: proc_dointvec_minmax, 0644, root */
#define REF	"/proc/sys/fs/protected_symlinks"
#define STRICT	"/proc/sys/kernel/sysctl_writes_strict"

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

/* One write() of len bytes at offset off on a fresh fd; 0 or errno. */
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

/* Sets a 0/1 file whatever sysctl_writes_strict says (offset 0). */
static void set(const char *path, int v)
{
	put(path, v ? "1" : "0");
}

static int get_int(const char *path)
{
	char buf[16] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -100;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -100;
}

static void set_int(const char *path, int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", v);
	put(path, buf);
}

static const char *show(const char *s, size_t len)
{
	static char buf[80];
	size_t i, o = 0;

	for (i = 0; i < len && o < 40; i++) {
		if (s[i] == '\n')
			o += sprintf(buf + o, "\\n");
		else if (s[i] == '\t')
			o += sprintf(buf + o, "\\t");
		else
			buf[o++] = s[i];
	}
	if (i < len)
		o += sprintf(buf + o, "...(%zu bytes)", len);
	buf[o] = '\0';
	return buf;
}

/* ---- writes, compared with the sysctl core's own integer sysctl ---- */

struct step {
	const char *buf;
	size_t len;
	off_t off;		/* pwrite() at off; -1: write() at the fd's offset */
};

struct scenario {
	char name[96];
	int n;
	struct step s[2];
};

struct outcome {
	long ret[2];		/* bytes written, or -errno */
	int val;
};

static int n_scn;
static struct scenario scn[64];

static void add1(const char *buf, size_t len, off_t off, const char *name)
{
	struct scenario *c = &scn[n_scn++];

	c->n = 1;
	c->s[0] = (struct step){ buf, len, off };
	if (name)
		snprintf(c->name, sizeof(c->name), "%s", name);
	else
		snprintf(c->name, sizeof(c->name), "\"%s\"", show(buf, len));
}

static void add2(const char *a, const char *b)
{
	struct scenario *c = &scn[n_scn++];
	char sa[48];

	c->n = 2;
	c->s[0] = (struct step){ a, strlen(a), -1 };
	c->s[1] = (struct step){ b, strlen(b), -1 };
	snprintf(sa, sizeof(sa), "%s", show(a, strlen(a)));
	snprintf(c->name, sizeof(c->name), "\"%s\" then \"%s\" on one fd", sa,
		 show(b, strlen(b)));
}

static void run(const char *path, int start, const struct scenario *c,
		struct outcome *o)
{
	int fd, i;

	set(path, start);
	memset(o, 0, sizeof(*o));
	fd = open(path, O_WRONLY);
	for (i = 0; i < c->n; i++) {
		const struct step *s = &c->s[i];
		ssize_t r;

		if (fd < 0) {
			o->ret[i] = -errno;
			continue;
		}
		r = s->off < 0 ? write(fd, s->buf, s->len) :
				 pwrite(fd, s->buf, s->len, s->off);
		o->ret[i] = r < 0 ? -errno : r;
	}
	if (fd >= 0)
		close(fd);
	o->val = get(path);
}

static const char *fmt_outcome(const struct scenario *c, const struct outcome *o)
{
	static char bufs[4][128];
	static int next;
	char *buf = bufs[next++ % 4];
	int i, n = 0;

	for (i = 0; i < c->n; i++) {
		if (o->ret[i] < 0)
			n += snprintf(buf + n, sizeof(bufs[0]) - n, "%s%s", i ? "," : "",
				      strerror((int)-o->ret[i]));
		else
			n += snprintf(buf + n, sizeof(bufs[0]) - n, "%s%ld", i ? "," : "",
				      o->ret[i]);
	}
	snprintf(buf + n, sizeof(bufs[0]) - n, " -> %d", o->val);
	return buf;
}

static void build_scenarios(void)
{
	static const char *const single[] = {
		"0", "1", "1\n", " 1", "1 \n", "\t1\n", "0x1", "01", "0x0\n",
		"2", "-1", "\n", " ", "abc", "1abc", "0 1", "1 0", "1\n1\n",
		"+1", "1.0", "0x2", "08", "1,0", "true", "y", "on", "-0x1",
		"99999999999999999999999", "00000000000000000000001",
	};
	static char page_plus[4097], page[4096], spaces_then[4097], junk[5000];
	unsigned int i;

	for (i = 0; i < sizeof(single) / sizeof(single[0]); i++)
		add1(single[i], strlen(single[i]), 0, NULL);
	add1("", 0, 0, "zero-length write");
	/* a value, then white space past PAGE_SIZE - 1, then another value */
	memset(page_plus, ' ', sizeof(page_plus));
	page_plus[0] = '1';
	page_plus[sizeof(page_plus) - 1] = '0';
	add1(page_plus, sizeof(page_plus), 0, "4097 bytes: \"1\", 4095 spaces, \"0\"");
	memset(page, ' ', sizeof(page));
	page[0] = '0';
	page[sizeof(page) - 1] = '\n';
	add1(page, sizeof(page), 0, "4096 bytes: \"0\", 4094 spaces, newline");
	memset(spaces_then, ' ', sizeof(spaces_then));
	spaces_then[sizeof(spaces_then) - 1] = '1';
	add1(spaces_then, sizeof(spaces_then), 0, "4097 bytes: 4096 spaces, \"1\"");
	memset(junk, 'a', sizeof(junk));
	junk[sizeof(junk) - 1] = '1';
	add1(junk, sizeof(junk), 0, "5000 bytes: 4999 \"a\", \"1\"");
	add1("1", 1, 1, "\"1\" at offset 1");
	add1("0", 1, 1, "\"0\" at offset 1");
	add2("1", "\n");
	add2("0", "1");
	add2("1", "0");
	add2("", "1");
	add2("0 ", "1");
}

/* Every scenario, from both values, on both files: same result. */
static void compare_with_core(int strict)
{
	int i, start;

	set_int(STRICT, strict);
	if (get_int(STRICT) != strict) {
		ok(0, "kernel.sysctl_writes_strict set to %d", strict);
		return;
	}
	for (i = 0; i < n_scn; i++) {
		const struct scenario *c = &scn[i];
		struct outcome ref[2], our[2];
		bool same = true;

		for (start = 0; start <= 1; start++) {
			run(REF, start, c, &ref[start]);
			run(SYSCTL, start, c, &our[start]);
			same = same && !memcmp(&ref[start], &our[start], sizeof(our[0]));
		}
		ok(same, "strict=%d %s: as fs.protected_symlinks (from 0: %s; from 1: %s)",
		   strict, c->name, fmt_outcome(c, &our[0]), fmt_outcome(c, &our[1]));
		if (!same)
			diag("fs.protected_symlinks: from 0: %s; from 1: %s",
			     fmt_outcome(c, &ref[0]), fmt_outcome(c, &ref[1]));
	}
}

/* What the documentation says, checked directly (default strict mode). */
static void documented(void)
{
	static const char *const other[] = { "2", "-1", "3\n", "99999999999999999999999" };
	int start, err;
	unsigned int i;
	struct outcome o;
	struct scenario two = { .n = 2 };

	for (start = 0; start <= 1; start++) {
		for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
			set(SYSCTL, start);
			err = put(SYSCTL, other[i]);
			ok(err == EINVAL && get(SYSCTL) == start && get(SYSFS) == start,
			   "\"%s\" at %d: EINVAL, unchanged (errno %d)",
			   show(other[i], strlen(other[i])), start, err);
		}
		set(SYSCTL, start);
		err = put(SYSCTL, "abc");
		ok(err == EINVAL && get(SYSCTL) == start,
		   "\"abc\" at %d: fails, unchanged (errno %d)", start, err);
		set(SYSCTL, start);
		err = put(SYSCTL, "");
		ok(err == 0 && get(SYSCTL) == start && get(SYSFS) == start,
		   "zero-length write at %d: no value, unchanged (errno %d)", start, err);
		set(SYSCTL, start);
		err = put(SYSCTL, "\n");
		ok(err == EINVAL && get(SYSCTL) == start,
		   "write of a lone newline at %d: no value, EINVAL, unchanged (errno %d)",
		   start, err);
		set(SYSCTL, start);
		err = put_at(SYSCTL, start ? "0" : "1", 1, 1);
		ok(err == 0 && get(SYSCTL) == start,
		   "strict=1: write at offset 1 at %d: ignored, unchanged (errno %d)",
		   start, err);
	}
	set(SYSCTL, 0);
	ok(!put(SYSCTL, "1\n") && get(SYSCTL) == 1 && get(SYSFS) == 1, "\"1\\n\" sets 1");
	ok(!put(SYSCTL, "0") && get(SYSCTL) == 0 && get(SYSFS) == 0, "\"0\" sets 0");

	/* sysctl_writes_strict=1: the value is in the first write at offset 0 */
	two.s[0] = (struct step){ "1", 1, -1 };
	two.s[1] = (struct step){ "\n", 1, -1 };
	run(SYSCTL, 0, &two, &o);
	ok(o.ret[0] == 1 && o.ret[1] == 1 && o.val == 1,
	   "strict=1: \"1\" then \"\\n\" on one fd: both accepted, value 1 (%s)",
	   fmt_outcome(&two, &o));
	two.s[0] = (struct step){ "0", 1, -1 };
	two.s[1] = (struct step){ "1", 1, -1 };
	run(SYSCTL, 1, &two, &o);
	ok(o.ret[0] == 1 && o.ret[1] == 1 && o.val == 0,
	   "strict=1: \"0\" then \"1\" on one fd: the second changes nothing (%s)",
	   fmt_outcome(&two, &o));
}

/*
 * An empty write reaches the handler; it must not write back the value it
 * read on entry over a sysfs store made meanwhile.  A child hammers the
 * sysctl with empty writes while we flip the value through sysfs and read
 * it back at once.
 */
static void empty_writes_race(void)
{
	struct timespec t0, t;
	long flips = 0, lost = 0;
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		int fd = open(SYSCTL, O_WRONLY);

		for (;;)
			if (pwrite(fd, "", 0, 0) < 0)
				_exit(1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int v = flips++ & 1;

		put(SYSFS, v ? "1" : "0");
		if (get(SYSFS) != v)
			lost++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < 3);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ok(pid > 0 && lost == 0,
	   "empty sysctl writes never undo a sysfs store (%ld of %ld flips lost)",
	   lost, flips);
}

/* ---- writers: the same answer from both views ---- */

static const char *target;	/* the view a child writes */

static int caps(uint32_t keep0, uint32_t keep1)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return errno;
	/* effective = permitted: setuid() clears effective, KEEPCAPS or not */
	d[0].permitted &= keep0;
	d[0].effective = d[0].permitted;
	d[0].inheritable &= keep0;
	d[1].permitted &= keep1;
	d[1].effective = d[1].permitted;
	d[1].inheritable &= keep1;
	return syscall(SYS_capset, &h, d) ? errno : 0;
}

static int as_user(void)
{
	if (setgid(1000) || setuid(1000))
		return 200;
	return put(target, "0");
}

/* root, without CAP_SYS_ADMIN (proved: sethostname() is refused) */
static int as_root_no_sys_admin(void)
{
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) ||
	    caps(~(1u << CAP_SYS_ADMIN), ~0u))
		return 200;
	if (!sethostname("knobtest", 8) || errno != EPERM)
		return 201;
	return put(target, "0");
}

/* root with no capability at all: only the file mode lets it write */
static int as_root_no_caps(void)
{
	if (caps(0, 0))
		return 200;
	if (!sethostname("knobtest", 8) || errno != EPERM)
		return 201;
	return put(target, "0");
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

/* root in a child user namespace, mapped to the real root */
static int as_userns_root(void)
{
	if (unshare(CLONE_NEWUSER))
		return 201;
	if (put_map("/proc/self/uid_map", "0 0 1"))
		return 202;
	if (put_map("/proc/self/setgroups", "deny"))
		return 203;
	if (put_map("/proc/self/gid_map", "0 0 1"))
		return 204;
	return put(target, "0");
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
		_exit(put(target, "0"));
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

/* uid 1000 holding CAP_DAC_OVERRIDE: sysfs honours it, the sysctl core not */
static int user_dac_override(void)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgid(1000) || setuid(1000))
		return 200;
	if (caps(1u << CAP_DAC_OVERRIDE, 0))
		return 201;
	return put(target, "0");
}

static int fork_run(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* errno of fn's write of "0" to view, from 1; value left in *val */
static int attempt(const char *view, int (*fn)(void), int *val)
{
	int err;

	set(SYSCTL, 1);
	target = view;
	err = fn == user_userns_root ? user_userns_root() : fork_run(fn);
	*val = get(SYSCTL);
	set(SYSCTL, 1);
	return err;
}

static void writer(const char *who, int (*fn)(void), int want)
{
	int e1, e2, v1, v2;

	e1 = attempt(SYSCTL, fn, &v1);
	e2 = attempt(SYSFS, fn, &v2);
	ok(e1 == want && e2 == want && v1 == (want ? 1 : 0) && v2 == v1,
	   "%s: sysctl %s, sysfs %s, value %d and %d (want %s)", who,
	   e1 ? strerror(e1) : "accepted", e2 ? strerror(e2) : "accepted", v1, v2,
	   want ? strerror(want) : "accepted");
}

int main(int argc, char **argv)
{
	int def = argc > 1 ? atoi(argv[1]) : 1;
	int strict = get_int(STRICT), ref = get(REF);
	struct stat st1, st2;
	int e1, e2, v1, v2;

	printf("TAP version 13\n");

	ok(!stat(SYSCTL, &st1) && !stat(SYSFS, &st2) &&
	   (st1.st_mode & 07777) == 0644 && (st2.st_mode & 07777) == 0644 &&
	   !st1.st_uid && !st1.st_gid && !st2.st_uid && !st2.st_gid,
	   "both views are root's, mode 0644");
	ok(get(SYSCTL) == def, "sysctl default is %d (read %d)", def, get(SYSCTL));
	ok(get(SYSFS) == def, "sysfs default is %d (read %d)", def, get(SYSFS));

	/* one state, two views */
	ok(!put(SYSCTL, "0") && get(SYSFS) == 0, "sysctl 0 shows in sysfs");
	ok(!put(SYSFS, "1") && get(SYSCTL) == 1, "sysfs 1 shows in sysctl");
	ok(!put(SYSFS, "0") && get(SYSCTL) == 0, "sysfs 0 shows in sysctl");
	ok(!put(SYSCTL, "1") && get(SYSFS) == 1, "sysctl 1 shows in sysfs");

	ok(strict == 1 && ref >= 0, "kernel.sysctl_writes_strict is 1 (default), "
	   "fs.protected_symlinks readable (%d, %d)", strict, ref);
	documented();

	build_scenarios();
	compare_with_core(1);
	compare_with_core(0);
	compare_with_core(-1);
	set_int(STRICT, strict);
	if (ref >= 0)
		set(REF, ref);

	empty_writes_race();

	/* every writer: the value starts at 1, each writes "0" */
	writer("uid 1000", as_user, EACCES);
	writer("root without CAP_SYS_ADMIN", as_root_no_sys_admin, 0);
	writer("root without any capability", as_root_no_caps, 0);
	writer("root in a new user namespace, mapped to root", as_userns_root, 0);
	writer("uid 1000 as root of its own user namespace", user_userns_root, EACCES);
	/* the one difference, the sysctl core's rule for every sysctl */
	e1 = attempt(SYSCTL, user_dac_override, &v1);
	e2 = attempt(SYSFS, user_dac_override, &v2);
	ok(e1 == EACCES && v1 == 1 && e2 == 0 && v2 == 0,
	   "uid 1000 with CAP_DAC_OVERRIDE: sysctl %s (value %d), sysfs %s (value %d)",
	   e1 ? strerror(e1) : "accepted", v1, e2 ? strerror(e2) : "accepted", v2);

	set(SYSCTL, def);
	printf("1..%d\n", tests);
	printf("# knobtest: %d passed, %d failed\n", tests - failed, failed);
	return failed ? 1 : 0;
}

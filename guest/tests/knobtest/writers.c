// SPDX-License-Identifier: GPL-2.0
/* knobtest: every kind of writer, from both views. */
#include "kt.h"
#include "gtap.h"

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

void test_writers(void)
{
	int e1, e2, v1, v2;

	/* every writer: the value starts at 1, each writes "0" */
	writer("uid 1000", as_user, EACCES);
	writer("root without CAP_SYS_ADMIN", as_root_no_sys_admin, 0);
	writer("root without any capability", as_root_no_caps, 0);
	writer("root in a new user namespace, mapped to root", as_userns_root, 0);
	writer("uid 1000 as root of its own user namespace", user_userns_root, EACCES);
	/* a difference: the sysctl core's rule for every sysctl (diffs.c: the rest) */
	e1 = attempt(SYSCTL, user_dac_override, &v1);
	e2 = attempt(SYSFS, user_dac_override, &v2);
	ok(e1 == EACCES && v1 == 1 && e2 == 0 && v2 == 0,
	   "uid 1000 with CAP_DAC_OVERRIDE: sysctl %s (value %d), sysfs %s (value %d)",
	   e1 ? strerror(e1) : "accepted", v1, e2 ? strerror(e2) : "accepted", v2);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * knobtest: where the two views differ, as kernel.rst documents: syntax,
 * file offsets, when and against which IDs permission is checked, and the
 * hooks that see only one of them (cgroup sysctl BPF, an LSM: Landlock).
 */
#include "kt.h"
#include "gtap.h"

#include <linux/bpf.h>
#include <linux/landlock.h>
#include <sys/fsuid.h>
#include <sys/mount.h>

/* bytes written or -errno, then the value */
struct res {
	long ret;
	int val;
};

static long wr(int fd, const char *s, size_t len, off_t off)
{
	ssize_t n = off < 0 ? write(fd, s, len) : pwrite(fd, s, len, off);

	return n < 0 ? -errno : n;
}

static const char *rs(long r)
{
	static char b[4][32];
	static int i;

	i = (i + 1) % 4;
	if (r < 0)
		snprintf(b[i], sizeof(b[i]), "%s", strerror(-r));
	else
		snprintf(b[i], sizeof(b[i]), "%ld bytes", r);
	return b[i];
}

/* one write on a fresh fd from value start */
static struct res one(const char *view, int start, const char *s, size_t len, off_t off)
{
	struct res r = { -EBADF, -1 };
	int fd;

	set(SYSCTL, start);
	fd = open(view, O_WRONLY);
	if (fd >= 0) {
		r.ret = wr(fd, s, len, off);
		close(fd);
	} else {
		r.ret = -errno;
	}
	r.val = get(SYSCTL);
	return r;
}

static void syntax(void)
{
	static const struct {
		const char *in;
		int start;
		int ctl_err, ctl_val, fs_err, fs_val;	/* want: errno (0 ok), value */
	} t[] = {
		{ "1", 0, 0, 1, 0, 1 },
		{ "1\n", 0, 0, 1, 0, 1 },
		{ " 1", 0, 0, 1, EINVAL, 0 },
		{ "1 ", 0, 0, 1, EINVAL, 0 },
		{ "\t1\n", 0, 0, 1, EINVAL, 0 },
		{ "1\n\n", 0, 0, 1, EINVAL, 0 },
		{ "+1", 0, EINVAL, 0, 0, 1 },
		{ "-0", 1, 0, 0, EINVAL, 1 },
		{ "0x1", 0, 0, 1, EINVAL, 0 },
		{ "01", 0, 0, 1, 0, 1 },
		{ "2", 0, EINVAL, 0, EINVAL, 0 },
	};

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		size_t len = strlen(t[i].in);
		struct res c = one(SYSCTL, t[i].start, t[i].in, len, 0);
		struct res f = one(SYSFS, t[i].start, t[i].in, len, 0);
		long wc = t[i].ctl_err ? -t[i].ctl_err : (long)len;
		long wf = t[i].fs_err ? -t[i].fs_err : (long)len;

		ok(c.ret == wc && c.val == t[i].ctl_val && f.ret == wf && f.val == t[i].fs_val,
		   "\"%s\" from %d: sysctl %s, value %d; sysfs %s, value %d (want %s, %d; %s, %d)",
		   show(t[i].in, len), t[i].start, rs(c.ret), c.val, rs(f.ret), f.val,
		   rs(wc), t[i].ctl_val, rs(wf), t[i].fs_val);
	}
}

/* two writes on one fd; the second one lands at offset 1 */
static struct res two(const char *view, int start, const char *a, const char *b, long *r1)
{
	struct res r = { -EBADF, -1 };
	int fd;

	set(SYSCTL, start);
	fd = open(view, O_WRONLY);
	*r1 = -EBADF;
	if (fd >= 0) {
		*r1 = wr(fd, a, strlen(a), -1);
		r.ret = wr(fd, b, strlen(b), -1);
		close(fd);
	}
	r.val = get(SYSCTL);
	return r;
}

static void offsets(void)
{
	struct res c = one(SYSCTL, 1, "0", 1, 1), f = one(SYSFS, 1, "0", 1, 1);
	long c1, f1;

	/* the sysctl takes the bytes and ignores them */
	ok(c.ret == 1 && c.val == 1 && f.ret == 1 && f.val == 0,
	   "\"0\" at offset 1, from 1: sysctl %s, value %d; sysfs %s, value %d (want 1 bytes, 1; 1 bytes, 0)",
	   rs(c.ret), c.val, rs(f.ret), f.val);
	c = two(SYSCTL, 0, "1", "0", &c1);
	f = two(SYSFS, 0, "1", "0", &f1);
	ok(c1 == 1 && c.ret == 1 && c.val == 1 && f1 == 1 && f.ret == 1 && f.val == 0,
	   "\"1\" then \"0\" on one fd, from 0: sysctl %s, %s, value %d; sysfs %s, %s, value %d (want the sysctl at 1, sysfs at 0)",
	   rs(c1), rs(c.ret), c.val, rs(f1), rs(f.ret), f.val);
}

/* opened as root, written after dropping to uid 1000: errno of the write */
static int write_after_drop(void *arg)
{
	int fd = open(arg, O_WRONLY);

	if (fd < 0)
		return 200;
	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		return 201;
	return write(fd, "0", 1) == 1 ? 0 : errno;
}

/* effective uid 0, file system uid 1000 */
static int fsuid_user(void *arg)
{
	setfsuid(1000);
	if (setfsuid(-1) != 1000)
		return 200;
	return put(arg, "0");
}

/* effective uid 1000, file system uid 0 */
static int euid_user(void *arg)
{
	if (setresuid(0, 1000, 0))
		return 200;
	setfsuid(0);
	if (setfsuid(-1) != 0)
		return 201;
	return put(arg, "0");
}

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

static void both(const char *what, int (*fn)(void *), int want_ctl, int want_fs)
{
	int ec, ef, vc, vf;

	set(SYSCTL, 1);
	ec = in_child(fn, SYSCTL);
	vc = get(SYSCTL);
	set(SYSCTL, 1);
	ef = in_child(fn, SYSFS);
	vf = get(SYSCTL);
	set(SYSCTL, 1);
	ok(ec == want_ctl && vc == (want_ctl ? 1 : 0) && ef == want_fs && vf == (want_fs ? 1 : 0),
	   "%s: sysctl %s (value %d), sysfs %s (value %d); want %s, %s", what,
	   ec ? strerror(ec) : "accepted", vc, ef ? strerror(ef) : "accepted", vf,
	   want_ctl ? strerror(want_ctl) : "accepted", want_fs ? strerror(want_fs) : "accepted");
}

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(SYS_bpf, cmd, a, sizeof(*a));
}

/* a cgroup whose sysctl program refuses every sysctl access; its fd or -1 */
static int deny_cgroup(const char *dir, char *why, size_t len)
{
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	int cg, pfd;

	mkdir("/sys/fs/cgroup", 0755);
	if (mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL) && errno != EBUSY) {
		snprintf(why, len, "mount cgroup2: %s", strerror(errno));
		return -1;
	}
	mkdir(dir, 0755);
	cg = open(dir, O_RDONLY | O_DIRECTORY);
	if (cg < 0) {
		snprintf(why, len, "%s: %s", dir, strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_CGROUP_SYSCTL;
	a.insns = (uintptr_t)prog;
	a.insn_cnt = 2;
	a.license = (uintptr_t)"GPL";
	pfd = sys_bpf(BPF_PROG_LOAD, &a);
	if (pfd < 0) {
		snprintf(why, len, "BPF_PROG_LOAD: %s", strerror(errno));
		close(cg);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.target_fd = cg;
	a.attach_bpf_fd = pfd;
	a.attach_type = BPF_CGROUP_SYSCTL;
	if (sys_bpf(BPF_PROG_ATTACH, &a)) {
		snprintf(why, len, "BPF_PROG_ATTACH: %s", strerror(errno));
		close(pfd);
		close(cg);
		return -1;
	}
	close(pfd);
	return cg;
}

static const char *cg_procs;

static int in_deny_cgroup(void *arg)
{
	char pid[16];
	int fd = open(cg_procs, O_WRONLY);

	snprintf(pid, sizeof(pid), "%d", getpid());
	if (fd < 0 || write(fd, pid, strlen(pid)) < 0)
		return 200;
	close(fd);
	return put(arg, "0");
}

/* Landlock: file writes allowed beneath /proc only */
static int landlocked(void *arg)
{
	struct landlock_ruleset_attr ra = { .handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE };
	struct landlock_path_beneath_attr pb = { .allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE };
	int rs = syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0);

	if (rs < 0)
		return 200;
	pb.parent_fd = open("/proc", O_PATH | O_DIRECTORY);
	if (pb.parent_fd < 0 ||
	    syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_landlock_restrict_self, rs, 0))
		return 201;
	return put(arg, "0");
}

void test_differences(void)
{
	const char *dir = "/sys/fs/cgroup/knobtest";
	char why[128];
	int cg;

	syntax();
	offsets();
	both("fd opened by root, written after dropping to uid 1000", write_after_drop, EPERM, 0);
	both("euid 0 with fsuid 1000", fsuid_user, 0, EACCES);
	both("euid 1000 with fsuid 0", euid_user, EACCES, 0);

	cg = deny_cgroup(dir, why, sizeof(why));
	if (cg >= 0) {
		cg_procs = "/sys/fs/cgroup/knobtest/cgroup.procs";
		both("in a cgroup whose sysctl BPF program refuses everything", in_deny_cgroup, EPERM, 0);
		close(cg);
		rmdir(dir);
	} else {
		skip("cgroup sysctl BPF program", "%s", why);
	}
	if (syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) >= 1)
		both("under Landlock, file writes allowed beneath /proc only", landlocked, 0, EACCES);
	else
		skip("Landlock", "landlock_create_ruleset: %s", strerror(errno));
}

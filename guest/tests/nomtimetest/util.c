// SPDX-License-Identifier: GPL-2.0
/* nomtimetest: helpers for files, mounts, children and user namespaces. */
#include "nt.h"

const char *path(const char *dir, const char *name)
{
	static char buf[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

const char *err(int e)
{
	return e ? strerror(e) : "success";
}

/* open(); 0 on success (fd in *fd), else errno */
int try_open(const char *p, int flags, int *fd)
{
	*fd = open(p, flags, 0666);
	return *fd < 0 ? errno : 0;
}

/* openat2(), the one call that takes O_NOMTIME; 0 or errno */
int openat2_(const char *p, uint64_t flags, int *fd)
{
	struct open_how how = { .flags = flags };

	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE)
		how.mode = 0666;
	*fd = syscall(SYS_openat2, AT_FDCWD, p, &how, sizeof(how));
	return *fd < 0 ? errno : 0;
}

void fill(char *b, size_t n, int seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = 'a' + (seed + i) % 26;
}

/* A file of FSIZE bytes of data, synced, mode 0666 (0 or errno). */
int make_file(const char *p, uid_t uid, mode_t mode)
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

bool has_opt(const char *mnt, const char *opt)
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

int getfl(int fd)
{
	return fcntl(fd, F_GETFL);
}

/* Runs fn in a child; its exit status is the result (0 or an errno). */
int in_child(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn(arg) & 0xff);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int write_file(const char *p, const char *s)
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
int enter_userns(int extra)
{
	if (unshare(CLONE_NEWUSER | extra))
		return errno;
	if (write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/gid_map", "0 0 1"))
		return 200;
	return 0;
}

bool moved(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec || a->tv_nsec != b->tv_nsec;
}

/* The filesystem type of the mount on mnt, from /proc/mounts ("" if none). */
const char *fs_type(const char *mnt)
{
	static char type[64];
	char line[1024], dev[256], dir[256], t[64];
	FILE *f = fopen("/proc/mounts", "r");

	type[0] = 0;
	if (!f)
		return type;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %255s %63s", dev, dir, t) == 3 && !strcmp(dir, mnt))
			snprintf(type, sizeof(type), "%s", t);
	fclose(f);
	return type;
}

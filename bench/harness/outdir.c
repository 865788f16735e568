#define _GNU_SOURCE
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cliopt.h"
#include "rundir.h"

#define LOCK ".suspend-lab.lock"
#define MARK ".slab-owner."
#define MAX_HELD 32

/* every directory this run holds: --out, and --fs all's parts */
static struct held {
	int fd;
	dev_t dev;
	ino_t ino;
} held[MAX_HELD];
static int n_held;

/* dirname and basename of path, split at its last '/'; NULL without memory */
static char *split(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!slash) {
		*base = path;
		return strdup(".");
	}
	*base = slash + 1;
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	return dir;
}

static char *mark_path(const char *path)
{
	const char *base;
	char *dir = split(path, &base), *mark = NULL;

	if (dir && asprintf(&mark, "%s/" MARK "%s", dir, base) < 0)
		mark = NULL;
	free(dir);
	return mark;
}

void outdir_mark_name(char *buf, size_t n, const char *path)
{
	char *mark = mark_path(path);

	if (!mark || snprintf(buf, n, "%s", mark) >= (int)n)
		buf[0] = '\0';	/* a cut name could be someone else's file */
	free(mark);
}

int outdir_mark_temporary(const char *path, int *h)
{
	const char *base;
	char *dir = split(path, &base), *mark = mark_path(path);
	int rc = -1;

	*h = -1;
	if (dir && mark && *base)
		rc = rundir_owner_write_for(mark, base, h);
	free(dir);
	free(mark);
	return rc;
}

static unsigned int serial;

/* ".NAME.slab-tmp.PID.N" beside path: the lab's name, never a user's */
int outdir_temp_open(const char *path, char **tmp, int *h)
{
	const char *base;
	char *dir = split(path, &base);
	int fd = -1, err = ENOMEM;

	*tmp = NULL;
	*h = -1;
	for (int tries = 0; dir && tries < 100; tries++) {
		if (asprintf(tmp, "%s/.%s.slab-tmp.%ld.%u", dir, base, (long)getpid(),
			     serial++) < 0) {
			*tmp = NULL;
			break;
		}
		if (outdir_mark_temporary(*tmp, h)) {
			err = errno;
			outdir_temp_done(*tmp, *h);
			free(*tmp);
			*tmp = NULL;
			break;
		}
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		err = errno;
		if (fd >= 0 || err != EEXIST) {
			if (fd < 0) {
				outdir_temp_done(*tmp, *h);
				free(*tmp);
				*tmp = NULL;
			}
			break;
		}
		/* left by a killed run of the same pid: a new name, its mark kept */
		cleanup_forget(*h);
		*h = -1;
		free(*tmp);
		*tmp = NULL;
	}
	free(dir);
	errno = err;
	return fd;
}

char *outdir_temp_dir(const char *dir, int *h)
{
	char *tmp = NULL;
	int err = 0;

	*h = -1;
	for (int tries = 0; tries < 100; tries++) {
		if (asprintf(&tmp, "%s/.slab-set.%ld.%u", dir, (long)getpid(), serial++) < 0)
			return NULL;
		if (outdir_mark_temporary(tmp, h)) {
			err = errno;
		} else if (!mkdir(tmp, 0700)) {
			return tmp;
		} else if ((err = errno) == EEXIST) {
			cleanup_forget(*h);
			*h = -1;
			free(tmp);
			continue;
		}
		outdir_temp_done(tmp, *h);
		free(tmp);
		errno = err;
		return NULL;
	}
	errno = EEXIST;
	return NULL;
}

void outdir_temp_done(const char *tmp, int h)
{
	char *mark = mark_path(tmp);

	if (mark)
		unlink(mark);
	free(mark);
	cleanup_forget(h);
}

/* A dead run's private directory: the files in it are the run's own. */
static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char *path;

	while (d && (e = readdir(d))) {
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			continue;
		if (!lstat(path, &st) && S_ISREG(st.st_mode))
			unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Under the lock nothing else writes here: what a dead run recorded as
 * its own can go, and nothing else. */
static void sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char *mark, *target;

	while (d && (e = readdir(d))) {
		const char *n = e->d_name, *name = n + strlen(MARK);

		if (strncmp(n, MARK, strlen(MARK)) || !*name || !strcmp(name, ".") ||
		    !strcmp(name, ".."))
			continue;
		if (asprintf(&mark, "%s/%s", dir, n) < 0)
			continue;
		if (asprintf(&target, "%s/%s", dir, name) < 0) {
			free(mark);
			continue;
		}
		if (!lstat(mark, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    rundir_owner_gone_for(mark, name)) {
			if (!lstat(target, &st) && S_ISDIR(st.st_mode))
				empty_dir(target);	/* outset.h's staging */
			else if (!lstat(target, &st) && S_ISREG(st.st_mode))
				unlink(target);		/* an image, half a report */
			unlink(mark);
		}
		free(target);
		free(mark);
	}
	if (d)
		closedir(d);
}

int outdir_claim(const char *dir)
{
	char *path, owner[64] = "";
	struct stat st;
	ssize_t len;
	int fd;

	if (stat(dir, &st))
		return cli_bad("--out: '%s': %s", dir, strerror(errno));
	for (int i = 0; i < n_held; i++)
		if (st.st_dev == held[i].dev && st.st_ino == held[i].ino)
			return 0;
	if (n_held == MAX_HELD)
		return cli_bad("--out: cannot lock '%s': more than %d directories", dir, MAX_HELD);
	if (asprintf(&path, "%s/" LOCK, dir) < 0)
		return cli_bad("--out: cannot lock '%s': %s", dir, strerror(errno));
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		int err = errno;

		cli_bad("--out: cannot lock '%s': %s", path, strerror(err));
		free(path);
		return 2;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		len = pread(fd, owner, sizeof(owner) - 1, 0);
		owner[len > 0 ? len : 0] = '\0';
		owner[strcspn(owner, " \n")] = '\0';
		close(fd);
		if (err == EWOULDBLOCK)
			cli_bad("--out: '%s' is in use by another run (pid %s); give each run its own --out",
				dir, owner[0] ? owner : "unknown");
		else
			cli_bad("--out: cannot lock '%s': %s", path, strerror(err));
		free(path);
		return 2;
	}
	free(path);
	/* the holder's pid, for the refusal's message */
	snprintf(owner, sizeof(owner), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, owner, strlen(owner), 0) < 0)
		owner[0] = '\0';
	held[n_held++] = (struct held){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
	sweep(dir);
	return 0;
}

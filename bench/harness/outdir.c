#define _GNU_SOURCE
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cliopt.h"
#include "rundir.h"

#define LOCK ".suspend-lab.lock"
#define MARK_SUFFIX ".temporary"

static int held_fd = -1;
static dev_t held_dev;
static ino_t held_ino;

void outdir_mark_name(char *buf, size_t n, const char *path)
{
	char d[600], b[600];

	snprintf(d, sizeof(d), "%s", path);
	snprintf(b, sizeof(b), "%s", path);
	snprintf(buf, n, "%s/.%s" MARK_SUFFIX, dirname(d), basename(b));
}

int outdir_mark_temporary(const char *path, int *h)
{
	char mark[1300];

	outdir_mark_name(mark, sizeof(mark), path);
	return rundir_owner_write(mark, h);
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1600];

	while (d && (e = readdir(d)))
		if (e->d_type == DT_REG) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
}

/* Under the lock nothing else writes here: what a dead run left can go. */
static void sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1300], img[1300];

	while (d && (e = readdir(d))) {
		const char *n = e->d_name;

		snprintf(path, sizeof(path), "%s/%s", dir, n);
		if (n[0] == '.' && ends_with(n, MARK_SUFFIX) && rundir_owner_gone(path)) {
			snprintf(img, sizeof(img), "%s/%.*s", dir,
				 (int)(strlen(n) - 1 - strlen(MARK_SUFFIX)), n + 1);
			unlink(img);
			unlink(path);
		} else if (e->d_type == DT_REG && strstr(n, ".tmp.")) {
			unlink(path);	/* outfile.h's temporaries */
		} else if (e->d_type == DT_DIR && !strncmp(n, ".set.tmp.", 9)) {
			empty_dir(path);	/* outset.h's staging */
			rmdir(path);
		}
	}
	if (d)
		closedir(d);
}

int outdir_claim(const char *dir)
{
	char path[1100], owner[64] = "";
	struct stat st;
	ssize_t len;
	int fd;

	if (stat(dir, &st))
		return cli_bad("--out: '%s': %s", dir, strerror(errno));
	if (held_fd >= 0 && st.st_dev == held_dev && st.st_ino == held_ino)
		return 0;
	snprintf(path, sizeof(path), "%s/" LOCK, dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return cli_bad("--out: cannot lock '%s': %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		len = pread(fd, owner, sizeof(owner) - 1, 0);
		owner[len > 0 ? len : 0] = '\0';
		owner[strcspn(owner, " \n")] = '\0';
		close(fd);
		if (err == EWOULDBLOCK)
			return cli_bad("--out: '%s' is in use by another run (pid %s); give each run its own --out",
				       dir, owner[0] ? owner : "unknown");
		return cli_bad("--out: cannot lock '%s': %s", path, strerror(err));
	}
	/* the holder's pid, for the refusal's message */
	snprintf(owner, sizeof(owner), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, owner, strlen(owner), 0) < 0)
		owner[0] = '\0';
	if (held_fd >= 0)
		close(held_fd);
	held_fd = fd;
	held_dev = st.st_dev;
	held_ino = st.st_ino;
	sweep(dir);
	return 0;
}

/*
 * A path crash-states writes must not be part of a recording: a replay
 * onto <rec>/cycle-1/base.img would rebuild every later state of that
 * cycle on the wrong base.  By name (realpath inside the recording) and
 * by identity (the same inode as any of its files or directories, which
 * catches hard links, symlinks and bind mounts).
 */
#define _GNU_SOURCE
#include "crash.h"

#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* nftw() takes no context: the one walk's target and what it hit */
static struct stat want_file, want_dir;
static bool have_file, hit_dir;
static char hit[PATH_MAX];

static int same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static int visit(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (have_file && same(st, &want_file))
		hit_dir = false;
	else if (type == FTW_D && same(st, &want_dir))
		hit_dir = true;
	else
		return 0;
	snprintf(hit, sizeof(hit), "%s", p);
	return 1;
}

/* The absolute name path would have, whether it exists or not. */
static bool resolve(const char *path, char out[PATH_MAX])
{
	char d[PATH_MAX], b[PATH_MAX], rd[PATH_MAX];

	if (realpath(path, out))
		return true;
	snprintf(d, sizeof(d), "%s", path);
	snprintf(b, sizeof(b), "%s", path);
	if (!realpath(dirname(d), rd))
		return false;
	return snprintf(out, PATH_MAX, "%s/%s", rd, basename(b)) < PATH_MAX;
}

int cs_check_outside(const char *rec, const char *opt, const char *path)
{
	char rrec[PATH_MAX], rp[PATH_MAX], parent[PATH_MAX];
	size_t n;
	int rc;

	if (!realpath(rec, rrec) || !resolve(path, rp))
		return 0;	/* no recording, or no such directory: said later */
	n = strlen(rrec);
	if (!strncmp(rp, rrec, n) && (rp[n] == '/' || !rp[n]))
		return cli_bad("--%s: '%s' is inside the recording %s (write it elsewhere)", opt,
			       path, rec);
	have_file = !stat(path, &want_file);
	if (have_file && !S_ISREG(want_file.st_mode))
		return cli_bad("--%s: '%s' is not a regular file", opt, path);
	snprintf(parent, sizeof(parent), "%s", rp);
	if (stat(dirname(parent), &want_dir))
		return 0;
	hit[0] = '\0';
	rc = nftw(rrec, visit, 16, FTW_PHYS);
	if (rc == 1)
		return cli_bad("--%s: '%s' is %s %s of the recording %s (write it elsewhere)", opt,
			       path, hit_dir ? "in the directory" : "the file", hit, rec);
	if (rc < 0)
		return cli_bad("--%s: cannot check '%s' against the recording %s: %s", opt, path,
			       rec, strerror(errno));
	return 0;
}

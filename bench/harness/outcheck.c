/* --out's up-front checks: nothing is made, locked or swept before they pass. */
#define _GNU_SOURCE
#include "outdir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cliopt.h"

static const char *const *expected;

void outdir_expect(const char *const *names)
{
	expected = names;
}

int outdir_check_len(const char *dir)
{
	size_t len = strlen(dir);

	if (len > OUTDIR_MAX)
		return cli_bad("--out: the path is %zu characters; at most %d fit the lab's paths under it",
			       len, OUTDIR_MAX);
	return 0;
}

/* A result's name in dir that a rename can replace: absent or a file. */
static int replaceable(const char *dir, const char *what, const char *name)
{
	struct stat st;
	char *p;
	int rc = 0;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return cli_bad("%s: out of memory", what);
	if (!lstat(p, &st) && !S_ISREG(st.st_mode))
		rc = cli_bad("%s: '%s' is in the way of the results: %s, not a regular file",
			     what, p, S_ISDIR(st.st_mode) ? "a directory" :
			     S_ISLNK(st.st_mode) ? "a symbolic link" : "a special file");
	else if (lstat(p, &st) && errno != ENOENT)
		rc = cli_bad("%s: '%s': %s", what, p, strerror(errno));
	free(p);
	return rc;
}

int outdir_check(const char *dir, const char *what)
{
	struct stat st;
	char *parent;
	const char *base;
	size_t len = strlen(dir);
	int rc = 0;

	if (!stat(dir, &st)) {
		if (!S_ISDIR(st.st_mode))
			return cli_bad("%s: '%s' is not a directory", what, dir);
		if (access(dir, W_OK | X_OK))
			return cli_bad("%s: '%s': %s", what, dir, strerror(errno));
		for (const char *const *n = expected; n && *n && !rc; n++)
			rc = replaceable(dir, what, *n);
		return rc;
	}
	if (errno != ENOENT)
		return cli_bad("%s: '%s': %s", what, dir, strerror(errno));
	/* to be made: its parent must take it */
	while (len > 1 && dir[len - 1] == '/')
		len--;	/* "new/" is made as "new" */
	parent = strndup(dir, len);
	if (!parent)
		return cli_bad("%s: out of memory", what);
	base = strrchr(parent, '/');
	if (!base)
		strcpy(parent, ".");
	else
		parent[base == parent ? 1 : base - parent] = '\0';
	if (stat(parent, &st))
		rc = cli_bad("%s: cannot make '%s': %s", what, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		rc = cli_bad("%s: cannot make '%s': '%s' is not a directory", what, dir, parent);
	else if (access(parent, W_OK | X_OK))
		rc = cli_bad("%s: cannot make '%s': %s", what, dir, strerror(errno));
	free(parent);
	return rc;
}

#define _GNU_SOURCE
#include "outset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cliopt.h"
#include "outdir.h"

int outset_begin(struct outset *s, const char *dir)
{
	memset(s, 0, sizeof(*s));
	s->h_dir = s->h_mark = -1;
	s->dir = strdup(dir);
	s->stage = s->dir ? outdir_temp_dir(dir, &s->h_mark) : NULL;
	if (!s->stage) {
		fprintf(stderr, "%s: cannot write in %s: %s\n", cli_prog, dir, strerror(errno));
		free(s->dir);
		s->dir = NULL;
		return -1;
	}
	s->h_dir = cleanup_dir(s->stage);
	return 0;
}

const char *outset_path(struct outset *s, const char *name)
{
	free(s->path);
	if (asprintf(&s->path, "%s/%s", s->stage, name) < 0) {
		s->path = NULL;
		return "";	/* a write that fails: the set is not committed */
	}
	if (s->n < OUTSET_MAX) {
		s->names[s->n] = name;
		s->h_files[s->n++] = cleanup_file(s->path);
	}
	return s->path;
}

static char *in(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

static void discard(struct outset *s)
{
	for (int i = 0; i < s->n; i++) {
		char *p = in(s->stage, s->names[i]);

		if (p)
			unlink(p);
		free(p);
		cleanup_forget(s->h_files[i]);
	}
	rmdir(s->stage);
	cleanup_forget(s->h_dir);
	outdir_temp_done(s->stage, s->h_mark);
	free(s->stage);
	free(s->dir);
	free(s->path);
	s->stage = s->dir = s->path = NULL;
}

/* A name in dir the set may replace: absent, or a regular file. */
static int replaceable(const struct outset *s, const char *name)
{
	struct stat st;
	char *p = in(s->dir, name);
	int rc = 0;

	if (!p)
		return -1;
	if (lstat(p, &st)) {
		rc = errno == ENOENT ? 0 : -1;
	} else if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
		rc = -1;
	}
	free(p);
	return rc;
}

int outset_commit(struct outset *s, int bad)
{
	char *from, *to;
	int done = 0, err = 0;

	if (bad) {
		fprintf(stderr, "%s: %d file(s) of the set failed; no earlier file in %s was replaced\n",
			cli_prog, bad, s->dir);
		discard(s);
		return -1;
	}
	for (int i = 0; i < s->n; i++)
		if (replaceable(s, s->names[i])) {
			fprintf(stderr, "%s: cannot replace %s/%s: %s; no earlier file in %s was replaced\n",
				cli_prog, s->dir, s->names[i], strerror(errno), s->dir);
			discard(s);
			return -1;
		}
	for (; done < s->n; done++) {
		int rc;

		from = in(s->stage, s->names[done]);
		to = in(s->dir, s->names[done]);
		rc = from && to ? rename(from, to) : -1;
		err = from && to ? errno : ENOMEM;
		free(from);
		free(to);
		if (rc)
			break;
	}
	if (done < s->n) {
		/* only a race with another writer gets here: say it is a mix */
		fprintf(stderr, "%s: cannot rename %s into %s: %s; %s now mixes %d new file(s) with earlier ones\n",
			cli_prog, s->names[done], s->dir, strerror(err), s->dir, done);
		discard(s);
		return -1;
	}
	discard(s);
	return 0;
}

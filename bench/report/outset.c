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

int outset_begin(struct outset *s, const char *dir)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	/* ".tmp." in the name: a later run's sweep (outdir.h) takes it */
	snprintf(s->stage, sizeof(s->stage), "%s/.set.tmp.XXXXXX", dir);
	if (!mkdtemp(s->stage)) {
		fprintf(stderr, "%s: cannot write in %s: %s\n", cli_prog, dir, strerror(errno));
		return -1;
	}
	s->h_dir = cleanup_dir(s->stage);
	return 0;
}

const char *outset_path(struct outset *s, const char *name)
{
	snprintf(s->path, sizeof(s->path), "%s/%s", s->stage, name);
	if (s->n < OUTSET_MAX) {
		s->names[s->n] = name;
		s->h_files[s->n++] = cleanup_file(s->path);
	}
	return s->path;
}

static void discard(struct outset *s)
{
	char p[1200];

	for (int i = 0; i < s->n; i++) {
		snprintf(p, sizeof(p), "%s/%s", s->stage, s->names[i]);
		unlink(p);
		cleanup_forget(s->h_files[i]);
	}
	rmdir(s->stage);
	cleanup_forget(s->h_dir);
}

/* A name in dir the set may replace: absent, or a regular file. */
static int replaceable(const struct outset *s, const char *name)
{
	char p[1200];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", s->dir, name);
	if (lstat(p, &st))
		return errno == ENOENT ? 0 : -1;
	if (S_ISREG(st.st_mode))
		return 0;
	errno = S_ISDIR(st.st_mode) ? EISDIR : EEXIST;
	return -1;
}

int outset_commit(struct outset *s, int bad)
{
	char from[1200], to[1200];
	int done = 0;

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
		snprintf(from, sizeof(from), "%s/%s", s->stage, s->names[done]);
		snprintf(to, sizeof(to), "%s/%s", s->dir, s->names[done]);
		if (rename(from, to))
			break;
	}
	if (done < s->n) {
		/* only a race with another writer gets here: say it is a mix */
		fprintf(stderr, "%s: cannot rename %s into %s: %s; %s now mixes %d new file(s) with earlier ones\n",
			cli_prog, s->names[done], s->dir, strerror(errno), s->dir, done);
		discard(s);
		return -1;
	}
	discard(s);
	return 0;
}

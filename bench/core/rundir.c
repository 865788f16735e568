#define _GNU_SOURCE
#include "rundir.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"

#define OWNER "owner"
/* first line of every owner record: a stray file never reads as one */
#define MAGIC "suspend-lab owner "

const char *rundir_base(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/tmp";
}

int rundir_check_base(char *why, size_t n)
{
	const char *b = rundir_base(), *var = getenv("TMPDIR") && *getenv("TMPDIR") ?
					       "TMPDIR" : "the default TMPDIR";
	struct stat st;

	if (strlen(b) > RUNDIR_BASE_MAX) {
		snprintf(why, n, "%s: '%.60s...' is %zu characters; the lab's sockets fit under at most %d",
			 var, b, strlen(b), RUNDIR_BASE_MAX);
		return -1;
	}
	if (stat(b, &st) || (!S_ISDIR(st.st_mode) && (errno = ENOTDIR)) ||
	    access(b, W_OK | X_OK)) {
		snprintf(why, n, "%s: '%s': %s (the lab's private directories go there)", var, b,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int rundir_template(char *buf, size_t n, const char *prefix)
{
	size_t need = snprintf(buf, n, "%s/%s.XXXXXX", rundir_base(), prefix);

	return need < n ? 0 : -1;
}

/* Field 22 of /proc/PID/stat: with the pid, names a process for good. */
static unsigned long long start_time(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	p = strrchr(buf, ')');	/* the command name may hold spaces */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 &t) != 1)
		return 0;
	return t;
}

static bool owner_gone(const char *path, const char *covers)
{
	char buf[4096], *nl;
	unsigned long long t;
	long pid;
	size_t len;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;	/* being made, or not ours */
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	nl = strchr(buf, '\n');
	if (strncmp(buf, MAGIC, strlen(MAGIC)) || !nl ||
	    sscanf(buf + strlen(MAGIC), "%ld %llu", &pid, &t) != 2 || pid <= 0)
		return false;
	if (covers) {
		/* exactly "covers NAME\n" next: the record says what it owns */
		size_t c = strlen(covers);

		if (strncmp(nl + 1, "covers ", 7) || strncmp(nl + 8, covers, c) ||
		    strcmp(nl + 8 + c, "\n"))
			return false;
	}
	return start_time(pid) != t;
}

bool rundir_owner_gone(const char *path)
{
	return owner_gone(path, NULL);
}

bool rundir_owner_gone_for(const char *path, const char *covers)
{
	return owner_gone(path, covers);
}

int rundir_owner_write_for(const char *path, const char *covers, int *h)
{
	FILE *f;

	*h = -1;
	if (covers && strchr(covers, '\n')) {
		errno = EINVAL;
		return -1;
	}
	*h = cleanup_file(path);
	f = fopen(path, "we");
	if (!f)
		return -1;
	fprintf(f, MAGIC "%ld %llu\n", (long)getpid(), start_time(getpid()));
	if (covers)
		fprintf(f, "covers %s\n", covers);
	return fclose(f) ? -1 : 0;
}

int rundir_owner_write(const char *path, int *h)
{
	return rundir_owner_write_for(path, NULL, h);
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char *path;

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0)
			continue;
		unlink(path);
		free(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int rundir_sweep(const char *prefix)
{
	const char *b = rundir_base();
	size_t plen = strlen(prefix);
	struct dirent *e;
	char *path, *owner;
	struct stat st;
	int n = 0;
	DIR *d;

	if (plen > 16)
		return 0;
	d = opendir(b);
	while (d && (e = readdir(d))) {
		/* prefix + '.' + mkdtemp's six characters */
		if (strncmp(e->d_name, prefix, plen) || e->d_name[plen] != '.' ||
		    strlen(e->d_name) != plen + 7)
			continue;
		if (asprintf(&path, "%s/%s", b, e->d_name) < 0)
			continue;
		if (!lstat(path, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
		    asprintf(&owner, "%s/" OWNER, path) >= 0) {
			if (rundir_owner_gone(owner)) {
				remove_dir(path);
				n++;
			}
			free(owner);
		}
		free(path);
	}
	if (d)
		closedir(d);
	return n;
}

int rundir_make(char *buf, size_t n, const char *prefix, int *h_dir, int *h_owner)
{
	char *path;
	int rc;

	*h_dir = *h_owner = -1;
	rundir_sweep(prefix);
	/* the sockets in it must fit sun_path: no silent /tmp instead */
	if (strlen(rundir_base()) > RUNDIR_BASE_MAX || rundir_template(buf, n, prefix)) {
		buf[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!mkdtemp(buf)) {
		buf[0] = '\0';
		return -1;
	}
	*h_dir = cleanup_dir(buf);
	if (asprintf(&path, "%s/" OWNER, buf) < 0)
		return -1;
	rc = rundir_owner_write(path, h_owner);
	free(path);
	return rc;
}

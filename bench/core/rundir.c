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

static const char *base(void)
{
	const char *t = getenv("TMPDIR");

	/* sun_path holds 108 bytes: a long TMPDIR falls back to /tmp */
	return t && *t && strlen(t) < 40 ? t : "/tmp";
}

void rundir_template(char *buf, size_t n, const char *prefix)
{
	snprintf(buf, n, "%s/%s.XXXXXX", base(), prefix);
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

bool rundir_owner_gone(const char *path)
{
	long pid;
	unsigned long long t;
	FILE *f = fopen(path, "re");
	int n;

	if (!f)
		return false;	/* being made, or not ours */
	n = fscanf(f, "%ld %llu", &pid, &t);
	fclose(f);
	if (n != 2 || pid <= 0)
		return false;
	return start_time(pid) != t;
}

int rundir_owner_write(const char *path, int *h)
{
	FILE *f;

	*h = cleanup_file(path);
	f = fopen(path, "we");
	if (!f)
		return -1;
	fprintf(f, "%ld %llu\n", (long)getpid(), start_time(getpid()));
	return fclose(f) ? -1 : 0;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1100];

	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int rundir_sweep(const char *prefix)
{
	const char *b = base();
	size_t plen = strlen(prefix);
	struct dirent *e;
	char path[700], owner[720];
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
		snprintf(path, sizeof(path), "%s/%s", b, e->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		snprintf(owner, sizeof(owner), "%s/" OWNER, path);
		if (!rundir_owner_gone(owner))
			continue;
		remove_dir(path);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

int rundir_make(char *buf, size_t n, const char *prefix, int *h_dir, int *h_owner)
{
	char path[720];

	rundir_sweep(prefix);
	rundir_template(buf, n, prefix);
	if (!mkdtemp(buf)) {
		buf[0] = '\0';
		return -1;
	}
	*h_dir = cleanup_dir(buf);
	snprintf(path, sizeof(path), "%s/" OWNER, buf);
	return rundir_owner_write(path, h_owner);
}

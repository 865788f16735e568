#define _GNU_SOURCE
#include "fakerun.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct hx_timeouts fakerun_timeouts = {
	.boot = 3000, .cmd = 2000, .qmp = 1000, .request = 1000,
	.suspend = 1000, .wake = 1000, .done = 1000, .first_key = 200,
	.key_every = 100,
};

static char dir[] = "/tmp/t_fake.XXXXXX";
/* Not the template's last byte: mkdtemp may put an 'X' there itself. */
static int made;
static char kernel[64], errpath[64];
static int saved_err = -1;

void fakerun_boot_file(const char *path)
{
	/* gzip's magic and a boot header: passes as kernel and as initrd */
	static const char b[0x206] = { [0] = '\x1f', [1] = '\x8b', [0x202] = 'H',
				       [0x203] = 'd', [0x204] = 'r', [0x205] = 'S' };
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, b, sizeof(b)) != sizeof(b)) {
		perror(path);
		exit(1);
	}
	close(fd);
}

const char *fakerun_dir(void)
{
	if (!made) {
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			exit(1);
		}
		made = 1;
		snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
		fakerun_boot_file(kernel);
		snprintf(errpath, sizeof(errpath), "%s/stderr", dir);
	}
	if (!getenv("SLAB_QEMU")) {
		fprintf(stderr, "set SLAB_QEMU to fakeqemu (make test does)\n");
		exit(1);
	}
	return dir;
}

void fakerun_scenario(const char *s)
{
	if (s && *s)
		setenv("FAKEQEMU", s, 1);
	else
		unsetenv("FAKEQEMU");
}

void fakerun_opts(struct hx_opts *o)
{
	hx_opts_defaults(o);
	o->out_dir = fakerun_dir();
	o->kernel = kernel;
	o->initrd = kernel;
	o->tools_disk = kernel;
	o->quiet = true;
	/* fakeqemu models the disk by its image path; the drive model has
	 * its own test (t_drive) */
	o->drive_model = HX_DRIVE_OFF;
}

void fakerun_stderr_begin(void)
{
	int fd;

	fakerun_dir();
	fflush(stderr);
	saved_err = dup(2);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
}

const char *fakerun_stderr_end(void)
{
	static char buf[65536];
	FILE *f;
	size_t n = 0;

	fflush(stderr);
	if (saved_err >= 0) {
		dup2(saved_err, 2);
		close(saved_err);
		saved_err = -1;
	}
	f = fopen(errpath, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	unlink(errpath);
	return buf;
}

int fakerun_live_children(const char *comm)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char want[64];
	int n = 0;

	snprintf(want, sizeof(want), "(%s)", comm);
	while (d && (e = readdir(d))) {
		char path[300], stat[512];
		FILE *f;
		int ppid = 0;

		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* "pid (comm) state ppid ..." */
		if (fgets(stat, sizeof(stat), f) && strstr(stat, want) &&
		    sscanf(strrchr(stat, ')') + 2, "%*c %d", &ppid) == 1 && ppid == getpid())
			n++;
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

int fakerun_count(const char *where, const char *prefix)
{
	DIR *d = opendir(where);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

void fakerun_done(void)
{
	char cmd[128];

	if (made) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", dir);
	}
}

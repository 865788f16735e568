#define _GNU_SOURCE
#include "drive.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "cliopt.h"
#include "clock.h"
#include "rundir.h"

bool drive_wanted(const struct disk_profile *p)
{
	/* its log is what places the device's requests inside the sync, so
	 * every profile that models a device gets it, not only a cached one */
	return p && (p->flush_ms > 0 || p->volatile_cache || p->write_bps || p->write_iops);
}

void drive_init(struct drive *d)
{
	char tmpl[RUNDIR_PATH_SIZE];

	memset(d, 0, sizeof(*d));
	d->pidfd = d->h_pid = d->h_dir = -1;
	for (int i = 0; i < 5; i++)
		d->h_files[i] = -1;
	rundir_template(tmpl, sizeof(tmpl), "slabd");
	snprintf(d->uri, sizeof(d->uri), "nbd+unix:///?socket=%s/nbd.sock", tmpl);
}

struct vm_drive drive_vm(const struct drive *d, const struct disk_profile *p,
			 char *buf, size_t n)
{
	/* virtio-blk's WCE follows cache.writeback: the guest flushes only a
	 * drive that says it has a volatile cache */
	int len = snprintf(buf, n, ",cache.writeback=%s",
			   p && p->volatile_cache ? "on" : "off");

	if (len > 0 && (size_t)len < n)
		disk_profile_throttle(p, buf + len, n - len);
	return (struct vm_drive){ .file = d->uri, .opts = buf };
}

__attribute__((format(printf, 2, 3)))
static int fail(struct drive *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* Our filter lives next to the program (make builds it into obj/ and
 * asan/); $SLAB_NBDKIT_FILTER overrides. */
static int find_filter(char *buf, size_t n)
{
	const char *env = getenv("SLAB_NBDKIT_FILTER");
	char exe[512];
	ssize_t len;

	if (env && *env) {
		snprintf(buf, n, "%s", env);
		return access(buf, R_OK);
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return -1;
	exe[len] = '\0';
	snprintf(buf, n, "%s/%s", dirname(exe), DRIVE_FILTER_NAME);
	return access(buf, R_OK);
}

static int mkdir_p(const char *path)
{
	char p[600];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

static void exit_text(const struct drive *d, char *buf, size_t n)
{
	if (WIFSIGNALED(d->status))
		snprintf(buf, n, "was killed by signal %d", WTERMSIG(d->status));
	else
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(d->status));
}

/* The last non-empty line of nbdkit's stderr, for a one-line error. */
static void last_err_line(const struct drive *d, char *buf, size_t n)
{
	char line[512];
	FILE *f = fopen(d->err, "re");

	buf[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0])
			snprintf(buf, n, "%s", line);
	}
	if (f)
		fclose(f);
}

static int files(struct drive *d, const struct drive_config *c, char *sock, char *pidf,
		 size_t n)
{
	if (rundir_make(d->dir, sizeof(d->dir), "slabd", &d->h_dir, &d->h_files[4]))
		return fail(d, "cannot make a private directory in %s: %s", rundir_base(),
			    strerror(errno));
	snprintf(sock, n, "%s/nbd.sock", d->dir);
	snprintf(pidf, n, "%s/nbdkit.pid", d->dir);
	d->h_files[0] = cleanup_file(sock);
	d->h_files[1] = cleanup_file(pidf);
	snprintf(d->uri, sizeof(d->uri), "nbd+unix:///?socket=%s", sock);
	if (c->logdir && mkdir_p(c->logdir))
		return fail(d, "cannot make %s: %s", c->logdir, strerror(errno));
	snprintf(d->log, sizeof(d->log), "%s/nbdkit.log", c->logdir ? c->logdir : d->dir);
	snprintf(d->err, sizeof(d->err), "%s/nbdkit.stderr", c->logdir ? c->logdir : d->dir);
	if (!c->logdir) {
		d->h_files[2] = cleanup_file(d->log);
		d->h_files[3] = cleanup_file(d->err);
	}
	return 0;
}

static void spawn(struct drive *d, char *const argv[])
{
	pid_t parent = getpid();
	int fd;

	d->pid = fork();
	if (d->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		fd = open(d->err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			dup2(fd, 1);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0)
			dup2(fd, 0);
		/* the cache filter's (unlinked) file: private, not /var/tmp */
		setenv("TMPDIR", d->dir, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s (apt-get install nbdkit)\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (d->pid > 0) {
		d->h_pid = cleanup_pid(d->pid);
		d->pidfd = (int)syscall(SYS_pidfd_open, d->pid, 0);
	}
}

/* nbdkit writes its pid file once it accepts connections. */
static bool ready(const char *pidf, pid_t pid)
{
	FILE *f = fopen(pidf, "re");
	long got = 0;

	if (!f)
		return false;
	if (fscanf(f, "%ld", &got) != 1)
		got = 0;
	fclose(f);
	return got == pid;
}

int drive_start(struct drive *d, const struct drive_config *c)
{
	char filter[600], ff[620], sock[RUNDIR_PATH_SIZE + 16], pidf[RUNDIR_PATH_SIZE + 16], img[620], logf[620], delay[48];
	char *argv[24];
	int a = 0, ms = c->timeout_ms > 0 ? c->timeout_ms : 10000;
	double deadline;

	drive_init(d);
	cleanup_install();
	if (find_filter(filter, sizeof(filter)))
		return fail(d, "no %s (make -C bench builds it; needs nbdkit-plugin-dev)",
			    filter);
	if (files(d, c, sock, pidf, sizeof(sock)))
		return -1;
	snprintf(ff, sizeof(ff), "--filter=%s", filter);
	snprintf(img, sizeof(img), "file=%s", c->image);
	snprintf(logf, sizeof(logf), "logfile=%s", d->log);
	snprintf(delay, sizeof(delay), "flush-delay-ms=%d",
		 c->profile && c->profile->flush_ms > 0 ? c->profile->flush_ms : 0);
	argv[a++] = "nbdkit";
	argv[a++] = "-f";
	argv[a++] = "-U";
	argv[a++] = sock;
	argv[a++] = "-P";
	argv[a++] = pidf;
	argv[a++] = "--filter=log";
	argv[a++] = ff;
	if (c->profile && c->profile->volatile_cache)
		argv[a++] = "--filter=cache";
	argv[a++] = "--filter=fua";
	argv[a++] = "file";
	argv[a++] = img;
	argv[a++] = logf;
	argv[a++] = delay;
	if (c->drop_flushes)
		argv[a++] = "drop-flush=true";
	if (c->profile && c->profile->volatile_cache)
		argv[a++] = "cache=writeback";
	argv[a++] = "fuamode=discard";
	argv[a] = NULL;

	spawn(d, argv);
	if (d->pid < 0)
		return fail(d, "fork: %s", strerror(errno));
	d->started = true;
	deadline = mono_now() + ms / 1000.0;
	while (!ready(pidf, d->pid)) {
		struct pollfd p = { .fd = d->pidfd, .events = POLLIN };
		char how[64], last[512];

		if (!drive_alive(d)) {
			exit_text(d, how, sizeof(how));
			last_err_line(d, last, sizeof(last));
			return fail(d, "nbdkit %s before it was ready%s%s", how,
				    last[0] ? ": " : "", last);
		}
		if (!ms_left(deadline)) {
			drive_kill(d);
			return fail(d, "nbdkit not ready in %d ms", ms);
		}
		if (d->pidfd >= 0)
			poll(&p, 1, 10);
		else
			usleep(10000);
	}
	return 0;
}

bool drive_alive(struct drive *d)
{
	if (d->pid <= 0 || d->reaped)
		return false;
	if (waitpid(d->pid, &d->status, WNOHANG) == d->pid) {
		d->reaped = true;
		return false;
	}
	return true;
}

bool drive_died(struct drive *d)
{
	return d->started && !d->killed && !drive_alive(d);
}

bool drive_kill(struct drive *d)
{
	if (d->pid <= 0 || d->reaped)
		return false;
	d->killed = true;
	kill(d->pid, SIGKILL);
	if (waitpid(d->pid, &d->status, 0) != d->pid)
		return false;
	d->reaped = true;
	return WIFSIGNALED(d->status) && WTERMSIG(d->status) == SIGKILL;
}

void drive_stop(struct drive *d)
{
	char path[RUNDIR_PATH_SIZE + 16];

	if (drive_alive(d)) {
		kill(d->pid, SIGTERM);
		for (int i = 0; i < 300 && drive_alive(d); i++)
			usleep(10000);
		drive_kill(d);
	}
	cleanup_forget(d->h_pid);
	d->h_pid = -1;
	d->started = false;
	if (d->pidfd >= 0)
		close(d->pidfd);
	d->pidfd = -1;
	if (d->dir[0]) {
		snprintf(path, sizeof(path), "%s/nbd.sock", d->dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/nbdkit.pid", d->dir);
		unlink(path);
		if (d->h_files[2] >= 0) {
			unlink(d->log);
			unlink(d->err);
		}
		snprintf(path, sizeof(path), "%s/owner", d->dir);
		unlink(path);
		rmdir(d->dir);
	}
	for (int i = 0; i < 5; i++) {
		cleanup_forget(d->h_files[i]);
		d->h_files[i] = -1;
	}
	cleanup_forget(d->h_dir);
	d->h_dir = -1;
	d->dir[0] = '\0';
}

void drive_report(struct drive *d)
{
	char line[512], how[64];
	FILE *f;

	if (d->why[0])
		fprintf(stderr, "%s: %s\n", cli_prog, d->why);
	else if (d->reaped) {
		exit_text(d, how, sizeof(how));
		fprintf(stderr, "%s: nbdkit (pid %d) %s\n", cli_prog, d->pid, how);
	}
	/* every line that the one-line reason does not already quote */
	f = d->err[0] ? fopen(d->err, "re") : NULL;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] && !strstr(d->why, line))
			fprintf(stderr, "nbdkit: %s\n", line);
	}
	if (f)
		fclose(f);
}

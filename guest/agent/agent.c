// SPDX-License-Identifier: GPL-2.0
/*
 * suspend-sync guest agent: answers the host lab over the virtio-serial
 * port AGENT_PORT_NAME (protocol in proto/agent_proto.h).  It writes the
 * suspend state itself and reports afterwards, because input sent to the
 * guest while it suspends can be lost.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent_proto.h"
#include "pattern.h"

#define TRACE_DIR "/sys/kernel/tracing"

static int port = -1;

static void klog(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd, n;

	n = snprintf(buf, sizeof(buf), "agent: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, buf, strlen(buf)) < 0)
			n = 0;
		close(fd);
	}
}

static void send_all(const char *buf, size_t len)
{
	if (agent_write_all(port, buf, len)) {
		klog("write to port failed: %s\n", strerror(errno));
		exit(1);
	}
}

static void sendf(const char *fmt, ...)
{
	char buf[AGENT_LINE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	/* one message per line, whatever the payload held */
	for (int i = 0; i < n; i++)
		if (buf[i] == '\n' || buf[i] == '\r')
			buf[i] = ' ';
	buf[n++] = '\n';
	send_all(buf, n);
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int open_port(void)
{
	char path[300], name[128];
	struct dirent *de;
	DIR *d = opendir("/sys/class/virtio-ports");
	int fd = -1;

	while (d && (de = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f) &&
		    !strncmp(name, AGENT_PORT_NAME, strlen(AGENT_PORT_NAME))) {
			snprintf(path, sizeof(path), "/dev/%s", de->d_name);
			fd = open(path, O_RDWR | O_CLOEXEC);
		}
		fclose(f);
		if (fd >= 0)
			break;
	}
	if (d)
		closedir(d);
	return fd;
}

/* Sends each line of a file with the given tag; returns 0 or errno.
 * filter: NULL for every line, else a '|'-separated list of substrings. */
static bool wanted(const char *line, const char *filter)
{
	char buf[256], *tok, *save;

	if (!filter)
		return true;
	snprintf(buf, sizeof(buf), "%s", filter);
	for (tok = strtok_r(buf, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
		if (strstr(line, tok))
			return true;
	return false;
}

static int send_file(const char *tag, const char *path, const char *filter)
{
	char line[AGENT_LINE_MAX - 16];
	FILE *f = fopen(path, "r");

	if (!f)
		return errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !wanted(line, filter))
			continue;
		sendf("%s %s", tag, line);
	}
	fclose(f);
	return 0;
}

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC);
	size_t len = strlen(val);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = write(fd, val, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;
	if (close(fd) && !err)
		err = errno;
	return err;
}

static void meminfo(long long *dirty, long long *wb)
{
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	*dirty = *wb = -1;
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "Dirty: %lld", dirty);
		sscanf(line, "Writeback: %lld", wb);
	}
	if (f)
		fclose(f);
}

static void cmd_run(const char *cmd)
{
	char line[AGENT_LINE_MAX - 16];
	int pfd[2], status;
	FILE *out;
	pid_t pid;

	if (pipe(pfd)) {
		sendf("DONE status=%d", 127);
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	out = fdopen(pfd[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		sendf("OUT %s", line);
	}
	if (out)
		fclose(out);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = 127 << 8;
	sendf("DONE status=%d", WIFEXITED(status) ? WEXITSTATUS(status) :
	      128 + WTERMSIG(status));
}

static void cmd_suspend(const char *state)
{
	long long dirty, wb, t0, t1;
	int kfd, rc;
	char rec[2048];
	ssize_t n;

	/* a fresh trace buffer and the kernel log from here on */
	write_file(TRACE_DIR "/trace", "");
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);

	meminfo(&dirty, &wb);
	t0 = mono_ns();
	sendf("REQUEST t_ns=%lld dirty_kb=%lld writeback_kb=%lld state=%s",
	      t0, dirty, wb, state);
	rc = write_file("/sys/power/state", state);
	t1 = mono_ns();
	sendf("RESUMED t_ns=%lld rc=%d", t1, rc);

	send_file("TRACE", TRACE_DIR "/trace",
		  "suspend_resume:|suspend_sync_skipped:");
	while (kfd >= 0) {
		n = read(kfd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: skip on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		sendf("KMSG %s", rec);
	}
	if (kfd >= 0)
		close(kfd);
	sendf("DONE status=%d", rc);
}

/* fsync the directory holding path, so a new name is durable too */
static int fsync_parent(const char *path)
{
	char dir[512], *slash;
	int fd, err = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fsync(fd))
		err = errno;
	close(fd);
	return err;
}

/* WRITE <path> <seed> <offset> <size> <fsync>: pattern bytes, buffered */
static void cmd_write(const char *arg)
{
	static unsigned char buf[1 << 16];
	unsigned long long seed, off, size, done = 0;
	char path[512];
	int sync_it, fd, err = 0;

	if (sscanf(arg, "%511s %llu %llu %llu %d", path, &seed, &off, &size,
		   &sync_it) != 5) {
		sendf("DONE status=%d", EINVAL);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		sendf("DONE status=%d", errno);
		return;
	}
	while (!err && done < size) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);
		ssize_t w;

		pattern_fill(seed, off + done, buf, n);
		w = pwrite(fd, buf, n, off + done);
		if (w < 0)
			err = errno;
		else
			done += w;
	}
	if (!err && sync_it && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (!err && sync_it)
		err = fsync_parent(path);
	sendf("DONE status=%d", err);
}

/*
 * VERIFY <path> <seed> <size>: judges every byte against the pattern.
 * OUT exists=0|1 size=<actual> good=<bytes matching within [0, size)>
 */
static void cmd_verify(const char *arg)
{
	static unsigned char buf[1 << 16], want[1 << 16];
	unsigned long long seed, size, off = 0, good = 0;
	char path[512];
	struct stat st;
	int fd;

	if (sscanf(arg, "%511s %llu %llu", path, &seed, &size) != 3) {
		sendf("DONE status=%d", EINVAL);
		return;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		sendf("OUT exists=0 size=0 good=0");
		sendf("DONE status=0");
		if (fd >= 0)
			close(fd);
		return;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n <= 0)
			break;
		pattern_fill(seed, off, want, n);
		for (ssize_t i = 0; i < n && off + i < size; i++)
			good += buf[i] == want[i];
		off += n;
	}
	close(fd);
	sendf("OUT exists=1 size=%lld good=%llu", (long long)st.st_size, good);
	sendf("DONE status=0");
}

static void dispatch(char *line)
{
	char *arg = line + strcspn(line, " ");

	if (*arg)
		*arg++ = '\0';
	if (!strcmp(line, "RUN")) {
		cmd_run(arg);
	} else if (!strcmp(line, "SET")) {
		char *val = arg + strcspn(arg, " ");

		if (*val)
			*val++ = '\0';
		sendf("DONE status=%d", write_file(arg, val));
	} else if (!strcmp(line, "GET")) {
		int err = send_file("OUT", arg, NULL);

		sendf("DONE status=%d", err);
	} else if (!strcmp(line, "WRITE")) {
		cmd_write(arg);
	} else if (!strcmp(line, "VERIFY")) {
		cmd_verify(arg);
	} else if (!strcmp(line, "SUSPEND")) {
		cmd_suspend(arg);
	} else {
		klog("unknown request '%s'\n", line);
		sendf("DONE status=%d", EINVAL);
	}
}

int main(void)
{
	static char buf[AGENT_LINE_MAX * 2];
	size_t len = 0;
	struct utsname u;

	for (int i = 0; i < 200 && port < 0; i++) {
		port = open_port();
		if (port < 0)
			usleep(50000);
	}
	if (port < 0) {
		klog("no virtio port named %s\n", AGENT_PORT_NAME);
		return 1;
	}
	uname(&u);
	sendf("READY version=%d release=%s knob=%s", AGENT_PROTO_VERSION,
	      u.release, access("/proc/sys/kernel/suspend_sync", F_OK) ?
	      "sync_on_suspend" : "suspend_sync");
	for (;;) {
		ssize_t n = read(port, buf + len, sizeof(buf) - 1 - len);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			usleep(10000);
			continue;
		}
		if (n == 0) {
			/* host not connected yet, or reconnecting */
			usleep(20000);
			continue;
		}
		if (n < 0) {
			klog("read from port failed: %s\n", strerror(errno));
			return 1;
		}
		len += n;
		buf[len] = '\0';
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			dispatch(buf);
			len -= nl + 1 - buf;
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof(buf) - 1) {
			klog("request line too long, dropped\n");
			len = 0;
		}
	}
}

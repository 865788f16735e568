// SPDX-License-Identifier: GPL-2.0
/*
 * suspend-sync guest agent: answers the host lab over the virtio-serial
 * port AGENT_PORT_NAME (protocol in proto/agent_proto.h).  It writes the
 * suspend state itself and reports afterwards, because input sent to the
 * guest while it suspends can be lost.  Every line it sends carries the
 * sequence number of the request it answers.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
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
static unsigned long seq;	/* of the request being answered */

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

static void sendf(const char *fmt, ...)
{
	char buf[AGENT_LINE_MAX];
	va_list ap;
	int n, h;

	h = snprintf(buf, sizeof(buf), "%lu ", seq);
	va_start(ap, fmt);
	n = vsnprintf(buf + h, sizeof(buf) - h - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += h;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	/* one message per line, whatever the payload held */
	for (int i = h; i < n; i++)
		if (buf[i] == '\n' || buf[i] == '\r')
			buf[i] = ' ';
	buf[n++] = '\n';
	if (agent_write_all(port, buf, n)) {
		klog("write to port failed: %s\n", strerror(errno));
		exit(1);
	}
}

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The three clocks, read back to back: mono for the trace, real for the
 * host, boot for time that went by while suspended. */
static void clocks(char *buf, size_t n)
{
	long long m = clock_ns(CLOCK_MONOTONIC), r = clock_ns(CLOCK_REALTIME);
	long long b = clock_ns(CLOCK_BOOTTIME);

	snprintf(buf, n, "mono_ns=%lld real_ns=%lld boot_ns=%lld", m, r, b);
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

/* filter: NULL for every line, else a '|'-separated list of substrings */
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

/* Sends each wanted line of a file with the given tag; 0 or errno. */
static int send_file(const char *tag, const char *path, const char *filter)
{
	char line[AGENT_LINE_MAX - 32];
	FILE *f = fopen(path, "r");

	if (!f)
		return errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (wanted(line, filter))
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
	char line[AGENT_LINE_MAX - 32];
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

static void cmd_suspend(const char *arg)
{
	long long dirty, wb, ret;
	char state[16], rec[2048], t0[128], t1[128];
	int kfd, rc, delay_ms = 0;
	ssize_t n;

	if (sscanf(arg, "%15s %d", state, &delay_ms) < 1 || delay_ms < 0) {
		sendf("DONE status=%d", EINVAL);
		return;
	}
	/* a fresh trace buffer and the kernel log from here on */
	write_file(TRACE_DIR "/trace", "");
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);

	meminfo(&dirty, &wb);
	clocks(t0, sizeof(t0));
	sendf("REQUEST %s dirty_kb=%lld writeback_kb=%lld state=%s", t0, dirty,
	      wb, state);
	rc = write_file("/sys/power/state", state);
	ret = clock_ns(CLOCK_MONOTONIC);
	if (delay_ms)
		usleep(delay_ms * 1000);
	/* the clocks as RESUMED leaves, and when the state write returned */
	clocks(t1, sizeof(t1));
	sendf("RESUMED %s ret_mono_ns=%lld rc=%d", t1, ret, rc);

	send_file("TRACE", TRACE_DIR "/trace",
		  "suspend_resume:|suspend_page_cache:");
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

static const char *type_name(mode_t m)
{
	return S_ISREG(m) ? "reg" : S_ISLNK(m) ? "lnk" : S_ISDIR(m) ? "dir" : "other";
}

/* Fills buf from offset off until full or end of file; bytes read or -1. */
static ssize_t read_full(int fd, unsigned char *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, off + got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			break;
		got += r;
	}
	return got;
}

/*
 * VERIFY <path> <seed> <size>: judges the first <size> bytes against the
 * pattern (pattern_judge(): whole words, so zeroed ranges count as lost).
 * Never follows a symlink.
 * OUT type=.. size=<actual> good=<bytes> first_bad=<offset of the first
 * byte not good, or size if none>
 */
static void cmd_verify(const char *arg)
{
	static unsigned char buf[1 << 16], want[1 << 16];
	unsigned long long seed, size, off, good = 0, first_bad;
	char path[512];
	struct stat st;
	int fd;

	if (sscanf(arg, "%511s %llu %llu", path, &seed, &size) != 3) {
		sendf("DONE status=%d", EINVAL);
		return;
	}
	first_bad = size;
	if (lstat(path, &st)) {
		int err = errno == ENOENT ? 0 : errno;	/* sendf() may change errno */

		sendf("OUT type=none size=0 good=0 first_bad=0");
		sendf("DONE status=%d", err);
		return;
	}
	fd = S_ISREG(st.st_mode) ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (fd < 0) {
		sendf("OUT type=%s size=%lld good=0 first_bad=0",
		      S_ISREG(st.st_mode) ? "other" : type_name(st.st_mode),
		      (long long)st.st_size);
		sendf("DONE status=0");
		return;
	}
	for (off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);
		ssize_t got = read_full(fd, buf, n, off);
		size_t fb;

		if (got < 0) {
			int err = errno;

			close(fd);
			sendf("DONE status=%d", err);
			return;
		}
		good += pattern_judge(seed, off, buf, got, n, want, &fb);
		if (fb < n && first_bad == size)
			first_bad = off + fb;
	}
	close(fd);
	sendf("OUT type=reg size=%lld good=%llu first_bad=%llu",
	      (long long)st.st_size, good, first_bad);
	sendf("DONE status=0");
}

/* LIST <dir>: every entry below dir, "OUT <type> <path relative to dir>" */
static int list_dir(const char *root, const char *rel, int depth)
{
	char path[2048], sub[1024];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return errno;
	while (!err && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", root, sub);
		if (lstat(path, &st)) {
			err = errno;
			break;
		}
		sendf("OUT %s %s", type_name(st.st_mode), sub);
		if (S_ISDIR(st.st_mode) && depth < 16)
			err = list_dir(root, sub, depth + 1);
	}
	closedir(d);
	return err;
}

static void cmd_clock(void)
{
	char t[128];

	clocks(t, sizeof(t));
	sendf("OUT %s", t);
	sendf("DONE status=0");
}

static void dispatch(char *line)
{
	char *end, *verb, *arg;

	seq = strtoul(line, &end, 10);
	if (end == line || *end != ' ') {
		seq = 0;
		klog("request without a sequence number dropped\n");
		return;
	}
	verb = end + 1;
	arg = verb + strcspn(verb, " ");
	if (*arg)
		*arg++ = '\0';
	if (!strcmp(verb, "RUN")) {
		cmd_run(arg);
	} else if (!strcmp(verb, "SET")) {
		char *val = arg + strcspn(arg, " ");

		if (*val)
			*val++ = '\0';
		sendf("DONE status=%d", write_file(arg, val));
	} else if (!strcmp(verb, "GET")) {
		int err = send_file("OUT", arg, NULL);

		sendf("DONE status=%d", err);
	} else if (!strcmp(verb, "WRITE")) {
		cmd_write(arg);
	} else if (!strcmp(verb, "VERIFY")) {
		cmd_verify(arg);
	} else if (!strcmp(verb, "LIST")) {
		sendf("DONE status=%d", list_dir(arg, "", 0));
	} else if (!strcmp(verb, "CLOCK")) {
		cmd_clock();
	} else if (!strcmp(verb, "SUSPEND")) {
		cmd_suspend(arg);
	} else {
		klog("unknown request '%s'\n", verb);
		sendf("DONE status=%d", EINVAL);
	}
}

int main(void)
{
	static struct agent_lines in;
	char line[AGENT_LINE_MAX];
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
		size_t room;
		char *tail = agent_lines_tail(&in, &room);
		ssize_t n = read(port, tail, room);
		enum agent_frame f;

		if (n < 0 && errno == EINTR)
			continue;
		if ((n < 0 && errno == EAGAIN) || n == 0) {
			/* host not connected yet, or reconnecting */
			usleep(20000);
			continue;
		}
		if (n < 0) {
			klog("read from port failed: %s\n", strerror(errno));
			return 1;
		}
		agent_lines_add(&in, n);
		while ((f = agent_lines_take(&in, line, sizeof(line))) != AGENT_FRAME_NEED) {
			if (f == AGENT_FRAME_TOOLONG)
				klog("request line too long, dropped\n");
			else
				dispatch(line);
		}
	}
}

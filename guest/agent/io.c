// SPDX-License-Identifier: GPL-2.0
/* The agent's I/O: the virtio port, replies, files, clocks, meminfo. */
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_proto.h"

int port = -1;
unsigned long seq;	/* of the request being answered */

void klog(const char *fmt, ...)
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

void sendf(const char *fmt, ...)
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

long long clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The three clocks, read back to back: mono for the trace, real for the
 * host, boot for time that went by while suspended. */
void clocks(char *buf, size_t n)
{
	long long m = clock_ns(CLOCK_MONOTONIC), r = clock_ns(CLOCK_REALTIME);
	long long b = clock_ns(CLOCK_BOOTTIME);

	snprintf(buf, n, "mono_ns=%lld real_ns=%lld boot_ns=%lld", m, r, b);
}

int open_port(void)
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
int send_file(const char *tag, const char *path, const char *filter)
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

int write_file(const char *path, const char *val)
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

void meminfo(long long *dirty, long long *wb)
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

// SPDX-License-Identifier: GPL-2.0
/* knobtest: reading and writing a view. */
#include "kt.h"

/* One read() of a small proc or sysfs file into buf (NUL-ended); bytes or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Value of a view as 0/1, or -1 if unreadable or not a plain 0/1 line. */
int get(const char *path)
{
	char buf[16];
	ssize_t n = read_small(path, buf, sizeof(buf));

	if (n == 2 && buf[1] == '\n' && (buf[0] == '0' || buf[0] == '1'))
		return buf[0] - '0';
	return -1;
}

/* One write() of len bytes at offset off on a fresh fd; 0 or errno. */
int put_at(const char *path, const char *val, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return errno;
	n = pwrite(fd, val, len, off);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = EIO;	/* a short write is a silent partial accept */
	close(fd);
	return err;
}

int put(const char *path, const char *val)
{
	return put_at(path, val, strlen(val), 0);
}

/* Sets a 0/1 file whatever sysctl_writes_strict says (offset 0). */
void set(const char *path, int v)
{
	put(path, v ? "1" : "0");
}

int get_int(const char *path)
{
	char buf[16];

	return read_small(path, buf, sizeof(buf)) > 0 ? atoi(buf) : -100;
}

void set_int(const char *path, int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", v);
	put(path, buf);
}

const char *show(const char *s, size_t len)
{
	static char buf[80];
	size_t i, o = 0;

	for (i = 0; i < len && o < 40; i++) {
		if (s[i] == '\n')
			o += sprintf(buf + o, "\\n");
		else if (s[i] == '\t')
			o += sprintf(buf + o, "\\t");
		else
			buf[o++] = s[i];
	}
	if (i < len)
		o += sprintf(buf + o, "...(%zu bytes)", len);
	buf[o] = '\0';
	return buf;
}

// SPDX-License-Identifier: GPL-2.0
#include "agent_proto.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int agent_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	bool sock = true;

	while (len) {
		ssize_t n = sock ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);

		if (n < 0 && sock && errno == ENOTSOCK) {
			sock = false;	/* the guest's port is a character device */
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

char *agent_lines_tail(struct agent_lines *l, size_t *room)
{
	*room = sizeof(l->buf) - l->len;
	return l->buf + l->len;
}

void agent_lines_add(struct agent_lines *l, size_t n)
{
	l->len += n;
}

static void drop(struct agent_lines *l, size_t n)
{
	l->len -= n;
	memmove(l->buf, l->buf + n, l->len);
}

enum agent_frame agent_lines_take(struct agent_lines *l, char *line, size_t n)
{
	for (;;) {
		char *nl = memchr(l->buf, '\n', l->len);
		size_t len;

		if (l->discarding) {
			if (!nl) {
				l->len = 0;
				return AGENT_FRAME_NEED;
			}
			l->discarding = false;
			drop(l, nl + 1 - l->buf);
			continue;
		}
		if (!nl) {
			if (l->len < sizeof(l->buf))
				return AGENT_FRAME_NEED;
			/* full and no newline: the rest of this line is not a message */
			l->discarding = true;
			l->len = 0;
			return AGENT_FRAME_TOOLONG;
		}
		len = nl - l->buf;
		if (len >= n) {
			drop(l, len + 1);
			return AGENT_FRAME_TOOLONG;
		}
		memcpy(line, l->buf, len);
		line[len] = '\0';
		drop(l, len + 1);
		return AGENT_FRAME_LINE;
	}
}

static const char *const names[] = {
	[AGENT_MSG_UNKNOWN] = "?",
	[AGENT_MSG_READY] = "READY",
	[AGENT_MSG_OUT] = "OUT",
	[AGENT_MSG_DONE] = "DONE",
	[AGENT_MSG_REQUEST] = "REQUEST",
	[AGENT_MSG_RESUMED] = "RESUMED",
	[AGENT_MSG_TRACE] = "TRACE",
	[AGENT_MSG_KMSG] = "KMSG",
};

const char *agent_msg_name(enum agent_msg m)
{
	return m < sizeof(names) / sizeof(names[0]) ? names[m] : "?";
}

bool agent_msg_parse(char *line, unsigned long *seq, enum agent_msg *tag,
		     char **rest)
{
	size_t dlen = strspn(line, "0123456789"), len;
	char *t;

	*tag = AGENT_MSG_UNKNOWN;
	if (!dlen || dlen > 9 || line[dlen] != ' ')
		return false;
	*seq = strtoul(line, NULL, 10);
	t = line + dlen + 1;
	len = strcspn(t, " ");
	*rest = t[len] ? t + len + 1 : t + len;
	for (unsigned int i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(t, names[i], len)) {
			*tag = i;
			return true;
		}
	return false;
}

bool agent_kv(const char *list, const char *key, char *val, size_t n)
{
	size_t klen = strlen(key);
	const char *p = list;

	while (*p) {
		size_t tlen = strcspn(p, " ");

		if (tlen > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			size_t vlen = tlen - klen - 1;

			if (vlen >= n)
				return false;
			memcpy(val, p + klen + 1, vlen);
			val[vlen] = '\0';
			return true;
		}
		p += tlen;
		p += strspn(p, " ");
	}
	return false;
}

bool agent_kv_ll(const char *list, const char *key, long long *val)
{
	char buf[32], *end;
	const char *d;

	if (!agent_kv(list, key, buf, sizeof(buf)))
		return false;
	/* decimal only: no spaces, '+' or hex slip through strtoll */
	d = buf + (buf[0] == '-');
	if (!*d || strspn(d, "0123456789") != strlen(d))
		return false;
	errno = 0;
	*val = strtoll(buf, &end, 10);
	return !errno && !*end;
}

bool agent_kvs_ll(const char *list, ...)
{
	const char *key;
	bool ok = true;
	va_list ap;

	va_start(ap, list);
	while ((key = va_arg(ap, const char *))) {
		long long *v = va_arg(ap, long long *);

		if (!agent_kv_ll(list, key, v))
			ok = false;
	}
	va_end(ap);
	return ok;
}

// SPDX-License-Identifier: GPL-2.0
#include "agent_proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int agent_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

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
	return names[m];
}

enum agent_msg agent_msg_parse(char *line, char **rest)
{
	size_t len = strcspn(line, " ");
	unsigned int i;

	*rest = line[len] ? line + len + 1 : line + len;
	for (i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !strncmp(line, names[i], len))
			return i;
	return AGENT_MSG_UNKNOWN;
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

	if (!agent_kv(list, key, buf, sizeof(buf)) || !buf[0])
		return false;
	errno = 0;
	*val = strtoll(buf, &end, 10);
	return !errno && !*end;
}

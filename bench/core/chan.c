#define _GNU_SOURCE
#include "chan.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"

static const char *const names[] = {
	[CHAN_OK] = "ok", [CHAN_TIMEOUT] = "timeout", [CHAN_CLOSED] = "closed",
	[CHAN_PROTO] = "protocol error", [CHAN_DEAD] = "peer died",
	[CHAN_HALTED] = "peer halted",
};

const char *chan_status_name(enum chan_status s)
{
	return s <= CHAN_HALTED ? names[s] : "?";
}

void chan_init(struct chan *ch, int fd, int pidfd)
{
	memset(ch, 0, sizeof(*ch));
	ch->fd = fd;
	ch->pidfd = pidfd;
	ch->watch_fd = -1;
}

void chan_set_watch(struct chan *ch, int fd, chan_watch_fn fn, void *ctx)
{
	ch->watch_fd = fn ? fd : -1;
	ch->watch = fn;
	ch->watch_ctx = ctx;
}

void chan_close(struct chan *ch)
{
	if (ch->fd >= 0)
		close(ch->fd);
	ch->fd = -1;
}

__attribute__((format(printf, 3, 4)))
static enum chan_status fail(struct chan *ch, enum chan_status s,
			     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ch->why, sizeof(ch->why), fmt, ap);
	va_end(ap);
	return s;
}

enum chan_status chan_send(struct chan *ch, const char *fmt, ...)
{
	char buf[AGENT_LINE_MAX];
	va_list ap;
	int h, n;

	if (ch->fd < 0)
		return fail(ch, CHAN_CLOSED, "channel closed");
	h = snprintf(buf, sizeof(buf), "%lu ", ++ch->seq);
	va_start(ap, fmt);
	n = vsnprintf(buf + h, sizeof(buf) - h, fmt, ap);
	va_end(ap);
	if (n < 0 || h + n >= (int)sizeof(buf) - 1 || memchr(buf, '\n', h + n))
		return fail(ch, CHAN_PROTO, "request too long or not one line");
	buf[h + n] = '\n';
	if (agent_write_all(ch->fd, buf, h + n + 1))
		return fail(ch, CHAN_CLOSED, "write to the agent: %s", strerror(errno));
	return CHAN_OK;
}

/* Waits for bytes; the pidfd turns readable when the process exits, the
 * watch fd when the peer may have been halted. */
static enum chan_status fill(struct chan *ch, double deadline)
{
	struct pollfd p[3] = {
		{ .fd = ch->fd, .events = POLLIN },
		{ .fd = ch->pidfd, .events = POLLIN },
		{ .fd = ch->watch_fd, .events = POLLIN },
	};
	size_t room;
	char *tail;
	ssize_t r;
	int n;

	for (;;) {
		n = poll(p, 3, ms_left(deadline));	/* fd -1 is ignored */
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fail(ch, CHAN_CLOSED, "poll: %s", strerror(errno));
		if (!n)
			return fail(ch, CHAN_TIMEOUT, "no reply in time");
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
			break;
		if (p[1].revents)
			return fail(ch, CHAN_DEAD, "the guest's QEMU exited");
		if (ch->watch(ch->watch_ctx, ch->why, sizeof(ch->why)))
			return CHAN_HALTED;
		if (p[2].revents & (POLLHUP | POLLERR | POLLNVAL))
			p[2].fd = -1;	/* a closed monitor: the pidfd tells the rest */
	}
	tail = agent_lines_tail(&ch->in, &room);
	do {
		r = read(ch->fd, tail, room);
	} while (r < 0 && errno == EINTR);
	if (r <= 0)
		return fail(ch, CHAN_CLOSED, "agent channel %s",
			    r ? strerror(errno) : "closed");
	agent_lines_add(&ch->in, r);
	return CHAN_OK;
}

static enum chan_status next_line(struct chan *ch, double deadline)
{
	for (;;) {
		enum agent_frame f = agent_lines_take(&ch->in, ch->line,
						      sizeof(ch->line));
		enum chan_status s;

		if (f == AGENT_FRAME_LINE)
			return CHAN_OK;
		if (f == AGENT_FRAME_TOOLONG)
			return fail(ch, CHAN_PROTO, "a line over %d bytes from the agent",
				    AGENT_LINE_MAX - 1);
		s = fill(ch, deadline);
		if (s)
			return s;
	}
}

static enum chan_status recv_seq(struct chan *ch, unsigned long want,
				 double deadline, enum agent_msg *tag, char **rest)
{
	unsigned long seq;
	enum chan_status s = next_line(ch, deadline);

	if (s)
		return s;
	if (!agent_msg_parse(ch->line, &seq, tag, rest))
		return fail(ch, CHAN_PROTO, "not a message: '%.60s'", ch->line);
	if (seq != want)
		return fail(ch, CHAN_PROTO, "a %s for request %lu while waiting for %lu",
			    agent_msg_name(*tag), seq, want);
	return CHAN_OK;
}

enum chan_status chan_recv(struct chan *ch, double deadline,
			   enum agent_msg *tag, char **rest)
{
	return recv_seq(ch, ch->seq, deadline, tag, rest);
}

enum chan_status chan_ready(struct chan *ch, double deadline, char **rest)
{
	enum agent_msg tag;
	long long v;
	enum chan_status s = recv_seq(ch, 0, deadline, &tag, rest);

	if (s)
		return s;
	if (tag != AGENT_MSG_READY)
		return fail(ch, CHAN_PROTO, "%s before READY", agent_msg_name(tag));
	if (!agent_kv_ll(*rest, "version", &v))
		return fail(ch, CHAN_PROTO, "READY without a version");
	if (v != AGENT_PROTO_VERSION)
		return fail(ch, CHAN_PROTO,
			    "the agent speaks protocol %lld, the lab %d: rebuild the initramfs",
			    v, AGENT_PROTO_VERSION);
	return CHAN_OK;
}

enum chan_status chan_request(struct chan *ch, const char *req, double deadline,
			      chan_line_fn fn, void *ctx, int *status)
{
	enum chan_status s;
	enum agent_msg tag;
	char *rest;
	long long st;

	ch->why[0] = '\0';
	s = chan_send(ch, "%s", req);
	while (!s) {
		s = chan_recv(ch, deadline, &tag, &rest);
		if (s)
			break;
		if (tag == AGENT_MSG_DONE) {
			if (!agent_kv_ll(rest, "status", &st))
				return fail(ch, CHAN_PROTO, "DONE without a status");
			if (status)
				*status = (int)st;
			return CHAN_OK;
		}
		if (fn)
			fn(ctx, tag, rest);
		if (ch->why[0])
			return CHAN_PROTO;
	}
	return s;
}

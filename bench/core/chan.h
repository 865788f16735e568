/*
 * The host's end of the agent channel (protocol in proto/agent_proto.h):
 * numbered requests, replies checked against the number, overlong lines
 * reported instead of split, and the peer's death seen at once through a
 * pidfd.  Deadlines are CLOCK_MONOTONIC (clock.h).
 */
#ifndef SLAB_CHAN_H
#define SLAB_CHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "agent_proto.h"

enum chan_status {
	CHAN_OK = 0,
	CHAN_TIMEOUT,		/* nothing in time */
	CHAN_CLOSED,		/* EOF or a write error: the peer went away */
	CHAN_PROTO,		/* framing, sequence number, tag or keys wrong */
	CHAN_DEAD,		/* the process behind the channel exited */
	CHAN_HALTED,		/* the watch said the peer will not answer */
};

/* A second fd to watch while waiting (QEMU's QMP socket): when it turns
 * readable, fn says whether the peer is halted (and why, into why). */
typedef bool (*chan_watch_fn)(void *ctx, char *why, size_t n);

struct chan {
	int fd;			/* -1 when closed */
	int pidfd;		/* -1: no process to watch */
	unsigned long seq;	/* of the last request sent */
	struct agent_lines in;
	char line[AGENT_LINE_MAX];
	char why[256];		/* what went wrong, for the report */
	int watch_fd;		/* -1: none */
	chan_watch_fn watch;
	void *watch_ctx;
};

void chan_init(struct chan *ch, int fd, int pidfd);
void chan_close(struct chan *ch);
const char *chan_status_name(enum chan_status s);
void chan_set_watch(struct chan *ch, int fd, chan_watch_fn fn, void *ctx);

/* Sends "<seq> <request>" under a new sequence number. */
enum chan_status chan_send(struct chan *ch, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The next message of the current request: its tag and the text after it
 * (valid until the next call).  A message for another request, an unknown
 * tag or an overlong line is CHAN_PROTO, with ch->why saying which.
 */
enum chan_status chan_recv(struct chan *ch, double deadline,
			   enum agent_msg *tag, char **rest);

/* The agent's unasked greeting: "0 READY version=.." of our version. */
enum chan_status chan_ready(struct chan *ch, double deadline, char **rest);

typedef void (*chan_line_fn)(void *ctx, enum agent_msg tag, char *rest);
/*
 * Sends a request and hands every reply line before DONE to fn (may be
 * NULL); *status gets DONE's required status.  A fn that sets ch->why
 * fails the request with CHAN_PROTO (an output cap, say).
 */
enum chan_status chan_request(struct chan *ch, const char *req, double deadline,
			      chan_line_fn fn, void *ctx, int *status);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The line protocol between the host lab and the guest agent, shared by both
 * sides.  One ASCII line per message, '\n' terminated, at most
 * AGENT_LINE_MAX bytes with the newline.  Every line starts with the
 * sequence number of the request it belongs to, so a reply can never pass
 * for another request's; READY, sent unasked, carries 0.  A line that is too
 * long is dropped up to its newline and reported, never read as two.
 *
 *   host -> guest                     guest -> host (each "<seq> ...")
 *   <seq> RUN <shell command>         OUT <line>...   DONE status=<exit code>
 *   <seq> SET <path> <value>          DONE status=<0 or errno>
 *   <seq> GET <path>                  OUT <line>...   DONE status=<0 or errno>
 *   <seq> WRITE <path> <seed> <offset> <size> <fsync 0|1>
 *                                     DONE status=<0 or errno>
 *   <seq> VERIFY <path> <seed> <size> OUT type=reg|lnk|dir|other|none size=..
 *                                         good=.. first_bad=..
 *                                     DONE status=0
 *   <seq> LIST <dir>                  OUT <type> <path>...  DONE status=..
 *   <seq> CLOCK                       OUT mono_ns=.. real_ns=.. boot_ns=..
 *                                     DONE status=0
 *   <seq> SUSPEND <state> [<resume_delay_ms>]
 *                                     REQUEST mono_ns=.. real_ns=.. boot_ns=..
 *                                             dirty_kb=.. writeback_kb=..
 *                                     RESUMED mono_ns=.. real_ns=.. boot_ns=..
 *                                             ret_mono_ns=.. rc=<0 or errno>
 *                                     TRACE <ftrace line>...  KMSG <line>...
 *                                     DONE status=<0 or errno>
 *   (agent start)                     0 READY version=.. release=.. knob=..
 *
 * mono_ns is the guest's CLOCK_MONOTONIC, the clock of the trace lines.
 * RESUMED's clocks are read as it is sent; ret_mono_ns is when the state
 * write returned.  resume_delay_ms delays RESUMED after that (a test-only
 * fault for the resume spans).
 */
#ifndef AGENT_PROTO_H
#define AGENT_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#define AGENT_PORT_NAME		"org.suspend-sync.agent"
#define AGENT_PROTO_VERSION	2
#define AGENT_LINE_MAX		4096

enum agent_msg {
	AGENT_MSG_UNKNOWN = 0,
	AGENT_MSG_READY,
	AGENT_MSG_OUT,
	AGENT_MSG_DONE,
	AGENT_MSG_REQUEST,
	AGENT_MSG_RESUMED,
	AGENT_MSG_TRACE,
	AGENT_MSG_KMSG,
};

/*
 * Writes all of buf, retrying EINTR; 0 or -1 with errno.  On a socket it
 * uses MSG_NOSIGNAL: a peer that went away is EPIPE, never a SIGPIPE.
 */
int agent_write_all(int fd, const void *buf, size_t len);

/* Line framing over a byte stream. */
struct agent_lines {
	char buf[AGENT_LINE_MAX];
	size_t len;
	bool discarding;	/* inside an overlong line */
};

enum agent_frame {
	AGENT_FRAME_NEED = 0,	/* no complete line yet: read more */
	AGENT_FRAME_LINE = 1,	/* line holds one, without its newline */
	AGENT_FRAME_TOOLONG = -1, /* a line overflowed: dropped to its newline */
};

/* Where to read the next bytes, and how many fit; then agent_lines_add(). */
char *agent_lines_tail(struct agent_lines *l, size_t *room);
void agent_lines_add(struct agent_lines *l, size_t n);
/* The next complete line into line (n >= AGENT_LINE_MAX). */
enum agent_frame agent_lines_take(struct agent_lines *l, char *line, size_t n);

/*
 * Splits "<seq> TAG rest" in place: false if the sequence number is not a
 * plain decimal or the tag unknown.
 */
bool agent_msg_parse(char *line, unsigned long *seq, enum agent_msg *tag,
		     char **rest);
const char *agent_msg_name(enum agent_msg m);

/*
 * Finds key=value in a space-separated list ("a=1 b=2").  Copies the value
 * into val (size n) and returns true, or returns false if absent.
 */
bool agent_kv(const char *list, const char *key, char *val, size_t n);
/* Same for integers; false if absent or not a whole decimal number. */
bool agent_kv_ll(const char *list, const char *key, long long *val);
/*
 * Required keys: ("key", &value, ...) pairs ending in NULL; true only if
 * every key is present and a whole decimal number.
 */
bool agent_kvs_ll(const char *list, ...) __attribute__((sentinel));

#endif

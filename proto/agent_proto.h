/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The line protocol between the host lab and the guest agent, shared by both
 * sides.  One ASCII line per message, '\n' terminated, at most
 * AGENT_LINE_MAX bytes.  The host sends one request and reads lines until
 * DONE; the guest never speaks first except for READY.
 *
 *   host -> guest                 guest -> host
 *   RUN <shell command>           OUT <line>...   DONE status=<exit code>
 *   SET <path> <value>            DONE status=<0 or errno>
 *   GET <path>                    OUT <value>     DONE status=<0 or errno>
 *   WRITE <path> <seed> <offset> <size> <fsync 0|1>
 *                                 DONE status=<0 or errno>
 *   VERIFY <path> <seed> <size>   OUT exists=0|1 size=.. good=..  DONE status=0
 *   SUSPEND <state>               REQUEST t_ns=.. dirty_kb=.. writeback_kb=..
 *                                 RESUMED t_ns=.. rc=<0 or errno>
 *                                 TRACE <ftrace line>...  KMSG <line>...
 *                                 DONE status=<0 or errno>
 *   (agent start)                 READY version=.. release=.. knob=..
 *
 * t_ns is the guest's CLOCK_MONOTONIC, the clock of the trace lines.
 */
#ifndef AGENT_PROTO_H
#define AGENT_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#define AGENT_PORT_NAME		"org.suspend-sync.agent"
#define AGENT_PROTO_VERSION	1
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

/* write() until all of buf is out, retrying EINTR; 0 or -1 with errno. */
int agent_write_all(int fd, const void *buf, size_t len);

/* Splits "TAG rest" in place: returns the tag, *rest points after it. */
enum agent_msg agent_msg_parse(char *line, char **rest);
const char *agent_msg_name(enum agent_msg m);

/*
 * Finds key=value in a space-separated list ("a=1 b=2").  Copies the value
 * into val (size n) and returns true, or returns false if absent.
 */
bool agent_kv(const char *list, const char *key, char *val, size_t n);
/* Same for integers; false if absent or not a whole decimal number. */
bool agent_kv_ll(const char *list, const char *key, long long *val);

#endif

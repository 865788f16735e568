/*
 * What the two halves of the QMP client share: the session's state, and
 * the stream (qmp_stream.c: deadlines, reading, JSON framing, sending) as
 * the session (qmp.c: replies, events, commands) uses it.
 */
#ifndef QMP_PRIV_H
#define QMP_PRIV_H

#include <stdint.h>
#include <stdio.h>

#include "qmp.h"

#define QMP_READ_CHUNK	4096
/* Far above anything QEMU sends (query-qmp-schema is ~200 KiB). */
#define QMP_MAX_BUF	(16u << 20)
#define QMP_RETRY_MS	20

struct qmp {
	int fd;
	bool eof;
	FILE *log;
	char *buf;			/* received, not yet parsed */
	size_t len, cap;
	unsigned long next_id;
	struct qmp_event *stash;	/* FIFO, oldest first */
	size_t nstash, stash_cap;
	char version[32];		/* "" until the handshake succeeded */
	char err[512];
};

/* Deadlines are CLOCK_MONOTONIC milliseconds, -1 meaning never. */
int64_t qmp_deadline_of(int timeout_ms);
int qmp_time_left(int64_t deadline);

/* Sets the session's error text; returns status. */
__attribute__((format(printf, 3, 4)))
int qmp_fail(struct qmp *q, int status, const char *fmt, ...);
void qmp_log_line(struct qmp *q, char dir, const char *text);

/* The next JSON value from the stream, reading until the deadline. */
int qmp_read_msg(struct qmp *q, int64_t deadline, json_t **out);
int qmp_send_all(struct qmp *q, const char *s, size_t len, int64_t deadline);

#endif

/*
 * Minimal QMP (QEMU Machine Protocol) client.
 *
 * One struct qmp per monitor connection. Commands are synchronous; events
 * that arrive while waiting for anything are kept in a FIFO stash so that
 * callers can ask for them later. All timeouts are in milliseconds;
 * a negative timeout waits forever, 0 only looks at what is already there.
 */
#ifndef SLAB_QMP_H
#define SLAB_QMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

enum qmp_status {
	QMP_OK = 0,
	QMP_ERR_REPLY = -1,	/* QMP "error" reply */
	QMP_ERR_TIMEOUT = -2,
	QMP_ERR_EOF = -3,
	QMP_ERR_PROTO = -4,	/* malformed JSON or unexpected message */
	QMP_ERR_IO = -5,
};

struct qmp_event {
	char *name;
	double timestamp;	/* seconds since epoch, from the event itself */
	json_t *data;		/* may be NULL */
};

struct qmp;

/* Retries on ENOENT/ECONNREFUSED every ~20 ms; -1 + errno (ETIMEDOUT). */
int qmp_connect_unix(const char *path, int timeout_ms);

/* Takes ownership of fd (closed even if allocation fails). */
struct qmp *qmp_new(int fd);
void qmp_free(struct qmp *q);
void qmp_set_log(struct qmp *q, FILE *log);

int qmp_handshake(struct qmp *q, int timeout_ms);
const char *qmp_qemu_version(const struct qmp *q);

int qmp_command(struct qmp *q, const char *cmd, json_t *args, json_t **ret,
		int timeout_ms);
/* The monitor's socket, to poll beside other fds; -1 for NULL. */
int qmp_fd(const struct qmp *q);
/* Never NULL; "" if nothing has failed yet. */
const char *qmp_last_error(const struct qmp *q);

/* name == NULL matches any event; out may be NULL to discard the event. */
int qmp_wait_event(struct qmp *q, const char *name, int timeout_ms,
		   struct qmp_event *out);
bool qmp_take_event(struct qmp *q, const char *name, struct qmp_event *out);
/* Events read before an error stay in the stash. */
int qmp_poll_events(struct qmp *q, int timeout_ms);
size_t qmp_stashed(const struct qmp *q);

void qmp_event_clear(struct qmp_event *ev);
double qmp_now(void);

#endif

/*
 * QMP client, the session: replies checked against the pending id, and
 * events stashed in arrival order unless somebody is waiting for them.
 * The stream underneath is qmp_stream.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "qmp_priv.h"

struct qmp *qmp_new(int fd)
{
	struct qmp *q;
	int fl, e;

	if (fd < 0)
		return NULL;
	q = calloc(1, sizeof(*q));
	if (!q) {
		e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	q->fd = fd;
	/* poll() decides when to wait; reads and writes must never block. */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	return q;
}

void qmp_event_clear(struct qmp_event *ev)
{
	free(ev->name);
	json_decref(ev->data);
	memset(ev, 0, sizeof(*ev));
}

void qmp_free(struct qmp *q)
{
	size_t i;

	if (!q)
		return;
	close(q->fd);
	for (i = 0; i < q->nstash; i++)
		qmp_event_clear(&q->stash[i]);
	free(q->stash);
	free(q->buf);
	free(q);
}

void qmp_set_log(struct qmp *q, FILE *log)
{
	q->log = log;
}

const char *qmp_qemu_version(const struct qmp *q)
{
	return q->version[0] ? q->version : NULL;
}

int qmp_fd(const struct qmp *q)
{
	return q ? q->fd : -1;
}

const char *qmp_last_error(const struct qmp *q)
{
	return q->err;
}

size_t qmp_stashed(const struct qmp *q)
{
	return q->nstash;
}

static int parse_event(struct qmp *q, const json_t *msg, struct qmp_event *ev)
{
	const char *name = json_string_value(json_object_get(msg, "event"));
	json_t *ts = json_object_get(msg, "timestamp");
	json_t *sec = json_object_get(ts, "seconds");
	json_t *usec = json_object_get(ts, "microseconds");

	if (!name)
		return qmp_fail(q, QMP_ERR_PROTO, "event without a name");
	if (!json_is_integer(sec) || !json_is_integer(usec) ||
	    json_integer_value(sec) < 0 || json_integer_value(usec) < 0 ||
	    json_integer_value(usec) > 999999)
		return qmp_fail(q, QMP_ERR_PROTO, "event %s: bad timestamp", name);
	ev->name = strdup(name);
	if (!ev->name)
		return qmp_fail(q, QMP_ERR_IO, "out of memory");
	ev->timestamp = json_integer_value(sec) + json_integer_value(usec) / 1e6;
	ev->data = json_incref(json_object_get(msg, "data"));
	return QMP_OK;
}

static int stash_push(struct qmp *q, struct qmp_event *ev)
{
	struct qmp_event *s;
	size_t cap;

	if (q->nstash == q->stash_cap) {
		cap = q->stash_cap ? q->stash_cap * 2 : 16;
		s = realloc(q->stash, cap * sizeof(*s));
		if (!s) {
			qmp_event_clear(ev);
			return qmp_fail(q, QMP_ERR_IO, "out of memory");
		}
		q->stash = s;
		q->stash_cap = cap;
	}
	q->stash[q->nstash++] = *ev;
	return QMP_OK;
}

/*
 * Read until a non-event message arrives (QMP_OK, *msg set). Events are
 * stashed, except that one matching @name is returned in *hit (returns 1)
 * when hit is non-NULL; name NULL matches any.
 */
static int pump(struct qmp *q, int64_t deadline, const char *name,
		struct qmp_event *hit, json_t **msg)
{
	struct qmp_event ev = { 0 };
	json_t *m;
	int r;

	for (;;) {
		r = qmp_read_msg(q, deadline, &m);
		if (r)
			return r;
		if (!json_is_object(m)) {
			json_decref(m);
			return qmp_fail(q, QMP_ERR_PROTO, "message is not an object");
		}
		if (!json_object_get(m, "event")) {
			*msg = m;
			return QMP_OK;
		}
		r = parse_event(q, m, &ev);
		json_decref(m);
		if (r)
			return r;
		if (hit && (!name || !strcmp(name, ev.name))) {
			*hit = ev;
			return 1;
		}
		r = stash_push(q, &ev);
		if (r)
			return r;
	}
}

static int check_reply(struct qmp *q, const json_t *m, const char *id,
		       json_t **ret)
{
	const char *rid = json_string_value(json_object_get(m, "id"));
	json_t *rv = json_object_get(m, "return");
	json_t *err = json_object_get(m, "error");
	const char *cls = json_string_value(json_object_get(err, "class"));
	const char *desc = json_string_value(json_object_get(err, "desc"));

	if (!rv && !err)
		return qmp_fail(q, QMP_ERR_PROTO, "unexpected message for %s", id);
	/* QEMU omits the id when it could not parse the command at all. */
	if (!rid)
		return qmp_fail(q, QMP_ERR_PROTO, "reply without id for %s%s%s",
			    id, err ? ": " : "", desc ? desc : "");
	if (strcmp(rid, id))
		return qmp_fail(q, QMP_ERR_PROTO, "reply id %s, expected %s",
			    rid, id);
	if (err)
		return qmp_fail(q, QMP_ERR_REPLY, "%s: %s", cls ? cls : "?",
			    desc ? desc : "?");
	if (ret)
		*ret = json_incref(rv);
	return QMP_OK;
}

static int do_command(struct qmp *q, const char *cmd, json_t *args,
		      json_t **ret, int64_t deadline)
{
	char id[32], *line;
	json_t *req, *m;
	size_t n;
	int r;

	snprintf(id, sizeof(id), "slab-%lu", ++q->next_id);
	/* "O*" takes a reference and leaves "arguments" out when NULL. */
	req = json_pack("{s:s, s:O*, s:s}", "execute", cmd, "arguments", args,
			"id", id);
	line = req ? json_dumps(req, JSON_COMPACT) : NULL;
	json_decref(req);
	if (!line)
		return qmp_fail(q, QMP_ERR_PROTO, "cannot encode command %s",
			    cmd ? cmd : "(null)");
	qmp_log_line(q, '>', line);
	n = strlen(line);
	line[n] = '\n';		/* replaces the NUL; length passed below */
	r = qmp_send_all(q, line, n + 1, deadline);
	free(line);
	if (r)
		return r;

	r = pump(q, deadline, NULL, NULL, &m);
	if (r)
		return r;
	r = check_reply(q, m, id, ret);
	json_decref(m);
	return r;
}

int qmp_command(struct qmp *q, const char *cmd, json_t *args, json_t **ret,
		int timeout_ms)
{
	return do_command(q, cmd, args, ret, qmp_deadline_of(timeout_ms));
}

int qmp_handshake(struct qmp *q, int timeout_ms)
{
	int64_t deadline = qmp_deadline_of(timeout_ms);
	json_t *m, *v;
	char ver[sizeof(q->version)];
	int r;

	r = pump(q, deadline, NULL, NULL, &m);
	if (r)
		return r;
	v = json_object_get(json_object_get(json_object_get(m, "QMP"),
					    "version"), "qemu");
	if (!json_is_integer(json_object_get(v, "major")) ||
	    !json_is_integer(json_object_get(v, "minor")) ||
	    !json_is_integer(json_object_get(v, "micro"))) {
		json_decref(m);
		return qmp_fail(q, QMP_ERR_PROTO, "no QMP greeting");
	}
	snprintf(ver, sizeof(ver), "%lld.%lld.%lld",
		 (long long)json_integer_value(json_object_get(v, "major")),
		 (long long)json_integer_value(json_object_get(v, "minor")),
		 (long long)json_integer_value(json_object_get(v, "micro")));
	json_decref(m);

	r = do_command(q, "qmp_capabilities", NULL, NULL, deadline);
	if (r)
		return r;
	strcpy(q->version, ver);
	return QMP_OK;
}

bool qmp_take_event(struct qmp *q, const char *name, struct qmp_event *out)
{
	struct qmp_event ev;
	size_t i;

	if (out)
		memset(out, 0, sizeof(*out));
	for (i = 0; i < q->nstash; i++) {
		if (name && strcmp(name, q->stash[i].name))
			continue;
		ev = q->stash[i];
		memmove(&q->stash[i], &q->stash[i + 1],
			(q->nstash - i - 1) * sizeof(*q->stash));
		q->nstash--;
		if (out)
			*out = ev;
		else
			qmp_event_clear(&ev);
		return true;
	}
	return false;
}

int qmp_wait_event(struct qmp *q, const char *name, int timeout_ms,
		   struct qmp_event *out)
{
	struct qmp_event ev = { 0 };
	json_t *m;
	int r;

	if (qmp_take_event(q, name, out))
		return QMP_OK;
	r = pump(q, qmp_deadline_of(timeout_ms), name, &ev, &m);
	if (r == 1) {
		if (out)
			*out = ev;
		else
			qmp_event_clear(&ev);
		return QMP_OK;
	}
	if (r == QMP_OK) {
		json_decref(m);
		return qmp_fail(q, QMP_ERR_PROTO, "unexpected reply while waiting for %s",
			    name ? name : "an event");
	}
	return r;
}

int qmp_poll_events(struct qmp *q, int timeout_ms)
{
	int64_t deadline = qmp_deadline_of(timeout_ms);
	size_t before = q->nstash;
	char err[sizeof(q->err)];
	json_t *m;
	int r;

	/* Running out of time is the normal end here, not a failure. */
	memcpy(err, q->err, sizeof(err));
	r = pump(q, deadline, NULL, NULL, &m);
	if (r == QMP_ERR_TIMEOUT) {
		memcpy(q->err, err, sizeof(err));
		return q->nstash - before;
	}
	if (r == QMP_OK) {
		json_decref(m);
		return qmp_fail(q, QMP_ERR_PROTO, "unexpected reply while polling");
	}
	return r;
}

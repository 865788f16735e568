/*
 * QMP client: a byte buffer fed by poll()+read(), cut into JSON values by
 * jansson, then sorted into replies (checked against the pending id) and
 * events (stashed in arrival order unless somebody is waiting for them).
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

double qmp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Deadlines are CLOCK_MONOTONIC milliseconds, -1 meaning never. */
static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : mono_ms() + timeout_ms;
}

/* poll() timeout for what is left; 0 once passed, so we still look once. */
static int time_left(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - mono_ms();
	if (left < 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

__attribute__((format(printf, 3, 4)))
static int fail(struct qmp *q, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(q->err, sizeof(q->err), fmt, ap);
	va_end(ap);
	return status;
}

static void log_line(struct qmp *q, char dir, const char *text)
{
	if (!q->log)
		return;
	fprintf(q->log, "%c %.6f %s\n", dir, qmp_now(), text);
	fflush(q->log);
}

static void log_json(struct qmp *q, char dir, const json_t *msg)
{
	char *s;

	if (!q->log)
		return;
	/* Re-encoded compactly so that every message stays on one line. */
	s = json_dumps(msg, JSON_COMPACT);
	log_line(q, dir, s ? s : "(unencodable)");
	free(s);
}

/* Raw bytes of a message we could not parse, control chars made visible. */
static void log_garbage(struct qmp *q)
{
	char s[256];
	size_t i, n = q->len < sizeof(s) - 1 ? q->len : sizeof(s) - 1;

	if (!q->log)
		return;
	for (i = 0; i < n; i++)
		s[i] = (unsigned char)q->buf[i] < 0x20 ? '.' : q->buf[i];
	s[n] = '\0';
	log_line(q, '<', s);
}

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

const char *qmp_last_error(const struct qmp *q)
{
	return q->err;
}

size_t qmp_stashed(const struct qmp *q)
{
	return q->nstash;
}

int qmp_connect_unix(const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int64_t deadline = deadline_of(timeout_ms);
	int fd, e, left;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return fd;
		e = errno;
		close(fd);
		/* QEMU may not have created or bound the socket yet. */
		if (e != ENOENT && e != ECONNREFUSED && e != EINTR) {
			errno = e;
			return -1;
		}
		left = time_left(deadline);
		if (!left) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (left < 0 || left > QMP_RETRY_MS)
			left = QMP_RETRY_MS;
		nanosleep(&(struct timespec){ .tv_nsec = left * 1000000L }, NULL);
	}
}

static void consume(struct qmp *q, size_t n)
{
	if (!n)
		return;		/* buf may still be NULL */
	memmove(q->buf, q->buf + n, q->len - n);
	q->len -= n;
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Cut one JSON value off the front of the buffer.
 * Returns 1 with *out set, 0 if more input is needed, or QMP_ERR_*.
 */
static int parse_one(struct qmp *q, json_t **out)
{
	json_error_t jerr;
	json_t *msg;
	size_t n = 0;

	while (n < q->len && is_ws(q->buf[n]))
		n++;
	consume(q, n);
	if (!q->len)
		return 0;

	msg = json_loadb(q->buf, q->len, JSON_DISABLE_EOF_CHECK, &jerr);
	if (msg) {
		/*
		 * jansson 2.14 sets position to the bytes it consumed, ending
		 * right after the closing brace; what follows is left alone.
		 */
		if (jerr.position <= 0 || (size_t)jerr.position > q->len) {
			json_decref(msg);
			fail(q, QMP_ERR_PROTO, "jansson reported position %d of %zu",
			     jerr.position, q->len);
			q->len = 0;
			return QMP_ERR_PROTO;
		}
		consume(q, jerr.position);
		log_json(q, '<', msg);
		*out = msg;
		return 1;
	}
	if (json_error_code(&jerr) == json_error_out_of_memory)
		return fail(q, QMP_ERR_IO, "out of memory parsing JSON");
	/*
	 * Input cut inside a token ("tr", "\u00") is reported as an invalid
	 * token or escape rather than premature end of input, but with the
	 * lexer at the end of the buffer; a UTF-8 sequence cut short is an
	 * invalid byte at its start, at most 3 bytes before the end. Only
	 * errors before that are certainly malformed; the rest are settled
	 * by the next read (QEMU ends every message with CR LF) or by EOF.
	 */
	if (json_error_code(&jerr) == json_error_premature_end_of_input)
		return 0;
	if (jerr.position >= 0 && (size_t)jerr.position +
	    (json_error_code(&jerr) == json_error_invalid_utf8 ? 3 : 0) >= q->len)
		return 0;
	log_garbage(q);
	/* There is no reliable way to resynchronise; drop what we have. */
	q->len = 0;
	return fail(q, QMP_ERR_PROTO, "malformed JSON at byte %d: %s",
		    jerr.position, jerr.text);
}

/* Wait for and append more input; 0 on progress (data, EOF or EINTR). */
static int fill(struct qmp *q, int64_t deadline)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	ssize_t n;
	size_t cap;
	char *buf;
	int r;

	if (q->len > QMP_MAX_BUF)
		return fail(q, QMP_ERR_PROTO, "message larger than %u bytes",
			    QMP_MAX_BUF);
	if (q->cap - q->len < QMP_READ_CHUNK) {
		cap = q->cap ? q->cap * 2 : 2 * QMP_READ_CHUNK;
		buf = realloc(q->buf, cap);
		if (!buf)
			return fail(q, QMP_ERR_IO, "out of memory");
		q->buf = buf;
		q->cap = cap;
	}
	r = poll(&pfd, 1, time_left(deadline));
	if (r < 0)
		return errno == EINTR ? 0 :
			fail(q, QMP_ERR_IO, "poll: %s", strerror(errno));
	if (!r)
		return fail(q, QMP_ERR_TIMEOUT, "timed out waiting for QEMU");
	n = read(q->fd, q->buf + q->len, q->cap - q->len);
	if (n > 0) {
		q->len += n;
		return 0;
	}
	/* A peer that dies with our command unread gives ECONNRESET. */
	if (!n || errno == ECONNRESET) {
		q->eof = true;
		return 0;
	}
	if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
		return 0;
	return fail(q, QMP_ERR_IO, "read: %s", strerror(errno));
}

/* Next JSON value from the stream, reading until the deadline. */
static int read_msg(struct qmp *q, int64_t deadline, json_t **out)
{
	int r;

	for (;;) {
		r = parse_one(q, out);
		if (r)
			return r < 0 ? r : QMP_OK;
		if (q->eof)
			return q->len ?
				fail(q, QMP_ERR_EOF,
				     "EOF in the middle of a message (%zu bytes)",
				     q->len) :
				fail(q, QMP_ERR_EOF, "EOF from QEMU");
		r = fill(q, deadline);
		if (r)
			return r;
	}
}

static int send_all(struct qmp *q, const char *s, size_t len, int64_t deadline)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLOUT };
	ssize_t n;
	int r;

	while (len) {
		n = send(q->fd, s, len, MSG_NOSIGNAL);
		if (n < 0 && errno == ENOTSOCK)
			n = write(q->fd, s, len);
		if (n >= 0) {
			s += n;
			len -= n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EPIPE || errno == ECONNRESET)
			return fail(q, QMP_ERR_EOF, "QEMU closed the connection");
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return fail(q, QMP_ERR_IO, "send: %s", strerror(errno));
		r = poll(&pfd, 1, time_left(deadline));
		if (r < 0 && errno != EINTR)
			return fail(q, QMP_ERR_IO, "poll: %s", strerror(errno));
		if (!r)
			return fail(q, QMP_ERR_TIMEOUT, "timed out sending");
	}
	return QMP_OK;
}

static int parse_event(struct qmp *q, const json_t *msg, struct qmp_event *ev)
{
	const char *name = json_string_value(json_object_get(msg, "event"));
	json_t *ts = json_object_get(msg, "timestamp");
	json_t *sec = json_object_get(ts, "seconds");
	json_t *usec = json_object_get(ts, "microseconds");

	if (!name)
		return fail(q, QMP_ERR_PROTO, "event without a name");
	if (!json_is_integer(sec) || !json_is_integer(usec) ||
	    json_integer_value(sec) < 0 || json_integer_value(usec) < 0 ||
	    json_integer_value(usec) > 999999)
		return fail(q, QMP_ERR_PROTO, "event %s: bad timestamp", name);
	ev->name = strdup(name);
	if (!ev->name)
		return fail(q, QMP_ERR_IO, "out of memory");
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
			return fail(q, QMP_ERR_IO, "out of memory");
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
		r = read_msg(q, deadline, &m);
		if (r)
			return r;
		if (!json_is_object(m)) {
			json_decref(m);
			return fail(q, QMP_ERR_PROTO, "message is not an object");
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
		return fail(q, QMP_ERR_PROTO, "unexpected message for %s", id);
	/* QEMU omits the id when it could not parse the command at all. */
	if (!rid)
		return fail(q, QMP_ERR_PROTO, "reply without id for %s%s%s",
			    id, err ? ": " : "", desc ? desc : "");
	if (strcmp(rid, id))
		return fail(q, QMP_ERR_PROTO, "reply id %s, expected %s",
			    rid, id);
	if (err)
		return fail(q, QMP_ERR_REPLY, "%s: %s", cls ? cls : "?",
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
		return fail(q, QMP_ERR_PROTO, "cannot encode command %s",
			    cmd ? cmd : "(null)");
	log_line(q, '>', line);
	n = strlen(line);
	line[n] = '\n';		/* replaces the NUL; length passed below */
	r = send_all(q, line, n + 1, deadline);
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
	return do_command(q, cmd, args, ret, deadline_of(timeout_ms));
}

int qmp_handshake(struct qmp *q, int timeout_ms)
{
	int64_t deadline = deadline_of(timeout_ms);
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
		return fail(q, QMP_ERR_PROTO, "no QMP greeting");
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
	r = pump(q, deadline_of(timeout_ms), name, &ev, &m);
	if (r == 1) {
		if (out)
			*out = ev;
		else
			qmp_event_clear(&ev);
		return QMP_OK;
	}
	if (r == QMP_OK) {
		json_decref(m);
		return fail(q, QMP_ERR_PROTO, "unexpected reply while waiting for %s",
			    name ? name : "an event");
	}
	return r;
}

int qmp_poll_events(struct qmp *q, int timeout_ms)
{
	int64_t deadline = deadline_of(timeout_ms);
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
		return fail(q, QMP_ERR_PROTO, "unexpected reply while polling");
	}
	return r;
}

/*
 * QMP client, the stream: a byte buffer fed by poll()+read() and cut into
 * JSON values by jansson; sending with a deadline; the connection itself.
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

int64_t qmp_deadline_of(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : mono_ms() + timeout_ms;
}

/* poll() timeout for what is left; 0 once passed, so we still look once. */
int qmp_time_left(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - mono_ms();
	if (left < 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

int qmp_fail(struct qmp *q, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(q->err, sizeof(q->err), fmt, ap);
	va_end(ap);
	return status;
}

void qmp_log_line(struct qmp *q, char dir, const char *text)
{
	if (!q->log)
		return;
	fprintf(q->log, "%c %.6f %s\n", dir, qmp_now(), text);
	fflush(q->log);
}

void qmp_log_json(struct qmp *q, char dir, const json_t *msg)
{
	char *s;

	if (!q->log)
		return;
	/* Re-encoded compactly so that every message stays on one line. */
	s = json_dumps(msg, JSON_COMPACT);
	qmp_log_line(q, dir, s ? s : "(unencodable)");
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
	qmp_log_line(q, '<', s);
}

int qmp_connect_unix(const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int64_t deadline = qmp_deadline_of(timeout_ms);
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
		left = qmp_time_left(deadline);
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
			qmp_fail(q, QMP_ERR_PROTO, "jansson reported position %d of %zu",
			     jerr.position, q->len);
			q->len = 0;
			return QMP_ERR_PROTO;
		}
		consume(q, jerr.position);
		qmp_log_json(q, '<', msg);
		*out = msg;
		return 1;
	}
	if (json_error_code(&jerr) == json_error_out_of_memory)
		return qmp_fail(q, QMP_ERR_IO, "out of memory parsing JSON");
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
	return qmp_fail(q, QMP_ERR_PROTO, "malformed JSON at byte %d: %s",
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
		return qmp_fail(q, QMP_ERR_PROTO, "message larger than %u bytes",
			    QMP_MAX_BUF);
	if (q->cap - q->len < QMP_READ_CHUNK) {
		cap = q->cap ? q->cap * 2 : 2 * QMP_READ_CHUNK;
		buf = realloc(q->buf, cap);
		if (!buf)
			return qmp_fail(q, QMP_ERR_IO, "out of memory");
		q->buf = buf;
		q->cap = cap;
	}
	r = poll(&pfd, 1, qmp_time_left(deadline));
	if (r < 0)
		return errno == EINTR ? 0 :
			qmp_fail(q, QMP_ERR_IO, "poll: %s", strerror(errno));
	if (!r)
		return qmp_fail(q, QMP_ERR_TIMEOUT, "timed out waiting for QEMU");
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
	return qmp_fail(q, QMP_ERR_IO, "read: %s", strerror(errno));
}

/* Next JSON value from the stream, reading until the deadline. */
int qmp_read_msg(struct qmp *q, int64_t deadline, json_t **out)
{
	int r;

	for (;;) {
		r = parse_one(q, out);
		if (r)
			return r < 0 ? r : QMP_OK;
		if (q->eof)
			return q->len ?
				qmp_fail(q, QMP_ERR_EOF,
				     "EOF in the middle of a message (%zu bytes)",
				     q->len) :
				qmp_fail(q, QMP_ERR_EOF, "EOF from QEMU");
		r = fill(q, deadline);
		if (r)
			return r;
	}
}

int qmp_send_all(struct qmp *q, const char *s, size_t len, int64_t deadline)
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
			return qmp_fail(q, QMP_ERR_EOF, "QEMU closed the connection");
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return qmp_fail(q, QMP_ERR_IO, "send: %s", strerror(errno));
		r = poll(&pfd, 1, qmp_time_left(deadline));
		if (r < 0 && errno != EINTR)
			return qmp_fail(q, QMP_ERR_IO, "poll: %s", strerror(errno));
		if (!r)
			return qmp_fail(q, QMP_ERR_TIMEOUT, "timed out sending");
	}
	return QMP_OK;
}

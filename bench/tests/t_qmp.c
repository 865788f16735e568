/*
 * Offline unit tests for the QMP client (qmp.c). A fake QEMU sits on the
 * other end of a socketpair and replays transcripts shaped like real
 * QEMU 7.2 output, answering with the id the client actually sent. They
 * guard the stream handling real sessions depend on but rarely exercise:
 * messages split at any byte or packed into one read, events arriving
 * before a reply (stashed in order, timestamps exact to the microsecond),
 * error replies, wrong or missing ids, malformed JSON, EOF mid-message,
 * timeouts, EINTR, and connecting to a socket that only appears later.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "qmp.h"
#include "tap.h"

#define LONG_MS		5000	/* for things that should succeed */
#define SHORT_MS	100	/* for things that should time out */

/* Transcript pieces as QEMU 7.2 prints them; $ID is the client's id. */
#define GREETING \
	"{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 19, \"minor\": 2, " \
	"\"major\": 7}, \"package\": \"Debian 1:7.2+dfsg-7+deb12u18\"}, " \
	"\"capabilities\": [\"oob\"]}}\r\n"
#define R_EMPTY		"{\"return\": {}, \"id\": \"$ID\"}\r\n"
#define R_STATUS \
	"{\"return\": {\"status\": \"running\", \"singlestep\": false, " \
	"\"running\": true}, \"id\": \"$ID\"}\r\n"
#define R_WAKEUP_ERR \
	"{\"id\": \"$ID\", \"error\": {\"class\": \"GenericError\", " \
	"\"desc\": \"Unable to wake up: guest is not in suspended state\"}}\r\n"
#define R_OPEN_ERR \
	"{\"id\": \"$ID\", \"error\": {\"class\": \"GenericError\", " \
	"\"desc\": \"Could not open '/srv/caf\\u00e9.qcow2': " \
	"No such file or directory\"}}\r\n"
#define EV_STOP \
	"{\"timestamp\": {\"seconds\": 1764748799, \"microseconds\": 1}, " \
	"\"event\": \"STOP\"}\r\n"
#define EV_SUSPEND \
	"{\"timestamp\": {\"seconds\": 1764748800, \"microseconds\": 123456}, " \
	"\"event\": \"SUSPEND\"}\r\n"
#define EV_RESUME \
	"{\"timestamp\": {\"seconds\": 1764748801, \"microseconds\": 500000}, " \
	"\"event\": \"RESUME\"}\r\n"
#define EV_SHUTDOWN \
	"{\"timestamp\": {\"seconds\": 1764748802, \"microseconds\": 999999}, " \
	"\"event\": \"SHUTDOWN\", \"data\": {\"guest\": false, " \
	"\"reason\": \"host-qmp-quit\"}}\r\n"

/* 2-, 3- and 4-byte UTF-8 sequences: "café € " U+1F600. */
#define UTF8_NOTE	"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"

/* ---- fake QEMU ---------------------------------------------------------- */

enum { P_END, P_READ, P_WRITE };

struct step {
	int op;
	const char *arg;	/* P_READ: expected command; P_WRITE: text */
	size_t chunk;		/* P_WRITE: bytes per write, 0 = all at once */
	int delay_ms;		/* P_WRITE: pause before each chunk */
};

/* Script steps; designated so unused fields stay zero. */
#define S_READ(cmd)	{ .op = P_READ, .arg = (cmd) }
#define S_WRITE(text)	{ .op = P_WRITE, .arg = (text) }
#define S_SLOW(text, chunk_, delay) \
	{ .op = P_WRITE, .arg = (text), .chunk = (chunk_), .delay_ms = (delay) }
#define S_END		{ .op = P_END }

static int peer_write(int fd, const char *s, size_t len, size_t chunk,
		      int delay_ms)
{
	ssize_t n;
	size_t k;

	while (len) {
		k = chunk && chunk < len ? chunk : len;
		if (delay_ms)
			usleep(delay_ms * 1000);
		n = send(fd, s, k, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		s += n;
		len -= n;
	}
	return 0;
}

/* One command line from the client; checks it and copies out its id. */
static int peer_read_cmd(int fd, const char *expect, char *id, size_t idlen)
{
	char line[4096];
	const char *exe, *cid;
	json_t *cmd;
	size_t n = 0;
	ssize_t r;
	int ret = -1;

	while (n < sizeof(line) - 1) {
		r = read(fd, line + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (line[n++] == '\n')
			break;
	}
	line[n] = '\0';
	/* Strict parse: exactly one JSON object per line. */
	cmd = json_loads(line, 0, NULL);
	exe = json_string_value(json_object_get(cmd, "execute"));
	cid = json_string_value(json_object_get(cmd, "id"));
	if (exe && cid && (!expect || !strcmp(exe, expect))) {
		snprintf(id, idlen, "%s", cid);
		ret = 0;
	} else {
		fprintf(stderr, "# peer: unexpected command: %s", line);
	}
	json_decref(cmd);
	return ret;
}

/* Text with every $ID replaced by id; caller frees. */
static char *subst_id(const char *text, const char *id)
{
	char *out = malloc(strlen(text) * (strlen(id) + 1) + 1), *o = out;

	while (*text) {
		if (!strncmp(text, "$ID", 3)) {
			o = stpcpy(o, id);
			text += 3;
		} else {
			*o++ = *text++;
		}
	}
	*o = '\0';
	return out;
}

/* Runs in the child; exit status 0 if every step went as scripted. */
static int peer_run(int fd, const struct step *s)
{
	char id[64] = "", seen[16][64];
	int i, nseen = 0, r;
	char *text;

	for (; s->op != P_END; s++) {
		if (s->op == P_READ) {
			if (peer_read_cmd(fd, s->arg, id, sizeof(id)))
				return 1;
			/* Every command must carry a fresh id. */
			for (i = 0; i < nseen; i++)
				if (!strcmp(seen[i], id))
					return 2;
			if (nseen < 16)
				strcpy(seen[nseen++], id);
			continue;
		}
		text = subst_id(s->arg, id);
		r = peer_write(fd, text, strlen(text), s->chunk, s->delay_ms);
		free(text);
		if (r)
			return 3;
	}
	return 0;
}

struct fake {
	struct qmp *q;
	int cfd, pfd;	/* client end (owned by q), peer end */
	pid_t pid;
};

static void fake_open(struct fake *f)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		exit(2);
	}
	f->cfd = sv[0];
	f->pfd = sv[1];
	f->pid = -1;
	f->q = qmp_new(sv[0]);
}

static pid_t spawn(int keep, int drop, const struct step *s)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid) {
		if (drop >= 0)
			close(drop);
		_exit(peer_run(keep, s));
	}
	return pid;
}

/* Hands the peer end to a child running the script. */
static void fake_script(struct fake *f, const struct step *s)
{
	f->pid = spawn(f->pfd, f->cfd, s);
	close(f->pfd);
	f->pfd = -1;
}

static bool child_ok(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(st) && !WEXITSTATUS(st);
}

/*
 * Frees everything; true if the scripted peer (if any) was happy. The peer
 * may still be writing the CR LF after a reply the client has already
 * taken, so reap it before closing; SHUT_WR ends a script stuck in a read.
 */
static bool fake_close(struct fake *f)
{
	bool ok = true;

	shutdown(f->cfd, SHUT_WR);
	if (f->pid > 0)
		ok = child_ok(f->pid);
	qmp_free(f->q);
	if (f->pfd >= 0)
		close(f->pfd);
	return ok;
}

static void put(int fd, const char *s)
{
	if (peer_write(fd, s, strlen(s), 0, 0)) {
		perror("peer write");
		exit(2);
	}
}

static bool ts_is(double ts, long long sec, long usec)
{
	return (long long)ts == sec &&
	       (long)((ts - sec) * 1e6 + 0.5) == usec;
}

static bool ev_is(const struct qmp_event *ev, const char *name,
		  long long sec, long usec)
{
	return ev->name && !strcmp(ev->name, name) &&
	       ts_is(ev->timestamp, sec, usec);
}

static bool err_has(struct qmp *q, const char *s)
{
	return strstr(qmp_last_error(q), s) != NULL;
}

/* ---- tests -------------------------------------------------------------- */

static void t_handshake(void)
{
	static const struct step s[] = {
		S_WRITE(GREETING),
		S_READ("qmp_capabilities"),
		S_WRITE(R_EMPTY),
		S_END
	};
	struct fake f;
	const char *v;
	int r;

	fake_open(&f);
	tap_ok(!qmp_qemu_version(f.q), "handshake: no version before");
	fake_script(&f, s);
	r = qmp_handshake(f.q, LONG_MS);
	tap_ok(r == QMP_OK, "handshake: greeting + qmp_capabilities (%d %s)",
	       r, qmp_last_error(f.q));
	v = qmp_qemu_version(f.q);
	tap_ok(v && !strcmp(v, "7.2.19"), "handshake: version %s",
	       v ? v : "(null)");
	tap_ok(fake_close(&f), "handshake: peer saw qmp_capabilities");
}

static void t_events_before_reply(void)
{
	static const struct step s[] = {
		S_READ("query-status"),
		S_WRITE(EV_STOP),
		S_SLOW(EV_SUSPEND, 0, 5),
		S_SLOW(EV_SHUTDOWN, 0, 5),
		S_SLOW(R_STATUS, 0, 5),
		S_END
	};
	struct qmp_event ev;
	struct fake f;
	json_t *ret = NULL;
	int r;

	fake_open(&f);
	fake_script(&f, s);
	r = qmp_command(f.q, "query-status", NULL, &ret, LONG_MS);
	tap_ok(r == QMP_OK && json_is_true(json_object_get(ret, "running")),
	       "interleaved: reply after three events (%d %s)", r,
	       qmp_last_error(f.q));
	tap_ok(qmp_stashed(f.q) == 3, "interleaved: 3 events stashed (%zu)",
	       qmp_stashed(f.q));

	tap_ok(qmp_take_event(f.q, NULL, &ev) &&
	       ev_is(&ev, "STOP", 1764748799, 1) && !ev.data,
	       "interleaved: 1st STOP @1764748799.000001, no data");
	qmp_event_clear(&ev);
	tap_ok(qmp_take_event(f.q, NULL, &ev) &&
	       ev_is(&ev, "SUSPEND", 1764748800, 123456),
	       "interleaved: 2nd SUSPEND @1764748800.123456");
	qmp_event_clear(&ev);
	tap_ok(qmp_take_event(f.q, NULL, &ev) &&
	       ev_is(&ev, "SHUTDOWN", 1764748802, 999999) &&
	       !strcmp(json_string_value(json_object_get(ev.data, "reason")),
		       "host-qmp-quit"),
	       "interleaved: 3rd SHUTDOWN @1764748802.999999 with data");
	qmp_event_clear(&ev);
	tap_ok(!qmp_take_event(f.q, NULL, &ev) && !qmp_stashed(f.q),
	       "interleaved: stash empty afterwards");
	json_decref(ret);
	tap_ok(fake_close(&f), "interleaved: peer script ok");
}

static void t_split_bytewise(void)
{
	/* Cuts land inside numbers, "true", "false" and a \u escape. */
	static const struct step s[] = {
		S_READ("query-status"),
		S_SLOW(EV_SUSPEND R_STATUS, 1, 1),
		S_READ("blockdev-add"),
		S_SLOW(R_OPEN_ERR, 1, 1),
		S_READ("cont"),
		/* Raw UTF-8 cut mid-character (QEMU escapes, others may not). */
		S_SLOW("{\"return\": {\"note\": \"" UTF8_NOTE "\"}, "
		       "\"id\": \"$ID\"}\r\n", 1, 1),
		S_END
	};
	struct qmp_event ev;
	struct fake f;
	json_t *ret = NULL, *args;
	int r;

	fake_open(&f);
	fake_script(&f, s);
	r = qmp_command(f.q, "query-status", NULL, &ret, LONG_MS);
	tap_ok(r == QMP_OK &&
	       !strcmp(json_string_value(json_object_get(ret, "status")),
		       "running") &&
	       json_is_false(json_object_get(ret, "singlestep")),
	       "bytewise: reply reassembled (%d %s)", r, qmp_last_error(f.q));
	json_decref(ret);
	tap_ok(qmp_take_event(f.q, "SUSPEND", &ev) &&
	       ev_is(&ev, "SUSPEND", 1764748800, 123456),
	       "bytewise: event before it reassembled and stashed");
	qmp_event_clear(&ev);

	args = json_pack("{s:s, s:s}", "driver", "qcow2", "node-name", "d0");
	ret = NULL;
	r = qmp_command(f.q, "blockdev-add", args, &ret, LONG_MS);
	json_decref(args);
	tap_ok(r == QMP_ERR_REPLY && !ret &&
	       !strcmp(qmp_last_error(f.q), "GenericError: Could not open "
		       "'/srv/caf\xc3\xa9.qcow2': No such file or directory"),
	       "bytewise: error reply with \\u escape (%s)",
	       qmp_last_error(f.q));

	r = qmp_command(f.q, "cont", NULL, &ret, LONG_MS);
	tap_ok(r == QMP_OK &&
	       !strcmp(json_string_value(json_object_get(ret, "note")),
		       UTF8_NOTE),
	       "bytewise: raw UTF-8 split mid-character (%d %s)", r,
	       qmp_last_error(f.q));
	json_decref(ret);
	tap_ok(fake_close(&f), "bytewise: peer script ok");
}

static void t_one_read(void)
{
	static const struct step s[] = {
		S_READ("stop"),
		S_WRITE(EV_STOP R_EMPTY EV_SUSPEND),
		S_END
	};
	struct qmp_event ev;
	struct fake f;
	int r;

	fake_open(&f);
	put(f.pfd, EV_STOP EV_RESUME EV_SUSPEND);
	r = qmp_poll_events(f.q, 0);
	tap_ok(r == 3, "one read: three events polled (%d)", r);
	tap_ok(qmp_take_event(f.q, NULL, &ev) && !strcmp(ev.name, "STOP"),
	       "one read: first is STOP");
	qmp_event_clear(&ev);
	qmp_take_event(f.q, NULL, NULL);
	qmp_take_event(f.q, NULL, NULL);

	fake_script(&f, s);
	r = qmp_command(f.q, "stop", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_OK && qmp_stashed(f.q) == 1,
	       "one read: event + reply + event, reply ok (%d %s)", r,
	       qmp_last_error(f.q));
	/* The trailing event is already buffered; the child has exited. */
	r = qmp_wait_event(f.q, "SUSPEND", LONG_MS, &ev);
	tap_ok(r == QMP_OK && ev_is(&ev, "SUSPEND", 1764748800, 123456),
	       "one read: event after the reply not lost (%d %s)", r,
	       qmp_last_error(f.q));
	qmp_event_clear(&ev);
	r = qmp_poll_events(f.q, LONG_MS);
	tap_ok(r == QMP_ERR_EOF && qmp_stashed(f.q) == 1,
	       "one read: then EOF, STOP still stashed (%d)", r);
	tap_ok(fake_close(&f), "one read: peer script ok");
}

static void t_malformed(void)
{
	static const struct step s[] = {
		S_READ("query-status"),
		S_WRITE("{\"return\": {\"status\": \"running\"], "
			"\"id\": \"$ID\"}\r\n"),
		S_READ("query-status"),
		S_WRITE("[\"return\", {}]\r\n"),
		S_READ("query-status"),
		S_WRITE(GREETING),
		S_READ("query-status"),
		S_WRITE("{\"return\": {\"status\": \"\xff\"}, "
			"\"id\": \"$ID\"}\r\n"),
		S_END
	};
	struct fake f;
	int r;

	fake_open(&f);
	fake_script(&f, s);
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_PROTO && err_has(f.q, "malformed"),
	       "malformed: bad JSON -> PROTO (%s)", qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_PROTO, "malformed: array -> PROTO (%s)",
	       qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_PROTO, "malformed: greeting as reply -> PROTO (%s)",
	       qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_PROTO && err_has(f.q, "malformed"),
	       "malformed: invalid UTF-8 -> PROTO (%s)", qmp_last_error(f.q));
	tap_ok(fake_close(&f), "malformed: peer script ok");

	fake_open(&f);
	put(f.pfd, "{\"timestamp\": {\"seconds\": 1764748800}, "
		   "\"event\": \"STOP\"}\r\n");
	r = qmp_wait_event(f.q, "STOP", LONG_MS, NULL);
	tap_ok(r == QMP_ERR_PROTO && !qmp_stashed(f.q),
	       "malformed: event without microseconds -> PROTO (%s)",
	       qmp_last_error(f.q));
	fake_close(&f);
}

static void t_error_reply(void)
{
	static const struct step s[] = {
		S_READ("system_wakeup"),
		S_WRITE(R_WAKEUP_ERR),
		S_READ("query-status"),
		S_WRITE(R_STATUS),
		S_END
	};
	struct fake f;
	json_t *ret = NULL;
	int r;

	fake_open(&f);
	fake_script(&f, s);
	r = qmp_command(f.q, "system_wakeup", NULL, &ret, LONG_MS);
	tap_ok(r == QMP_ERR_REPLY && !ret &&
	       !strcmp(qmp_last_error(f.q), "GenericError: Unable to wake up: "
		       "guest is not in suspended state"),
	       "error reply: QMP_ERR_REPLY + \"%s\"", qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, &ret, LONG_MS);
	tap_ok(r == QMP_OK && ret, "error reply: next command still works");
	json_decref(ret);
	tap_ok(fake_close(&f), "error reply: peer saw distinct ids");
}

static void t_eof(void)
{
	static const struct step s[] = {
		S_READ("query-status"),
		S_WRITE("{\"return\": {\"status\": \"runn"),
		S_END
	};
	struct fake f;
	int r;

	fake_open(&f);
	fake_script(&f, s);
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_EOF && err_has(f.q, "middle"),
	       "eof: mid-message -> EOF (%s)", qmp_last_error(f.q));
	tap_ok(fake_close(&f), "eof: peer script ok");

	fake_open(&f);
	close(f.pfd);
	f.pfd = -1;
	r = qmp_wait_event(f.q, NULL, LONG_MS, NULL);
	tap_ok(r == QMP_ERR_EOF, "eof: clean close -> EOF (%s)",
	       qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_EOF, "eof: command to closed peer -> EOF (%s)",
	       qmp_last_error(f.q));
	fake_close(&f);
}

static void t_timeout(void)
{
	struct fake f;
	char id[64];
	int r;

	fake_open(&f);
	r = qmp_command(f.q, "query-status", NULL, NULL, SHORT_MS);
	tap_ok(r == QMP_ERR_TIMEOUT, "timeout: silent peer -> TIMEOUT (%d)", r);
	tap_ok(!peer_read_cmd(f.pfd, "query-status", id, sizeof(id)) &&
	       !strcmp(id, "slab-1"), "timeout: command was sent as %s", id);
	put(f.pfd, "{\"timestamp\": {\"seconds\": 17647");
	r = qmp_wait_event(f.q, NULL, SHORT_MS, NULL);
	tap_ok(r == QMP_ERR_TIMEOUT, "timeout: half a message -> TIMEOUT (%d)",
	       r);
	r = qmp_poll_events(f.q, SHORT_MS);
	tap_ok(r == 0, "timeout: poll_events -> 0 (%d)", r);
	put(f.pfd, "48800, \"microseconds\": 123456}, \"event\": \"SUSPEND\"}");
	r = qmp_poll_events(f.q, SHORT_MS);
	tap_ok(r == 1 && qmp_take_event(f.q, "SUSPEND", NULL),
	       "timeout: rest of it arrives later -> 1 event (%d)", r);
	fake_close(&f);
}

static void t_wrong_id(void)
{
	static const struct step s[] = {
		S_READ("query-status"),
		S_WRITE("{\"return\": {}, \"id\": \"slab-999\"}\r\n"),
		S_READ("query-status"),
		S_WRITE("{\"return\": {}}\r\n"),
		S_END
	};
	struct fake f;
	int r;

	fake_open(&f);
	fake_script(&f, s);
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_PROTO && err_has(f.q, "slab-999"),
	       "wrong id: -> PROTO (%s)", qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_PROTO, "wrong id: missing id -> PROTO (%s)",
	       qmp_last_error(f.q));
	tap_ok(fake_close(&f), "wrong id: peer script ok");
}

static void t_wait_stash(void)
{
	struct qmp_event ev;
	struct fake f;
	int r;

	fake_open(&f);
	put(f.pfd, EV_STOP EV_RESUME EV_SHUTDOWN);
	r = qmp_wait_event(f.q, "SHUTDOWN", LONG_MS, &ev);
	tap_ok(r == QMP_OK && ev_is(&ev, "SHUTDOWN", 1764748802, 999999) &&
	       qmp_stashed(f.q) == 2,
	       "stash: wait SHUTDOWN stashes STOP, RESUME on the way");
	qmp_event_clear(&ev);

	/* Peer gone: anything found now must come from the stash. */
	close(f.pfd);
	f.pfd = -1;
	r = qmp_wait_event(f.q, "RESUME", SHORT_MS, &ev);
	tap_ok(r == QMP_OK && ev_is(&ev, "RESUME", 1764748801, 500000),
	       "stash: wait RESUME served from stash (%d %s)", r,
	       qmp_last_error(f.q));
	qmp_event_clear(&ev);
	tap_ok(!qmp_take_event(f.q, "RESUME", &ev) && !ev.name,
	       "stash: RESUME taken only once");
	tap_ok(qmp_take_event(f.q, NULL, &ev) && !strcmp(ev.name, "STOP") &&
	       !qmp_stashed(f.q), "stash: take(NULL) -> STOP, now empty");
	qmp_event_clear(&ev);
	r = qmp_wait_event(f.q, "STOP", SHORT_MS, &ev);
	tap_ok(r == QMP_ERR_EOF, "stash: nothing left -> EOF (%d)", r);
	fake_close(&f);
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void t_eintr(void)
{
	static const struct step s[] = {
		S_READ("query-status"),
		S_SLOW(R_STATUS, 0, 200),
		S_END
	};
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } }, off = { 0 };
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct fake f;
	int r;

	fake_open(&f);
	fake_script(&f, s);
	/* No SA_RESTART, so poll() and friends really see EINTR. */
	sigaction(SIGALRM, &sa, &old);
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	tap_ok(r == QMP_OK, "eintr: reply after %d signals (%d %s)",
	       (int)alarms, r, qmp_last_error(f.q));
	tap_ok(fake_close(&f), "eintr: peer script ok");
}

static void t_log(void)
{
	static const struct step s[] = {
		S_READ("stop"),
		S_WRITE(EV_STOP R_EMPTY),
		S_END
	};
	struct fake f;
	char *buf = NULL, *line[4] = { 0 }, *p;
	size_t len = 0;
	FILE *log = open_memstream(&buf, &len);
	int r, n = 0;

	fake_open(&f);
	qmp_set_log(f.q, log);
	fake_script(&f, s);
	r = qmp_command(f.q, "stop", NULL, NULL, LONG_MS);
	tap_ok(fake_close(&f) && r == QMP_OK, "log: command ok");
	fclose(log);
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
		if (n < 4)
			line[n++] = p;
	tap_ok(n == 3 && !strncmp(line[0], "> ", 2) &&
	       strstr(line[0], "\"execute\":\"stop\"") &&
	       !strncmp(line[1], "< ", 2) && strstr(line[1], "\"STOP\"") &&
	       !strncmp(line[2], "< ", 2) && strstr(line[2], "\"slab-1\""),
	       "log: one line per message, > sent, < received (%d lines)", n);
	if (n)
		tap_diag("log: %s", line[0]);
	free(buf);
}

static void t_connect(void)
{
	static const struct step s[] = {
		S_WRITE(GREETING),
		S_READ("qmp_capabilities"),
		S_WRITE(R_EMPTY),
		S_END
	};
	char dir[] = "/tmp/t_qmp.XXXXXX", path[64], path2[64];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct qmp *q;
	pid_t pid;
	int fd, ls, r;

	if (!mkdtemp(dir)) {
		tap_skip(strerror(errno), "connect: no temp dir");
		return;
	}
	snprintf(path, sizeof(path), "%s/qmp.sock", dir);
	snprintf(path2, sizeof(path2), "%s/refused.sock", dir);

	/* A "QEMU" that only binds its socket after ~100 ms. */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		usleep(100 * 1000);
		strcpy(sa.sun_path, path);
		ls = socket(AF_UNIX, SOCK_STREAM, 0);
		if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) ||
		    listen(ls, 1))
			_exit(4);
		fd = accept(ls, NULL, NULL);
		_exit(fd < 0 ? 5 : peer_run(fd, s));
	}
	fd = qmp_connect_unix(path, LONG_MS);
	tap_ok(fd >= 0, "connect: retried until the listener appeared (%s)",
	       fd < 0 ? strerror(errno) : "ok");
	if (fd < 0)
		kill(pid, SIGKILL);	/* it would wait in accept() forever */
	q = qmp_new(fd);
	r = q ? qmp_handshake(q, LONG_MS) : QMP_ERR_IO;
	tap_ok(r == QMP_OK && !strcmp(qmp_qemu_version(q), "7.2.19"),
	       "connect: handshake over the unix socket (%d)", r);
	qmp_free(q);
	tap_ok(child_ok(pid), "connect: listener script ok");

	errno = 0;
	fd = qmp_connect_unix(path2, SHORT_MS);
	tap_ok(fd < 0 && errno == ETIMEDOUT,
	       "connect: no socket file -> -1/ETIMEDOUT at deadline (%s)",
	       strerror(errno));

	/* Bound but not listening: ECONNREFUSED, also retried. */
	strcpy(sa.sun_path, path2);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	if (ls >= 0 && !bind(ls, (struct sockaddr *)&sa, sizeof(sa))) {
		errno = 0;
		fd = qmp_connect_unix(path2, SHORT_MS);
		tap_ok(fd < 0 && errno == ETIMEDOUT,
		       "connect: refused -> -1/ETIMEDOUT at deadline (%s)",
		       strerror(errno));
	} else {
		tap_skip(strerror(errno), "connect: refused");
	}
	if (ls >= 0)
		close(ls);
	unlink(path);
	unlink(path2);
	rmdir(dir);
}

int main(void)
{
	t_handshake();
	t_events_before_reply();
	t_split_bytewise();
	t_one_read();
	t_malformed();
	t_error_reply();
	t_eof();
	t_timeout();
	t_wrong_id();
	t_wait_stash();
	t_eintr();
	t_log();
	t_connect();
	return tap_done();
}

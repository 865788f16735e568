/*
 * t_qmp_fault: the QMP client (qmp.c, qmp_stream.c) when the peer
 * misbehaves. Guards: error replies, wrong or missing ids, malformed JSON,
 * EOF mid-message, timeouts, EINTR, and connecting to a socket that appears
 * late or refuses.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "qmpfake.h"
#include "tap.h"

/* ---- tests -------------------------------------------------------------- */

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
	struct qfake f;
	int r;

	qfake_open(&f);
	qfake_script(&f, s);
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
	tap_ok(qfake_close(&f), "malformed: peer script ok");

	qfake_open(&f);
	qfake_put(f.pfd, "{\"timestamp\": {\"seconds\": 1764748800}, "
		   "\"event\": \"STOP\"}\r\n");
	r = qmp_wait_event(f.q, "STOP", LONG_MS, NULL);
	tap_ok(r == QMP_ERR_PROTO && !qmp_stashed(f.q),
	       "malformed: event without microseconds -> PROTO (%s)",
	       qmp_last_error(f.q));
	qfake_close(&f);
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
	struct qfake f;
	json_t *ret = NULL;
	int r;

	qfake_open(&f);
	qfake_script(&f, s);
	r = qmp_command(f.q, "system_wakeup", NULL, &ret, LONG_MS);
	tap_ok(r == QMP_ERR_REPLY && !ret &&
	       !strcmp(qmp_last_error(f.q), "GenericError: Unable to wake up: "
		       "guest is not in suspended state"),
	       "error reply: QMP_ERR_REPLY + \"%s\"", qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, &ret, LONG_MS);
	tap_ok(r == QMP_OK && ret, "error reply: next command still works");
	json_decref(ret);
	tap_ok(qfake_close(&f), "error reply: peer saw distinct ids");
}

static void t_eof(void)
{
	static const struct step s[] = {
		S_READ("query-status"),
		S_WRITE("{\"return\": {\"status\": \"runn"),
		S_END
	};
	struct qfake f;
	int r;

	qfake_open(&f);
	qfake_script(&f, s);
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_EOF && err_has(f.q, "middle"),
	       "eof: mid-message -> EOF (%s)", qmp_last_error(f.q));
	tap_ok(qfake_close(&f), "eof: peer script ok");

	qfake_open(&f);
	close(f.pfd);
	f.pfd = -1;
	r = qmp_wait_event(f.q, NULL, LONG_MS, NULL);
	tap_ok(r == QMP_ERR_EOF, "eof: clean close -> EOF (%s)",
	       qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_EOF, "eof: command to closed peer -> EOF (%s)",
	       qmp_last_error(f.q));
	qfake_close(&f);
}

static void t_timeout(void)
{
	struct qfake f;
	char id[64];
	int r;

	qfake_open(&f);
	r = qmp_command(f.q, "query-status", NULL, NULL, SHORT_MS);
	tap_ok(r == QMP_ERR_TIMEOUT, "timeout: silent peer -> TIMEOUT (%d)", r);
	tap_ok(!qfake_read_cmd(f.pfd, "query-status", id, sizeof(id)) &&
	       !strcmp(id, "slab-1"), "timeout: command was sent as %s", id);
	qfake_put(f.pfd, "{\"timestamp\": {\"seconds\": 17647");
	r = qmp_wait_event(f.q, NULL, SHORT_MS, NULL);
	tap_ok(r == QMP_ERR_TIMEOUT, "timeout: half a message -> TIMEOUT (%d)",
	       r);
	r = qmp_poll_events(f.q, SHORT_MS);
	tap_ok(r == 0, "timeout: poll_events -> 0 (%d)", r);
	qfake_put(f.pfd, "48800, \"microseconds\": 123456}, \"event\": \"SUSPEND\"}");
	r = qmp_poll_events(f.q, SHORT_MS);
	tap_ok(r == 1 && qmp_take_event(f.q, "SUSPEND", NULL),
	       "timeout: rest of it arrives later -> 1 event (%d)", r);
	qfake_close(&f);
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
	struct qfake f;
	int r;

	qfake_open(&f);
	qfake_script(&f, s);
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_PROTO && err_has(f.q, "slab-999"),
	       "wrong id: -> PROTO (%s)", qmp_last_error(f.q));
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	tap_ok(r == QMP_ERR_PROTO, "wrong id: missing id -> PROTO (%s)",
	       qmp_last_error(f.q));
	tap_ok(qfake_close(&f), "wrong id: peer script ok");
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
	struct qfake f;
	int r;

	qfake_open(&f);
	qfake_script(&f, s);
	/* No SA_RESTART, so poll() and friends really see EINTR. */
	sigaction(SIGALRM, &sa, &old);
	alarms = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	r = qmp_command(f.q, "query-status", NULL, NULL, LONG_MS);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	tap_ok(r == QMP_OK, "eintr: reply after %d signals (%d %s)",
	       (int)alarms, r, qmp_last_error(f.q));
	tap_ok(qfake_close(&f), "eintr: peer script ok");
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
		_exit(fd < 0 ? 5 : qfake_run(fd, s));
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
	tap_ok(qfake_child_ok(pid), "connect: listener script ok");

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
	t_malformed();
	t_error_reply();
	t_eof();
	t_timeout();
	t_wrong_id();
	t_eintr();
	t_connect();
	return tap_done();
}

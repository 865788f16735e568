/*
 * t_qmp_stream: the QMP client (qmp.c, qmp_stream.c) against a fake QEMU
 * (qmpfake.c). Guards: the handshake, messages split at any byte or packed
 * into one read, events before a reply stashed in order with exact
 * timestamps, and the log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qmpfake.h"
#include "tap.h"

/* 2-, 3- and 4-byte UTF-8 sequences: "café € " U+1F600. */
#define UTF8_NOTE	"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"

/* ---- tests -------------------------------------------------------------- */

static void t_handshake(void)
{
	static const struct step s[] = {
		S_WRITE(GREETING),
		S_READ("qmp_capabilities"),
		S_WRITE(R_EMPTY),
		S_END
	};
	struct qfake f;
	const char *v;
	int r;

	qfake_open(&f);
	tap_ok(!qmp_qemu_version(f.q), "handshake: no version before");
	qfake_script(&f, s);
	r = qmp_handshake(f.q, LONG_MS);
	tap_ok(r == QMP_OK, "handshake: greeting + qmp_capabilities (%d %s)",
	       r, qmp_last_error(f.q));
	v = qmp_qemu_version(f.q);
	tap_ok(v && !strcmp(v, "7.2.19"), "handshake: version %s",
	       v ? v : "(null)");
	tap_ok(qfake_close(&f), "handshake: peer saw qmp_capabilities");
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
	struct qfake f;
	json_t *ret = NULL;
	int r;

	qfake_open(&f);
	qfake_script(&f, s);
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
	tap_ok(qfake_close(&f), "interleaved: peer script ok");
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
	struct qfake f;
	json_t *ret = NULL, *args;
	int r;

	qfake_open(&f);
	qfake_script(&f, s);
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
	tap_ok(qfake_close(&f), "bytewise: peer script ok");
}

static void t_one_read(void)
{
	static const struct step s[] = {
		S_READ("stop"),
		S_WRITE(EV_STOP R_EMPTY EV_SUSPEND),
		S_END
	};
	struct qmp_event ev;
	struct qfake f;
	int r;

	qfake_open(&f);
	qfake_put(f.pfd, EV_STOP EV_RESUME EV_SUSPEND);
	r = qmp_poll_events(f.q, 0);
	tap_ok(r == 3, "one read: three events polled (%d)", r);
	tap_ok(qmp_take_event(f.q, NULL, &ev) && !strcmp(ev.name, "STOP"),
	       "one read: first is STOP");
	qmp_event_clear(&ev);
	qmp_take_event(f.q, NULL, NULL);
	qmp_take_event(f.q, NULL, NULL);

	qfake_script(&f, s);
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
	tap_ok(qfake_close(&f), "one read: peer script ok");
}

static void t_wait_stash(void)
{
	struct qmp_event ev;
	struct qfake f;
	int r;

	qfake_open(&f);
	qfake_put(f.pfd, EV_STOP EV_RESUME EV_SHUTDOWN);
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
	qfake_close(&f);
}

static void t_log(void)
{
	static const struct step s[] = {
		S_READ("stop"),
		S_WRITE(EV_STOP R_EMPTY),
		S_END
	};
	struct qfake f;
	char *buf = NULL, *line[4] = { 0 }, *p;
	size_t len = 0;
	FILE *log = open_memstream(&buf, &len);
	int r, n = 0;

	qfake_open(&f);
	qmp_set_log(f.q, log);
	qfake_script(&f, s);
	r = qmp_command(f.q, "stop", NULL, NULL, LONG_MS);
	tap_ok(qfake_close(&f) && r == QMP_OK, "log: command ok");
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

int main(void)
{
	t_handshake();
	t_events_before_reply();
	t_split_bytewise();
	t_one_read();
	t_wait_stash();
	t_log();
	return tap_done();
}

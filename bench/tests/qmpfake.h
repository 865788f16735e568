/*
 * A fake QEMU for the QMP tests: the other end of a socketpair, replaying
 * a script of transcripts shaped like real QEMU 7.2 output and answering
 * with the id the client actually sent.
 */
#ifndef QMPFAKE_H
#define QMPFAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

#include "qmp.h"

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

struct qfake {
	struct qmp *q;
	int cfd, pfd;	/* client end (owned by q), peer end */
	pid_t pid;
};

/* A socketpair with a QMP client on one end; no peer process yet. */
void qfake_open(struct qfake *f);
/* Hands the peer end to a child running the script. */
void qfake_script(struct qfake *f, const struct step *s);
/* Frees everything; true if the scripted peer (if any) was happy. */
bool qfake_close(struct qfake *f);
/* Writes s on the peer end, all at once; exits on failure. */
void qfake_put(int fd, const char *s);
/* One command line from the client; checks it and copies out its id. */
int qfake_read_cmd(int fd, const char *expect, char *id, size_t idlen);
/* Runs a script on fd; 0 if every step went as scripted. */
int qfake_run(int fd, const struct step *s);
/* Reaps pid; true if it exited 0. */
bool qfake_child_ok(pid_t pid);

static inline bool ts_is(double ts, long long sec, long usec)
{
	return (long long)ts == sec &&
	       (long)((ts - sec) * 1e6 + 0.5) == usec;
}

static inline bool ev_is(const struct qmp_event *ev, const char *name,
			 long long sec, long usec)
{
	return ev->name && !strcmp(ev->name, name) &&
	       ts_is(ev->timestamp, sec, usec);
}

static inline bool err_has(struct qmp *q, const char *s)
{
	return strstr(qmp_last_error(q), s) != NULL;
}

#endif

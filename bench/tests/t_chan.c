/*
 * t_chan: the host's end of the agent channel, on a socketpair, the way
 * t_qmp_stream and t_qmp_fault test QMP.
 *
 * Guards: a request goes out numbered and its reply comes back; READY of
 * another protocol version is refused with a message that says to rebuild;
 * a reply numbered for another request, a DONE without its status and an
 * unknown tag are protocol errors; an overlong line with a forged DONE
 * inside is a protocol error, never a DONE; a silent peer times out on the
 * monotonic deadline; a peer that closed is CLOSED, and writing to it is
 * an error, not a SIGPIPE that kills the lab; a process that exits is seen
 * through its pidfd at once; a watched fd that turns readable ends the
 * wait at once when the watch says halted (QEMU stopped on an I/O error),
 * and is waited past when it does not.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chan.h"
#include "clock.h"
#include "tap.h"

static int peer;

static struct chan open_chan(int pidfd)
{
	struct chan ch;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("socketpair");
		exit(1);
	}
	chan_init(&ch, sv[0], pidfd);
	peer = sv[1];
	return ch;
}

static void put(const char *s)
{
	agent_write_all(peer, s, strlen(s));
}

static void done(struct chan *ch)
{
	chan_close(ch);
	close(peer);
}

static double soon(void)
{
	return mono_now() + 2;
}

static void test_request(void)
{
	struct chan ch = open_chan(-1);
	char got[64] = "";
	int status = -1;
	enum chan_status s;
	ssize_t n;

	put("1 OUT hello\n1 DONE status=3\n");
	s = chan_request(&ch, "RUN true", soon(), NULL, NULL, &status);
	n = read(peer, got, sizeof(got) - 1);
	got[n > 0 ? n : 0] = '\0';
	tap_ok(s == CHAN_OK && status == 3 && !strcmp(got, "1 RUN true\n"),
	       "request: sent as '1 RUN true', DONE's status comes back (%d)", status);
	put("1 DONE status=0\n");
	s = chan_request(&ch, "RUN true", soon(), NULL, NULL, &status);
	tap_ok(s == CHAN_PROTO && strstr(ch.why, "request 1 while waiting for 2"),
	       "a reply to an earlier request is a protocol error (%s)", ch.why);
	done(&ch);

	ch = open_chan(-1);
	put("1 DONE\n");
	tap_ok(chan_request(&ch, "RUN x", soon(), NULL, NULL, &status) == CHAN_PROTO,
	       "DONE without a status is a protocol error");
	done(&ch);

	ch = open_chan(-1);
	put("1 BOGUS a=1\n");
	tap_ok(chan_request(&ch, "RUN x", soon(), NULL, NULL, &status) == CHAN_PROTO,
	       "an unknown tag is a protocol error");
	done(&ch);
}

static void test_ready(void)
{
	struct chan ch = open_chan(-1);
	char *rest;

	put("0 READY version=1 release=x knob=y\n");
	tap_ok(chan_ready(&ch, soon(), &rest) == CHAN_PROTO && strstr(ch.why, "rebuild"),
	       "READY of protocol 1 is refused: %s", ch.why);
	done(&ch);
	ch = open_chan(-1);
	put("0 READY release=x\n");
	tap_ok(chan_ready(&ch, soon(), &rest) == CHAN_PROTO, "READY without a version is refused");
	done(&ch);
	ch = open_chan(-1);
	put("0 READY version=2 release=x knob=y\n");
	tap_ok(chan_ready(&ch, soon(), &rest) == CHAN_OK, "READY of our version is taken");
	done(&ch);
}

static void test_forged(void)
{
	static char line[9100];
	struct chan ch = open_chan(-1);
	int status = -1;
	enum chan_status s;
	int h = snprintf(line, sizeof(line), "1 OUT ");

	memset(line + h, 'x', 8192 - h);
	snprintf(line + 8192, sizeof(line) - 8192, "1 DONE status=7\n");
	put(line);
	put("1 DONE status=0\n");
	s = chan_request(&ch, "RUN x", soon(), NULL, NULL, &status);
	tap_ok(s == CHAN_PROTO && status == -1,
	       "a DONE at byte 8192 of an overlong line is a protocol error, not status 7 (%s)",
	       ch.why);
	done(&ch);
}

static void test_peer_gone(void)
{
	struct chan ch = open_chan(-1);
	enum chan_status s;
	double t0;
	int status;
	pid_t pid;
	int pidfd;

	t0 = mono_now();
	s = chan_request(&ch, "RUN x", mono_now() + 0.2, NULL, NULL, &status);
	t0 = mono_now() - t0;
	tap_ok(s == CHAN_TIMEOUT && t0 >= 0.2 && t0 < 1.5,
	       "a silent peer times out at the deadline (%.2f s)", t0);
	close(peer);
	tap_ok(chan_request(&ch, "RUN x", soon(), NULL, NULL, &status) == CHAN_CLOSED,
	       "a closed peer: CLOSED, and no SIGPIPE killed us (%s)", ch.why);
	chan_close(&ch);

	pid = fork();
	if (!pid) {
		usleep(100000);
		_exit(0);
	}
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	ch = open_chan(pidfd);	/* the peer end stays open: only the pidfd tells */
	t0 = mono_now();
	s = chan_request(&ch, "RUN x", mono_now() + 5, NULL, NULL, &status);
	t0 = mono_now() - t0;
	tap_ok(s == CHAN_DEAD && t0 < 2, "a process that exits is seen through its pidfd (%.2f s)",
	       t0);
	waitpid(pid, NULL, 0);
	close(pidfd);
	done(&ch);
}

struct watch_ctx {
	bool halted;
	int fd;
	int calls;
};

/* drains its fd, as the QMP client reads every event there is */
static bool watch_says(void *ctx, char *why, size_t n)
{
	struct watch_ctx *w = ctx;
	char b;

	w->calls++;
	if (read(w->fd, &b, 1) != 1)
		return false;
	snprintf(why, n, "halted as told");
	return w->halted;
}

static void test_watch(void)
{
	struct chan ch = open_chan(-1);
	struct watch_ctx w = { 0 };
	enum chan_status s;
	int p[2], status = -1;
	pid_t pid;

	if (pipe(p)) {
		tap_ok(false, "pipe");
		return;
	}
	w.fd = p[0];
	chan_set_watch(&ch, p[0], watch_says, &w);
	if (write(p[1], "e", 1) != 1)	/* an event the watch calls harmless */
		tap_ok(false, "write");
	pid = fork();
	if (!pid) {
		usleep(200000);
		put("1 DONE status=0\n");
		_exit(0);
	}
	s = chan_request(&ch, "RUN x", soon(), NULL, NULL, &status);
	waitpid(pid, NULL, 0);
	tap_ok(s == CHAN_OK && status == 0 && w.calls == 1,
	       "a harmless event is waited past: %s, status %d, %d call(s)",
	       chan_status_name(s), status, w.calls);
	w.halted = true;
	w.calls = 0;
	if (write(p[1], "e", 1) != 1)
		tap_ok(false, "write");
	s = chan_request(&ch, "RUN y", mono_now() + 30, NULL, NULL, &status);
	tap_ok(s == CHAN_HALTED && w.calls == 1 && !strcmp(ch.why, "halted as told"),
	       "a halting event ends the wait at once: %s, %d call(s), '%s'",
	       chan_status_name(s), w.calls, ch.why);
	close(p[0]);
	close(p[1]);
	done(&ch);
}

int main(void)
{
	signal(SIGPIPE, SIG_DFL);	/* a SIGPIPE would end this test */
	test_request();
	test_ready();
	test_forged();
	test_peer_gone();
	test_watch();
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * suspend-sync guest agent: answers the host lab over the virtio-serial
 * port AGENT_PORT_NAME (protocol in proto/agent_proto.h).  It writes the
 * suspend state itself and reports afterwards, because input sent to the
 * guest while it suspends can be lost.  Every line it sends carries the
 * sequence number of the request it answers.
 */
#include "agent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "agent_proto.h"

static void dispatch(char *line)
{
	char *end, *verb, *arg;

	seq = strtoul(line, &end, 10);
	if (end == line || *end != ' ') {
		seq = 0;
		klog("request without a sequence number dropped\n");
		return;
	}
	verb = end + 1;
	arg = verb + strcspn(verb, " ");
	if (*arg)
		*arg++ = '\0';
	if (!strcmp(verb, "RUN")) {
		cmd_run(arg);
	} else if (!strcmp(verb, "SET")) {
		char *val = arg + strcspn(arg, " ");

		if (*val)
			*val++ = '\0';
		sendf("DONE status=%d", write_file(arg, val));
	} else if (!strcmp(verb, "GET")) {
		int err = send_file("OUT", arg, NULL);

		sendf("DONE status=%d", err);
	} else if (!strcmp(verb, "WRITE")) {
		cmd_write(arg);
	} else if (!strcmp(verb, "VERIFY")) {
		cmd_verify(arg);
	} else if (!strcmp(verb, "LIST")) {
		sendf("DONE status=%d", list_dir(arg, "", 0));
	} else if (!strcmp(verb, "CLOCK")) {
		cmd_clock();
	} else if (!strcmp(verb, "SUSPEND")) {
		cmd_suspend(arg);
	} else {
		klog("unknown request '%s'\n", verb);
		sendf("DONE status=%d", EINVAL);
	}
}

int main(void)
{
	static struct agent_lines in;
	char line[AGENT_LINE_MAX];
	struct utsname u;

	for (int i = 0; i < 200 && port < 0; i++) {
		port = open_port();
		if (port < 0)
			usleep(50000);
	}
	if (port < 0) {
		klog("no virtio port named %s\n", AGENT_PORT_NAME);
		return 1;
	}
	uname(&u);
	sendf("READY version=%d release=%s knob=%s", AGENT_PROTO_VERSION,
	      u.release, access("/proc/sys/kernel/suspend_sync", F_OK) ?
	      "sync_on_suspend" : "suspend_sync");
	for (;;) {
		size_t room;
		char *tail = agent_lines_tail(&in, &room);
		ssize_t n = read(port, tail, room);
		enum agent_frame f;

		if (n < 0 && errno == EINTR)
			continue;
		if ((n < 0 && errno == EAGAIN) || n == 0) {
			/* host not connected yet, or reconnecting */
			usleep(20000);
			continue;
		}
		if (n < 0) {
			klog("read from port failed: %s\n", strerror(errno));
			return 1;
		}
		agent_lines_add(&in, n);
		while ((f = agent_lines_take(&in, line, sizeof(line))) != AGENT_FRAME_NEED) {
			if (f == AGENT_FRAME_TOOLONG)
				klog("request line too long, dropped\n");
			else
				dispatch(line);
		}
	}
}

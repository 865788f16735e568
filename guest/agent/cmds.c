// SPDX-License-Identifier: GPL-2.0
/* RUN, SUSPEND and CLOCK: a shell command, a suspend with its evidence, the clocks. */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_proto.h"

void cmd_run(const char *cmd)
{
	char line[AGENT_LINE_MAX - 32];
	int pfd[2], status;
	FILE *out;
	pid_t pid;

	if (pipe(pfd)) {
		sendf("DONE status=%d", 127);
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	out = fdopen(pfd[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		sendf("OUT %s", line);
	}
	if (out)
		fclose(out);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = 127 << 8;
	sendf("DONE status=%d", WIFEXITED(status) ? WEXITSTATUS(status) :
	      128 + WTERMSIG(status));
}

void cmd_suspend(const char *arg)
{
	long long dirty, wb, ret;
	char state[16], rec[2048], t0[128], t1[128];
	int kfd, rc, delay_ms = 0;
	ssize_t n;

	if (sscanf(arg, "%15s %d", state, &delay_ms) < 1 || delay_ms < 0) {
		sendf("DONE status=%d", EINVAL);
		return;
	}
	/* a fresh trace buffer and the kernel log from here on */
	write_file(TRACE_DIR "/trace", "");
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);

	meminfo(&dirty, &wb);
	clocks(t0, sizeof(t0));
	sendf("REQUEST %s dirty_kb=%lld writeback_kb=%lld state=%s", t0, dirty,
	      wb, state);
	rc = write_file("/sys/power/state", state);
	ret = clock_ns(CLOCK_MONOTONIC);
	if (delay_ms)
		usleep(delay_ms * 1000);
	/* the clocks as RESUMED leaves, and when the state write returned */
	clocks(t1, sizeof(t1));
	sendf("RESUMED %s ret_mono_ns=%lld rc=%d", t1, ret, rc);

	send_file("TRACE", TRACE_DIR "/trace",
		  "suspend_resume:|suspend_page_cache:|device_pm_callback_");
	while (kfd >= 0) {
		n = read(kfd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: skip on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		sendf("KMSG %s", rec);
	}
	if (kfd >= 0)
		close(kfd);
	sendf("DONE status=%d", rc);
}

void cmd_clock(void)
{
	char t[128];

	clocks(t, sizeof(t));
	sendf("OUT %s", t);
	sendf("DONE status=0");
}

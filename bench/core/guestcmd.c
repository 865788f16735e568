#include "guestcmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct out_buf {
	char *s;
	size_t len, cap;
};

static void collect(void *ctx, enum agent_msg m, char *rest)
{
	struct out_buf *b = ctx;
	size_t l = strlen(rest);

	if (m != AGENT_MSG_OUT)
		return;
	if (b->len + l + 2 > b->cap) {
		size_t cap = (b->cap + l + 2) * 2;
		char *s = realloc(b->s, cap);

		if (!s)
			return;
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, rest, l);
	b->len += l;
	b->s[b->len++] = '\n';
	b->s[b->len] = '\0';
}

int guest_cmd(struct vm *vm, int timeout_ms, char **out, const char *fmt, ...)
{
	struct out_buf b = { 0 };
	char cmd[2048];
	va_list ap;
	int status = -1;
	enum verdict v;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	v = vm_agent_request(vm, cmd, collect, &b, timeout_ms, &status);
	if (v != VERDICT_OK || status) {
		fprintf(stderr, "suspend-lab: guest request failed (%s, status %d): %s\n",
			verdict_name(v), status, cmd);
		if (b.s)
			fprintf(stderr, "%s", b.s);
		free(b.s);
		return v != VERDICT_OK ? -(int)v : status;
	}
	if (b.s && b.len)
		b.s[b.len - 1] = '\0';	/* no trailing newline */
	if (out)
		*out = b.s ? b.s : strdup("");
	else
		free(b.s);
	return 0;
}

int host_run(char *const argv[], bool quiet)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
		}
		execvp(argv[0], argv);
		fprintf(stderr, "suspend-lab: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define _GNU_SOURCE
#include "hostrun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog.h"

static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* In the child: out_fd (if >= 0) as stdout, stderr to /dev/null if quiet. */
static pid_t start(char *const argv[], int out_fd, bool quiet)
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1;

		if (out_fd >= 0)
			dup2(out_fd, 1);
		else if (fd >= 0)
			dup2(fd, 1);
		if (fd >= 0)
			dup2(fd, 2);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: exec %s: %s\n", cli_prog, argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int host_run(char *const argv[], bool quiet)
{
	pid_t pid = start(argv, -1, quiet);

	return pid < 0 ? -1 : reap(pid);
}

int host_run_out(char *const argv[], char **out, size_t cap)
{
	char *buf = malloc(cap + 1), junk[4096];
	size_t len = 0;
	int p[2];
	pid_t pid;

	*out = NULL;
	if (!buf || pipe2(p, O_CLOEXEC)) {
		free(buf);
		return -1;
	}
	pid = start(argv, p[1], true);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		free(buf);
		return -1;
	}
	/* read to the end: a child blocked on a full pipe would never exit */
	for (;;) {
		bool room = len < cap;
		ssize_t n = read(p[0], room ? buf + len : junk, room ? cap - len : sizeof(junk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (room)
			len += n;
	}
	close(p[0]);
	buf[len] = '\0';
	*out = buf;
	return reap(pid);
}

char *host_path_arg(const char *path)
{
	char *s;

	if (asprintf(&s, "%s%s", path[0] == '-' ? "./" : "", path) < 0)
		return NULL;
	return s;
}

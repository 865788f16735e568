#define _GNU_SOURCE
#include "progrun.h"

#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakerun.h"

char progrun_err[8192], progrun_out[8192];
static char bindir[512];

void progrun_init(const char *argv0)
{
	char self[512];

	snprintf(self, sizeof(self), "%s", argv0);
	snprintf(bindir, sizeof(bindir), "%s", dirname(self));
}

int progrun(const char *name, char *const args[], int sig_after_ms, int sig)
{
	char path[600], errfile[600], outfile[600];
	char *argv[32];
	int n = 0, status, fd;
	pid_t pid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", bindir, name);
	snprintf(errfile, sizeof(errfile), "%s/cli.err", fakerun_dir());
	snprintf(outfile, sizeof(outfile), "%s/cli.out", fakerun_dir());
	argv[n++] = path;
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid = fork();
	if (!pid) {
		fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		execv(path, argv);
		_exit(127);
	}
	if (sig_after_ms) {
		usleep(sig_after_ms * 1000);
		kill(pid, sig);
	}
	waitpid(pid, &status, 0);
	progrun_err[0] = '\0';
	f = fopen(errfile, "r");
	if (f) {
		progrun_err[fread(progrun_err, 1, sizeof(progrun_err) - 1, f)] = '\0';
		fclose(f);
	}
	unlink(errfile);
	progrun_out[0] = '\0';
	f = fopen(outfile, "r");
	if (f) {
		progrun_out[fread(progrun_out, 1, sizeof(progrun_out) - 1, f)] = '\0';
		fclose(f);
	}
	unlink(outfile);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int progrun_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

pid_t progrun_spawn(const char *name, char *const args[])
{
	char path[600];
	char *argv[32];
	int n = 0, fd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", bindir, name);
	argv[n++] = path;
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	pid = fork();
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(path, argv);
		_exit(127);
	}
	return pid;
}

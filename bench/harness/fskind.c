#define _GNU_SOURCE
#include "fskind.h"
#include "hostrun.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cliopt.h"

#define MIB (1ULL << 20)

/*
 * Minimum sizes are what Debian 12's tools accept: xfsprogs 6.1 refuses
 * below 300 MB, btrfs-progs 6.2 below 109 MiB, f2fs-tools 1.15 below
 * about 64 MiB.  ext4 keeps i_version only with the i_version option on
 * 6.1 (6.12 always does and ignores the option); IMA and nfsd read it.
 */
const struct fs_kind fs_kinds[] = {
	/* e2fsck: 4 errors left, 8 operational error; xfs_repair: 1 corrupt,
	 * 2 a dirty log it will not read */
	{ "ext4", 16 * MIB, "", ",i_version", true, "e2fsck -fn", 8, true },
	{ "xfs", 320 * MIB, "", "", true, "xfs_repair -n", 2, false },
	{ "btrfs", 128 * MIB, "", "", false, "btrfs check --readonly", 0, false },
	{ "f2fs", 64 * MIB, "", "", true, "fsck.f2fs --dry-run", 0, false },
};
const size_t fs_n_kinds = sizeof(fs_kinds) / sizeof(fs_kinds[0]);

const struct fs_kind *fs_kind_find(const char *name)
{
	for (size_t i = 0; name && i < fs_n_kinds; i++)
		if (!strcmp(fs_kinds[i].name, name))
			return &fs_kinds[i];
	return NULL;
}

const char *fs_kind_names(const char *sep)
{
	static char buf[128];
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < fs_n_kinds; i++)
		o += snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? sep : "", fs_kinds[i].name);
	return buf;
}

/*
 * Runs argv with stdout and stderr into a pipe; line gets the last
 * non-blank line it printed (what mkfs and the checkers say last is why).
 * The wait status, or -1 if it could not run.
 */
static int run_last_line(char *const *argv, char *line, size_t len)
{
	char buf[512];
	int pipefd[2], status;
	FILE *out;
	pid_t pid;

	line[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execvp(argv[0], argv);
		printf("exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	while (out && fgets(buf, sizeof(buf), out))
		if (buf[strspn(buf, " \t\r\n")])
			snprintf(line, len, "%.*s", (int)strcspn(buf, "\r\n"), buf);
	if (out)
		fclose(out);
	else
		close(pipefd[0]);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

int fs_mkfs(const struct fs_kind *k, const char *label, const char *file,
	    uint64_t bytes)
{
	char why[400];

	return fs_mkfs_why(k, label, file, bytes, why, sizeof(why));
}

static int mkfs_arg(const struct fs_kind *k, const char *label, const char *file,
		    const char *arg, uint64_t bytes, char *why, size_t len);

/* The image as mkfs's argument: a name starting with '-' is no option. */
int fs_mkfs_why(const struct fs_kind *k, const char *label, const char *file,
		uint64_t bytes, char *why, size_t len)
{
	char *arg = host_path_arg(file);
	int rc;

	if (!arg) {
		snprintf(why, len, "out of memory");
		return -1;
	}
	rc = mkfs_arg(k, label, file, arg, bytes, why, len);
	free(arg);
	return rc;
}

static int mkfs_arg(const struct fs_kind *k, const char *label, const char *file,
		    const char *arg, uint64_t bytes, char *why, size_t len)
{
	char *ext4[] = { "mkfs.ext4", "-q", "-F", "-L", (char *)label, "-E",
			 "lazy_itable_init=0,lazy_journal_init=0", (char *)arg, NULL };
	char *xfs[] = { "mkfs.xfs", "-q", "-f", "-L", (char *)label, (char *)arg, NULL };
	char *btrfs[] = { "mkfs.btrfs", "-q", "-f", "-L", (char *)label, (char *)arg, NULL };
	char *f2fs[] = { "mkfs.f2fs", "-q", "-f", "-l", (char *)label, (char *)arg, NULL };
	char *const *argv[] = { ext4, xfs, btrfs, f2fs };
	char *const *av = argv[k - fs_kinds];
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), st;
	char last[300];

	if (bytes < k->min_bytes)
		bytes = k->min_bytes;
	if (fd < 0 || ftruncate(fd, (off_t)bytes)) {
		snprintf(why, len, "%s: %s", file, strerror(errno));
		fprintf(stderr, "%s: %s\n", cli_prog, why);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	/* mkfs talks even with -q: its output is kept for the failure only,
	 * whose last line is the cause ("No space left on device") */
	st = run_last_line(av, last, sizeof(last));
	if (st == 0)
		return 0;
	if (st < 0)
		snprintf(why, len, "%s could not run", av[0]);
	else if (WIFEXITED(st))
		snprintf(why, len, "%s failed (status %d): %s", av[0], WEXITSTATUS(st),
			 last[0] ? last : "no message");
	else
		snprintf(why, len, "%s killed by signal %d", av[0],
			 WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	fprintf(stderr, "%s: %s: %s\n", cli_prog, file, why);
	return -1;
}

/* The checker's command line, the image last. */
static void checker_argv(const struct fs_kind *k, const char *image, char **argv,
			 char *buf, size_t len)
{
	const char *fake = getenv("SLAB_FSCK");
	int n = 0;

	if (fake && *fake) {
		argv[n++] = (char *)fake;
		argv[n++] = (char *)k->name;
	} else {
		snprintf(buf, len, "%s", k->checker);
		for (char *t = strtok(buf, " "); t && n < 6; t = strtok(NULL, " "))
			argv[n++] = t;
	}
	argv[n++] = (char *)image;
	argv[n] = NULL;
}

int fs_check(const struct fs_kind *k, const char *image, char *why, size_t len)
{
	char cmd[128], line[512], *argv[10];
	int status;

	char *arg = host_path_arg(image);

	if (!arg)
		return -1;
	checker_argv(k, arg, argv, cmd, sizeof(cmd));
	status = run_last_line(argv, line, sizeof(line));
	free(arg);
	if (why)
		snprintf(why, len, "%s: %s", argv[0], line);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 127)
		return -1;
	if (k->fail_from && WEXITSTATUS(status) >= k->fail_from)
		return -1;
	return WEXITSTATUS(status) ? 1 : 0;
}

#define _GNU_SOURCE
#include "fskind.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cliopt.h"
#include "hostrun.h"

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

int fs_mkfs(const struct fs_kind *k, const char *label, const char *file,
	    uint64_t bytes)
{
	char *ext4[] = { "mkfs.ext4", "-q", "-F", "-L", (char *)label, "-E",
			 "lazy_itable_init=0,lazy_journal_init=0", (char *)file, NULL };
	char *xfs[] = { "mkfs.xfs", "-q", "-f", "-L", (char *)label, (char *)file, NULL };
	char *btrfs[] = { "mkfs.btrfs", "-q", "-f", "-L", (char *)label, (char *)file, NULL };
	char *f2fs[] = { "mkfs.f2fs", "-q", "-f", "-l", (char *)label, (char *)file, NULL };
	char *const *argv[] = { ext4, xfs, btrfs, f2fs };
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r;

	if (bytes < k->min_bytes)
		bytes = k->min_bytes;
	if (fd < 0 || ftruncate(fd, (off_t)bytes)) {
		fprintf(stderr, "%s: %s: %s\n", cli_prog, file, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	r = host_run(argv[k - fs_kinds], true);	/* mkfs.btrfs talks even with -q */
	if (r) {
		fprintf(stderr, "%s: %s of %s failed (status %d)\n", cli_prog,
			argv[k - fs_kinds][0], file, r);
		return -1;
	}
	return 0;
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
	char cmd[128], buf[512], line[512] = "", *argv[10];
	int pipefd[2], status;
	FILE *out;
	pid_t pid;

	checker_argv(k, image, argv, cmd, sizeof(cmd));
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
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(buf, "\r\n"), buf);
	if (out)
		fclose(out);
	else
		close(pipefd[0]);
	if (why)
		snprintf(why, len, "%s: %s", argv[0], line);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
		return -1;
	if (k->fail_from && WEXITSTATUS(status) >= k->fail_from)
		return -1;
	return WEXITSTATUS(status) ? 1 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/* WRITE, VERIFY and LIST: the power-cut dataset, written and judged. */
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pattern.h"

static int fsync_parent(const char *path)
{
	char dir[512], *slash;
	int fd, err = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (fsync(fd))
		err = errno;
	close(fd);
	return err;
}

/* WRITE <path> <seed> <offset> <size> <fsync>: pattern bytes, buffered */
void cmd_write(const char *arg)
{
	static unsigned char buf[1 << 16];
	unsigned long long seed, off, size, done = 0;
	char path[512];
	int sync_it, fd, err = 0;

	if (sscanf(arg, "%511s %llu %llu %llu %d", path, &seed, &off, &size,
		   &sync_it) != 5) {
		sendf("DONE status=%d", EINVAL);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		sendf("DONE status=%d", errno);
		return;
	}
	while (!err && done < size) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);
		ssize_t w;

		pattern_fill(seed, off + done, buf, n);
		w = pwrite(fd, buf, n, off + done);
		if (w < 0)
			err = errno;
		else
			done += w;
	}
	if (!err && sync_it && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (!err && sync_it)
		err = fsync_parent(path);
	sendf("DONE status=%d", err);
}

static const char *type_name(mode_t m)
{
	return S_ISREG(m) ? "reg" : S_ISLNK(m) ? "lnk" : S_ISDIR(m) ? "dir" : "other";
}

/* Fills buf from offset off until full or end of file; bytes read or -1. */
static ssize_t read_full(int fd, unsigned char *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, off + got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (!r)
			break;
		got += r;
	}
	return got;
}

/*
 * VERIFY <path> <seed> <size>: judges the first <size> bytes against the
 * pattern (pattern_judge(): whole words, so zeroed ranges count as lost).
 * Never follows a symlink.
 * OUT type=.. size=<actual> good=<bytes> first_bad=<offset of the first
 * byte not good, or size if none>
 */
void cmd_verify(const char *arg)
{
	static unsigned char buf[1 << 16], want[1 << 16];
	unsigned long long seed, size, off, good = 0, first_bad;
	char path[512];
	struct stat st;
	int fd;

	if (sscanf(arg, "%511s %llu %llu", path, &seed, &size) != 3) {
		sendf("DONE status=%d", EINVAL);
		return;
	}
	first_bad = size;
	if (lstat(path, &st)) {
		int err = errno == ENOENT ? 0 : errno;	/* sendf() may change errno */

		sendf("OUT type=none size=0 good=0 first_bad=0");
		sendf("DONE status=%d", err);
		return;
	}
	fd = S_ISREG(st.st_mode) ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
	if (fd < 0) {
		sendf("OUT type=%s size=%lld good=0 first_bad=0",
		      S_ISREG(st.st_mode) ? "other" : type_name(st.st_mode),
		      (long long)st.st_size);
		sendf("DONE status=0");
		return;
	}
	for (off = 0; off < size; off += sizeof(buf)) {
		size_t n = size - off < sizeof(buf) ? size - off : sizeof(buf);
		ssize_t got = read_full(fd, buf, n, off);
		size_t fb;

		if (got < 0) {
			int err = errno;

			close(fd);
			sendf("DONE status=%d", err);
			return;
		}
		good += pattern_judge(seed, off, buf, got, n, want, &fb);
		if (fb < n && first_bad == size)
			first_bad = off + fb;
	}
	close(fd);
	sendf("OUT type=reg size=%lld good=%llu first_bad=%llu",
	      (long long)st.st_size, good, first_bad);
	sendf("DONE status=0");
}

/* LIST <dir>: every entry below dir, "OUT <type> <path relative to dir>" */
int list_dir(const char *root, const char *rel, int depth)
{
	char path[2048], sub[1024];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	d = opendir(path);
	if (!d)
		return errno;
	while (!err && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", root, sub);
		if (lstat(path, &st)) {
			err = errno;
			break;
		}
		sendf("OUT %s %s", type_name(st.st_mode), sub);
		if (S_ISDIR(st.st_mode) && depth < 16)
			err = list_dir(root, sub, depth + 1);
	}
	closedir(d);
	return err;
}

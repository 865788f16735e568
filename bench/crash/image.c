#define _GNU_SOURCE
#include "image.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *why, size_t n, const char *what, const char *path)
{
	snprintf(why, n, "%s %s: %s", what, path, strerror(errno));
	return -1;
}

/* Copies [off, off + len) with copy_file_range, falling back to read/write. */
static int copy_range(int in, int out, off_t off, off_t len)
{
	static char buf[1 << 20];

	while (len > 0) {
		loff_t a = off, b = off;
		ssize_t r = copy_file_range(in, &a, out, &b, len, 0);

		if (r < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			r = pread(in, buf, len < (off_t)sizeof(buf) ? len : (off_t)sizeof(buf), off);
			if (r > 0 && pwrite(out, buf, r, off) != r)
				return -1;
		}
		if (r <= 0)
			return r < 0 ? -1 : 0;
		off += r;
		len -= r;
	}
	return 0;
}

int cs_copy_sparse(const char *from, const char *to, char *why, size_t n)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	struct stat st;
	off_t data, hole = 0;
	int rc = 0;

	if (in < 0 || fstat(in, &st)) {
		if (in >= 0)
			close(in);
		return fail(why, n, "cannot read", from);
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0 || ftruncate(out, st.st_size)) {
		close(in);
		if (out >= 0)
			close(out);
		return fail(why, n, "cannot write", to);
	}
	while (!rc && (data = lseek(in, hole, SEEK_DATA)) >= 0) {
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			hole = st.st_size;
		rc = copy_range(in, out, data, hole - data);
	}
	if (rc || (data < 0 && errno != ENXIO))
		rc = fail(why, n, "cannot copy to", to);
	close(in);
	if (close(out) && !rc)
		rc = fail(why, n, "cannot write", to);
	return rc;
}

int cs_build_image(const struct lw_log *l, const struct cs_state *s,
		   const char *base, const char *out, char *why, size_t n)
{
	int *idx = NULL, c = cs_entries(l, s, &idx, why, n), fd, rc = 0;

	if (c < 0)
		return -1;
	if (cs_copy_sparse(base, out, why, n)) {
		free(idx);
		return -1;
	}
	fd = open(out, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		free(idx);
		return fail(why, n, "cannot write", out);
	}
	for (int i = 0; !rc && i < c; i++)
		rc = lw_apply(l, idx[i], fd, why, n);
	if (close(fd) && !rc)
		rc = fail(why, n, "cannot write", out);
	free(idx);
	return rc;
}

int cs_same_content(const char *a, const char *b, long long *at)
{
	static char x[1 << 16], y[1 << 16];
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC);
	long long off = 0;
	int rc = -1;

	while (fa >= 0 && fb >= 0) {
		ssize_t ra = read(fa, x, sizeof(x)), rb = read(fb, y, sizeof(y));

		if (ra < 0 || rb < 0 || ra != rb) {
			rc = ra < 0 || rb < 0 ? -1 : 0;
			break;
		}
		if (!ra) {
			rc = 1;
			break;
		}
		if (memcmp(x, y, ra)) {
			for (ssize_t i = 0; i < ra; i++)
				if (x[i] != y[i]) {
					off += i;
					break;
				}
			rc = 0;
			break;
		}
		off += ra;
	}
	if (at)
		*at = off;
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0
/* nomtimetest: the benchmark's guest half (prep, bench). */
#include "nt.h"

int prep(const char *f, long mib)
{
	char *b = malloc(1 << 20);
	char d[512], *slash;
	int fd, dfd;

	if (!b)
		return 1;
	fill(b, 1 << 20, 9);
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (long i = 0; i < mib; i++)
		if (write(fd, b, 1 << 20) != 1 << 20)
			return 1;
	if (fsync(fd))
		return 1;
	close(fd);
	snprintf(d, sizeof(d), "%s", f);
	slash = strrchr(d, '/');
	if (slash)
		*slash = '\0';
	dfd = open(slash ? d : ".", O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || fsync(dfd))
		return 1;
	close(dfd);
	free(b);
	return 0;
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench(const char *f, int count, int nomtime, const char *sync, int gap_ms,
		 int settle_s)
{
	double *w = calloc(count, sizeof(double)), *s = calloc(count, sizeof(double));
	double *t = calloc(count, sizeof(double));
	struct stat a, b;
	void *buf;
	long blocks;
	int fd;

	if (!w || !s || !t || posix_memalign(&buf, BLK, BLK))
		return 1;
	errno = openat2_(f, O_RDWR | O_DIRECT | (nomtime ? O_NOMTIME : 0), &fd);
	if (errno || fstat(fd, &a)) {
		perror(f);
		return 1;
	}
	blocks = a.st_size / BLK;
	for (int i = 0; i < count; i++) {
		double t0, t1, t2;
		int r = 0;

		fill(buf, BLK, i);
		usleep(gap_ms * 1000);
		t0 = now_us();
		if (pwrite(fd, buf, BLK, (off_t)(i % blocks) * BLK) != BLK)
			return 2;
		t1 = now_us();
		if (!strcmp(sync, "fsync"))
			r = fsync(fd);
		else if (!strcmp(sync, "fdatasync"))
			r = fdatasync(fd);
		else if (!strcmp(sync, "syncfs"))
			r = syncfs(fd);
		if (r)
			return 3;
		t2 = now_us();
		w[i] = t1 - t0;
		s[i] = t2 - t1;
		t[i] = t2 - t0;
	}
	fstat(fd, &b);
	close(fd);
	sleep(settle_s);
	printf("result n=%d write_us=%.0f sync_us=%.0f op_us=%.0f mtime_moved=%d\n",
	       count, median(w, count), median(s, count), median(t, count),
	       moved(&a.st_mtim, &b.st_mtim));
	return 0;
}

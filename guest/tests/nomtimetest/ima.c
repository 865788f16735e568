// SPDX-License-Identifier: GPL-2.0
/*
 * nomtimetest: IMA, which reads i_version, still sees a change written
 * through an O_NOMTIME file.  IMA measures a file at open and keeps the
 * measurement until the last writer closes a file whose i_version moved;
 * a write that left i_version alone would leave the old measurement.
 */
#include "nt.h"
#include "gtap.h"

#define SECFS	"/sys/kernel/security"
#define OWNER	4242	/* the policy measures this owner's files only */

/* Measurements of p so far; the last one's file hash in hash. */
static int measurements(const char *p, char *hash, size_t len)
{
	char line[1024], want[512];
	FILE *f = fopen(SECFS "/ima/ascii_runtime_measurements", "r");
	int n = 0;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), " %s\n", p);
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line), w = strlen(want);
		char pcr[8], thash[128], tmpl[32], fhash[160];

		if (l < w || strcmp(line + l - w, want) ||
		    sscanf(line, "%7s %127s %31s %159s", pcr, thash, tmpl, fhash) != 4)
			continue;
		snprintf(hash, len, "%s", fhash);
		n++;
	}
	fclose(f);
	return n;
}

/* Opens p read-only, as IMA's FILE_CHECK hook sees it, and closes it. */
static void read_open(const char *p)
{
	int fd = open(p, O_RDONLY);

	if (fd >= 0)
		close(fd);
}

/* One overwrite of the whole first block through an fd opened by openat2. */
static int overwrite(const char *p, uint64_t flags, int seed)
{
	char b[BLK];
	int fd, e = openat2_(p, O_RDWR | flags, &fd);

	if (e)
		return e;
	fill(b, sizeof(b), seed);
	e = pwrite(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b) ? 0 : errno;
	close(fd);
	return e;
}

static void check(const char *p, uint64_t flags, const char *what)
{
	char h1[160] = "", h2[160] = "";
	int n1, n2, e;
	static int seed = 7;

	make_file(p, OWNER, 0666);
	read_open(p);
	n1 = measurements(p, h1, sizeof(h1));
	e = overwrite(p, flags, seed++);
	read_open(p);
	n2 = measurements(p, h2, sizeof(h2));
	ok(!e && n1 >= 1 && n2 == n1 + 1 && strcmp(h1, h2),
	   "IMA measures the file again after a write %s: %d measurement(s) before, %d after (%s, %s)",
	   what, n1, n2, strcmp(h1, h2) ? "new hash" : "same hash", err(e));
}

void test_ima(void)
{
	const char *pol = "measure func=FILE_CHECK fowner=4242\n";

	if (access(SECFS "/ima", F_OK))
		mount("securityfs", SECFS, "securityfs", 0, NULL);
	if (access(SECFS "/ima", F_OK)) {
		skip("IMA and i_version", "no %s/ima: a kernel without IMA", SECFS);
		return;
	}
	/* the policy can be loaded once per boot; a second run finds it */
	if (!access(SECFS "/ima/policy", F_OK) && write_file(SECFS "/ima/policy", pol)) {
		ok(0, "load the IMA policy \"%.*s\"", (int)strlen(pol) - 1, pol);
		return;
	}
	check(path(allow, "ima-plain"), 0, "without O_NOMTIME");
	check(path(allow, "ima-nomtime"), O_NOMTIME, "through O_NOMTIME");
}

/*
 * t_fskind: the one place that knows each filesystem, without a guest.
 *
 * Guards: every kind of the matrix is found by name and nothing else is;
 * each kind's mkfs makes an image its own checker calls clean, never
 * smaller than the kind's minimum; and a checker's status becomes the
 * right finding: clean, damage (with the checker's last line), or a
 * checker that could not check (not installed, or ext4's operational
 * error), through a fake checker in $SLAB_FSCK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cliopt.h"
#include "fskind.h"
#include "tap.h"


static char dir[] = "/tmp/t_fskind.XXXXXX";

/* A fake checker that prints msg and exits with status. */
static void fake(int status, const char *msg)
{
	char path[64], body[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/fsck", dir);
	f = fopen(path, "w");
	snprintf(body, sizeof(body), "#!/bin/sh\necho \"checking $1 $2\"\necho '%s'\nexit %d\n",
		 msg, status);
	if (f) {
		fputs(body, f);
		fclose(f);
	}
	chmod(path, 0755);
	setenv("SLAB_FSCK", path, 1);
}

int main(void)
{
	const struct fs_kind *ext4;
	char img[64], why[256];
	struct stat st;
	int r;

	cli_prog = "t_fskind";
	if (!mkdtemp(dir)) {
		tap_ok(false, "temporary directory %s", dir);
		return tap_done();
	}
	tap_ok(!strcmp(fs_kind_names("|"), "ext4|xfs|btrfs|f2fs"),
	       "the kinds, in order: %s", fs_kind_names("|"));
	ext4 = fs_kind_find("ext4");
	tap_ok(ext4 && fs_kind_find("xfs") && fs_kind_find("btrfs") && fs_kind_find("f2fs") &&
	       !fs_kind_find("ext3") && !fs_kind_find("") && !fs_kind_find(NULL),
	       "found by name: ext4 xfs btrfs f2fs; not ext3, \"\" or NULL");
	tap_ok(!fs_kind_find("btrfs")->nomtime && ext4->nomtime && fs_kind_find("xfs")->nomtime,
	       "O_NOMTIME opt-in: ext4 and XFS yes, btrfs no");

	snprintf(img, sizeof(img), "%s/img", dir);
	for (size_t i = 0; i < fs_n_kinds; i++) {
		const struct fs_kind *k = &fs_kinds[i];

		unsetenv("SLAB_FSCK");
		r = fs_mkfs(k, "t", img, 1 << 20);
		if (!r && stat(img, &st))
			r = -1;
		tap_ok(!r && (uint64_t)st.st_size >= k->min_bytes,
		       "%s: mkfs of a 1 MiB request makes %lld bytes (minimum %llu)", k->name,
		       r ? -1LL : (long long)st.st_size, (unsigned long long)k->min_bytes);
		r = r ? -2 : fs_check(k, img, why, sizeof(why));
		tap_ok(r == 0, "%s: %s on a fresh image: %d (%s)", k->name, k->checker, r, why);
	}

	fake(0, "all good");
	r = fs_check(ext4, img, why, sizeof(why));
	tap_ok(r == 0, "fake checker exits 0: clean (%d, %s)", r, why);
	fake(4, "Inode 12 has corrupt extent tree");
	r = fs_check(ext4, img, why, sizeof(why));
	tap_ok(r == 1 && strstr(why, "Inode 12 has corrupt extent tree"),
	       "fake checker exits 4: damage, its last line kept (%d, %s)", r, why);
	fake(1, "corruption found");
	r = fs_check(fs_kind_find("btrfs"), img, why, sizeof(why));
	tap_ok(r == 1, "btrfs, fake checker exits 1: damage (%d, %s)", r, why);
	fake(8, "operational error");
	r = fs_check(ext4, img, why, sizeof(why));
	tap_ok(r == -1, "ext4, fake checker exits 8 (operational error): could not check (%d)", r);
	fake(2, "log needs replay");
	r = fs_check(fs_kind_find("xfs"), img, why, sizeof(why));
	tap_ok(r == -1, "xfs, fake checker exits 2 (a dirty log): could not check (%d)", r);
	setenv("SLAB_FSCK", "/nonexistent/fsck", 1);
	r = fs_check(ext4, img, why, sizeof(why));
	tap_ok(r == -1, "a checker that is not there: could not check (%d, %s)", r, why);

	unlink(img);
	snprintf(img, sizeof(img), "%s/fsck", dir);
	unlink(img);
	rmdir(dir);
	return tap_done();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * nomtimetest: runs inside the guest and proves O_NOMTIME and the
 * allow_nomtime mount option (TAP); also the guest half of the benchmark.
 *
 * Guards, in "test" mode: the gate (EPERM without allow_nomtime, for root
 * too; no file left behind by a refused O_CREAT; visible in /proc/mounts;
 * remount sets and withdraws it, also for files already open); the owner
 * rule (a non-owner without CAP_FOWNER, and root in a child user namespace
 * on a file it does not own there, get EPERM; root in the initial one may);
 * the F_SETFL/F_GETFL round trip; openat2 (O_NOMTIME accepted, unknown
 * flags and O_PATH|O_NOMTIME refused with EINVAL); that every other open
 * flag behaves the same with and without O_NOMTIME; and the timestamps:
 * mtime and ctime unchanged through write, pwrite, pwritev, O_DIRECT,
 * extending writes, mmap stores and copy_file_range with the flag and
 * changed without it, while ftruncate and fallocate (hole punching, a
 * keep-size preallocation) still stamp them; a write still clears
 * set-user-ID.
 *
 * Usage:
 *   nomtimetest test ALLOW DENY
 *	ALLOW and DENY are the roots of two ext4 mounts, the first with
 *	allow_nomtime, the second without; /tmp is a tmpfs without it.
 *   nomtimetest prep FILE MIB
 *	writes FILE (MIB MiB of data), fsyncs it and its directory.
 *   nomtimetest bench FILE COUNT NOMTIME SYNC GAP_MS SETTLE_S
 *	COUNT O_DIRECT overwrites of 4 KiB, each followed by SYNC (fsync,
 *	fdatasync, syncfs or none), with or without O_NOMTIME (1 or 0), GAP_MS
 *	between them (not timed) so that each one sees a new timestamp,
 *	then SETTLE_S seconds for deferred journal commits.  Prints one line
 *	"result n=.. write_us=.. sync_us=.. op_us=.. mtime_moved=0|1"
 *	(medians in microseconds).
 */
#include "nt.h"
#include "gtap.h"

const char *allow, *deny;

static int run_tests(void)
{
	printf("TAP version 13\n");
	/* uid 1000 must reach the mounts: the initramfs root may be 0700 */
	if (chmod("/", 0755) || chmod("/mnt", 0755))
		diag("chmod / or /mnt: %s", strerror(errno));
	chmod(allow, 01777);
	chmod(deny, 01777);
	diag("ALLOW %s is %s", allow, fs_type(allow));	/* one static buffer */
	diag("DENY %s is %s", deny, fs_type(deny));
	test_gate();
	test_create();
	test_optin();
	test_flags();
	test_times();
	test_ima();
	test_nocmtime();
	printf("1..%d\n", tests);
	diag("%d of %d failed", failed, tests);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "test")) {
		allow = argv[2];
		deny = argv[3];
		return run_tests();
	}
	if (argc == 4 && !strcmp(argv[1], "prep"))
		return prep(argv[2], atol(argv[3]));
	if (argc == 8 && !strcmp(argv[1], "bench"))
		return bench(argv[2], atoi(argv[3]), atoi(argv[4]), argv[5], atoi(argv[6]),
			     atoi(argv[7]));
	fprintf(stderr, "usage: nomtimetest test ALLOW DENY | prep FILE MIB | "
		"bench FILE COUNT NOMTIME fsync|fdatasync|syncfs|none GAP_MS SETTLE_S\n");
	return 2;
}

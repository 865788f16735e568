// SPDX-License-Identifier: GPL-2.0
/*
 * knobtest: runs inside the guest and proves kernel.suspend_sync (TAP).
 *
 * Guards what the series documents: the default; that the sysctl and
 * /sys/power/sync_on_suspend are one state, both root-owned with mode 0644;
 * that other numbers fail with EINVAL, and that failed writes and writes
 * with no value change nothing; that writes behave exactly like those of
 * the sysctl core's own 0..1 integer sysctl (fs.protected_symlinks, handled
 * by proc_dointvec_minmax()) under every kernel.sysctl_writes_strict mode,
 * for malformed, lenient, empty, PAGE_SIZE-and-longer, offset and partial
 * writes on one fd; that an empty write cannot undo a concurrent sysfs
 * store; and that every writer (non-root, root without CAP_SYS_ADMIN, root
 * without any capability, root in user namespaces) gets the same answer from
 * both views.
 *
 * Usage: knobtest [expected default: 0 or 1]   (default 1)
 */
#include "kt.h"
#include "gtap.h"

int main(int argc, char **argv)
{
	int def = argc > 1 ? atoi(argv[1]) : 1;
	int strict = get_int(STRICT), ref = get(REF);
	struct stat st1, st2;

	printf("TAP version 13\n");
	/* other users must reach /proc and /sys: the initramfs root may be 0700 */
	if (chmod("/", 0755))
		diag("chmod /: %s", strerror(errno));

	ok(!stat(SYSCTL, &st1) && !stat(SYSFS, &st2) &&
	   (st1.st_mode & 07777) == 0644 && (st2.st_mode & 07777) == 0644 &&
	   !st1.st_uid && !st1.st_gid && !st2.st_uid && !st2.st_gid,
	   "both views are root's, mode 0644");
	ok(get(SYSCTL) == def, "sysctl default is %d (read %d)", def, get(SYSCTL));
	ok(get(SYSFS) == def, "sysfs default is %d (read %d)", def, get(SYSFS));

	/* one state, two views */
	ok(!put(SYSCTL, "0") && get(SYSFS) == 0, "sysctl 0 shows in sysfs");
	ok(!put(SYSFS, "1") && get(SYSCTL) == 1, "sysfs 1 shows in sysctl");
	ok(!put(SYSFS, "0") && get(SYSCTL) == 0, "sysfs 0 shows in sysctl");
	ok(!put(SYSCTL, "1") && get(SYSFS) == 1, "sysctl 1 shows in sysfs");

	ok(strict == 1 && ref >= 0, "kernel.sysctl_writes_strict is 1 (default), "
	   "fs.protected_symlinks readable (%d, %d)", strict, ref);
	documented();

	build_scenarios();
	compare_with_core(1);
	compare_with_core(0);
	compare_with_core(-1);
	set_int(STRICT, strict);
	if (ref >= 0)
		set(REF, ref);

	empty_writes_race();

	test_writers();
	test_differences();

	set(SYSCTL, def);
	printf("1..%d\n", tests);
	printf("# knobtest: %d passed, %d failed\n", tests - failed, failed);
	return failed ? 1 : 0;
}

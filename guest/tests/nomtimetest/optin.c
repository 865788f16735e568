// SPDX-License-Identifier: GPL-2.0
/*
 * nomtimetest: allow_nomtime only on filesystems that opted in, and
 * O_NOMTIME refused on overlayfs, whose files write through another file.
 */
#include "nt.h"
#include "gtap.h"

/* fsconfig(FSCONFIG_SET_FLAG, key) on a new context of type: 0 or errno */
static int set_flag(const char *type, const char *key)
{
	int fc = syscall(SYS_fsopen, type, 0), e;

	if (fc < 0)
		return 300 + errno;
	e = syscall(SYS_fsconfig, fc, 0 /* FSCONFIG_SET_FLAG */, key, NULL, 0) ? errno : 0;
	close(fc);
	return e;
}

static int mnt(const char *src, const char *dir, const char *type, const char *opts)
{
	return mount(src, dir, type, 0, opts) ? errno : 0;
}

void test_optin(void)
{
	const char *lo = "/tmp/nm-lower", *ov = "/tmp/nm-ovl", *rf = "/tmp/nm-ramfs";
	const char *up = path(allow, "ovl-upper"), *wk = path(allow, "ovl-work");
	char opts[600];
	int fd, e;

	/* ramfs never opted in; clearing the option is accepted anywhere */
	mkdir(rf, 0755);
	e = mnt("nmramfs", rf, "ramfs", "allow_nomtime");
	ok(e == EINVAL, "ramfs: mount -o allow_nomtime fails with EINVAL (%s)", err(e));
	if (!e)
		umount(rf);
	e = mnt("nmramfs", rf, "ramfs", "noallow_nomtime");
	ok(!e, "ramfs: mount -o noallow_nomtime succeeds (%s)", err(e));
	if (!e) {
		e = mount("none", rf, NULL, MS_REMOUNT, "allow_nomtime") ? errno : 0;
		ok(e == EINVAL && !has_opt(rf, "allow_nomtime"),
		   "ramfs: remount,allow_nomtime fails with EINVAL (%s)", err(e));
		umount(rf);
	}

	/* the new mount API, where legacy filesystems see the VFS's flags too */
	e = set_flag("ramfs", "allow_nomtime");
	ok(e == EINVAL, "ramfs: fsconfig(FSCONFIG_SET_FLAG, \"allow_nomtime\") fails with EINVAL (%s)", err(e));
	e = set_flag("overlay", "allow_nomtime");
	ok(e == EINVAL, "overlayfs: fsconfig(FSCONFIG_SET_FLAG, \"allow_nomtime\") fails with EINVAL (%s)",
	   err(e));
	e = set_flag("tmpfs", "allow_nomtime");
	ok(!e, "tmpfs (opted in): fsconfig(FSCONFIG_SET_FLAG, \"allow_nomtime\") succeeds (%s)", err(e));

	/* overlayfs over a lower tmpfs dir and an upper dir on the allowing fs */
	mkdir(lo, 0755);
	mkdir(ov, 0755);
	mkdir(up, 0755);
	mkdir(wk, 0755);
	make_file(path(lo, "low"), 0, 0666);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s,allow_nomtime", lo, up, wk);
	e = mnt("nmovl", ov, "overlay", opts);
	ok(e == EINVAL, "overlayfs: mount -o allow_nomtime fails with EINVAL (%s)", err(e));
	if (!e)
		umount(ov);
	*strrchr(opts, ',') = 0;
	e = mnt("nmovl", ov, "overlay", opts);
	if (e) {
		ok(0, "overlayfs mount: %s", err(e));
		return;
	}
	make_file(path(ov, "up"), 0, 0666);	/* its real file is on the allowing fs */
	e = openat2_(path(ov, "up"), O_RDWR | O_NOMTIME, &fd);
	ok(e == EPERM, "overlayfs file whose real file allows it: openat2(O_NOMTIME) fails with EPERM (%s)",
	   err(e));
	if (!e)
		close(fd);
	e = try_open(path(ov, "up"), O_RDWR, &fd);
	if (!e) {
		int r = fcntl(fd, F_SETFL, getfl(fd) | O_NOMTIME);

		ok(r < 0 && errno == EPERM && !(getfl(fd) & O_NOMTIME),
		   "overlayfs file: F_SETFL O_NOMTIME fails with EPERM (%s, F_GETFL %#o)",
		   r < 0 ? err(errno) : "success", getfl(fd));
		close(fd);
	} else {
		ok(0, "open the overlayfs file: %s", err(e));
	}
	umount(ov);
}

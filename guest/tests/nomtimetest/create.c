// SPDX-License-Identifier: GPL-2.0
/*
 * nomtimetest: O_CREAT|O_NOMTIME is refused where the file would be
 * created, beside the other create checks, and nowhere else.
 */
#include "nt.h"
#include "gtap.h"

static int create_as_user(void *arg)
{
	int fd;

	if (setresgid(1000, 1000, 1000) || setresuid(1000, 1000, 1000))
		return 102;
	return openat2_(arg, O_RDWR | O_CREAT | O_NOMTIME, &fd);
}

void test_create(void)
{
	const char *ex = path(deny, "exists"), *ro = path(deny, "ro");
	const char *src = path(allow, "bound"), *dst = path(deny, "mountpoint");
	int fd, e;

	/* an existing file: O_EXCL's EEXIST wins, as without the flag */
	make_file(ex, 0, 0666);
	e = openat2_(ex, O_RDWR | O_CREAT | O_EXCL | O_NOMTIME, &fd);
	ok(e == EEXIST, "no allow_nomtime, existing file: O_CREAT|O_EXCL|O_NOMTIME fails with EEXIST (%s)",
	   err(e));
	if (!e)
		close(fd);

	/* no write permission on the directory: EACCES wins */
	mkdir(ro, 0755);
	chmod(ro, 0755);
	e = in_child(create_as_user, (void *)path(ro, "new"));
	ok(e == EACCES && access(path(ro, "new"), F_OK),
	   "no allow_nomtime, uid 1000 in a directory it cannot write: O_CREAT|O_NOMTIME fails with EACCES (%s)",
	   err(e));

	/*
	 * A file of the allowing filesystem bind-mounted over a file of the
	 * other one: nothing is created, so the gate of the directory's
	 * filesystem does not apply.  Twice, with the dentry then cached.
	 */
	make_file(src, 0, 0666);
	make_file(dst, 0, 0666);
	if (mount(src, dst, NULL, MS_BIND, NULL)) {
		ok(0, "bind-mount %s on %s: %s", src, dst, strerror(errno));
		return;
	}
	for (int i = 1; i <= 2; i++) {
		e = openat2_(dst, O_RDWR | O_CREAT | O_NOMTIME, &fd);
		ok(!e && (getfl(fd) & O_NOMTIME),
		   "open %d of an allow_nomtime file bind-mounted into a filesystem without it: O_CREAT|O_NOMTIME succeeds (%s)",
		   i, err(e));
		if (!e)
			close(fd);
	}
	umount(dst);
}

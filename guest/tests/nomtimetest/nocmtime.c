// SPDX-License-Identifier: GPL-2.0
/*
 * nomtimetest: FMODE_NOCMTIME (XFS's open by handle, for invisible I/O)
 * still means no stamps at all when the file also has O_NOMTIME: the
 * stamp O_NOMTIME puts back on fallocate() must not apply there.
 */
#include "nt.h"
#include "gtap.h"

#include <sys/ioctl.h>

/* the ABI of XFS_IOC_FD_TO_HANDLE and XFS_IOC_OPEN_BY_HANDLE (xfs_fs.h) */
struct xfs_handlereq {
	uint32_t fd;
	void *path;
	uint32_t oflags;
	void *ihandle;
	uint32_t ihandlen;
	void *ohandle;
	uint32_t *ohandlen;
};
#define XFS_IOC_FD_TO_HANDLE	_IOWR('X', 106, struct xfs_handlereq)
#define XFS_IOC_OPEN_BY_HANDLE	_IOWR('X', 107, struct xfs_handlereq)

/* An invisible-I/O fd of p (or -1, errno set). */
static int open_by_handle(const char *p, int flags)
{
	char handle[64];
	uint32_t hlen = sizeof(handle);
	struct xfs_handlereq r = { 0 };
	int fd = open(p, O_RDONLY), hfd;

	if (fd < 0)
		return -1;
	r.fd = fd;
	r.ohandle = handle;
	r.ohandlen = &hlen;
	if (ioctl(fd, XFS_IOC_FD_TO_HANDLE, &r) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	/* as libhandle does: the handle is opened through the mount's root */
	fd = open(allow, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	memset(&r, 0, sizeof(r));
	r.oflags = flags;
	r.ihandle = handle;
	r.ihandlen = hlen;
	hfd = ioctl(fd, XFS_IOC_OPEN_BY_HANDLE, &r);
	close(fd);
	return hfd;
}

void test_nocmtime(void)
{
	const char *f = path(allow, "nocm");
	struct stat a, b;
	int fd, r;

	if (strcmp(fs_type(allow), "xfs")) {
		skip("FMODE_NOCMTIME with O_NOMTIME", "%s is %s; only XFS opens files without stamps",
		     allow, fs_type(allow));
		return;
	}
	make_file(f, 0, 0666);
	fd = open_by_handle(f, O_RDWR);
	if (fd < 0) {
		ok(0, "XFS open by handle of %s: %s", f, strerror(errno));
		return;
	}
	r = fcntl(fd, F_SETFL, getfl(fd) | O_NOMTIME);
	fstat(fd, &a);
	usleep(20000);
	r = r ? r : fallocate(fd, FALLOC_FL_KEEP_SIZE, FSIZE, 4 * BLK);
	fstat(fd, &b);
	ok(!r && (getfl(fd) & O_NOMTIME) && !moved(&a.st_mtim, &b.st_mtim) &&
	   !moved(&a.st_ctim, &b.st_ctim),
	   "XFS invisible I/O with O_NOMTIME: fallocate leaves mtime %s and ctime %s (want both unchanged; %s)",
	   moved(&a.st_mtim, &b.st_mtim) ? "changed" : "unchanged",
	   moved(&a.st_ctim, &b.st_ctim) ? "changed" : "unchanged", r ? strerror(errno) : "ok");
	close(fd);
}

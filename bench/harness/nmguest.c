#define _GNU_SOURCE	/* asprintf */
#include "nmguest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fskind.h"
#include "guestcmd.h"
#include "prog.h"
#include "rundir.h"

#define IMG_PREFIX	"nomtime-bench."
#define SECTOR		512
#define PART_START	2048	/* sectors: 1 MiB, as fdisk aligns */

static void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (8 * i);
}

static void mbr_entry(unsigned char *e, uint32_t start, uint32_t sectors)
{
	e[0] = 0x00;				/* not bootable */
	e[1] = 0xfe; e[2] = 0xff; e[3] = 0xff;	/* CHS: use LBA */
	e[4] = 0x83;				/* Linux */
	e[5] = 0xfe; e[6] = 0xff; e[7] = 0xff;
	put_le32(e + 8, start);
	put_le32(e + 12, sectors);
}

/* Copies the filesystem image src into dst at off, leaving holes sparse. */
static int copy_at(int dst, const char *src, off_t off)
{
	static char buf[1 << 20], zero[1 << 20];
	int in = open(src, O_RDONLY);
	ssize_t n;

	if (in < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (memcmp(buf, zero, n) && pwrite(dst, buf, n, off) != n) {
			n = -1;
			break;
		}
		off += n;
	}
	close(in);
	return n < 0 ? -1 : 0;
}

int nm_make_disk(const char *img, const char *allow_fs, const char *deny_fs,
		 uint64_t part_bytes)
{
	const struct fs_kind *fs[2] = { fs_kind_find(allow_fs), fs_kind_find(deny_fs) };
	const char *label[2] = { "nmallow", "nmdeny" };
	unsigned char mbr[SECTOR] = { 0 };
	uint32_t sectors;
	char *part;
	int fd, r = 0;

	if (!fs[0] || !fs[1]) {
		fprintf(stderr, "nmguest: unknown filesystem type %s\n", fs[0] ? deny_fs : allow_fs);
		return -1;
	}
	for (int i = 0; i < 2; i++)	/* both partitions of one size */
		if (part_bytes < fs[i]->min_bytes)
			part_bytes = fs[i]->min_bytes;
	sectors = part_bytes / SECTOR;
	fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (PART_START + 2ULL * sectors) * SECTOR)) {
		fprintf(stderr, "nmguest: %s: %s\n", img, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	mbr_entry(mbr + 446, PART_START, sectors);
	mbr_entry(mbr + 462, PART_START + sectors, sectors);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	if (pwrite(fd, mbr, SECTOR, 0) != SECTOR)
		r = -1;
	for (int i = 0; i < 2 && !r; i++) {
		/* the whole path or none: a cut-short name is someone else's file */
		if (asprintf(&part, "%s.part%d", img, i + 1) < 0) {
			r = -1;
			break;
		}
		if (fs_mkfs(fs[i], label[i], part, part_bytes) ||
		    copy_at(fd, part, (off_t)(PART_START + (uint64_t)i * sectors) * SECTOR))
			r = -1;
		unlink(part);
		free(part);
	}
	if (close(fd))
		r = -1;
	if (r)
		fprintf(stderr, "nmguest: cannot build %s\n", img);
	return r;
}

int nm_mount(struct vm *vm, const char *allow_fs, const char *deny_fs)
{
	const struct fs_kind *k = fs_kind_find(allow_fs);

	return guest_cmd(vm, 60000, NULL,
			 "RUN mkdir -p " NM_ALLOW " " NM_DENY " && "
			 "mount -t %s -o allow_nomtime%s $(findfs LABEL=nmallow) " NM_ALLOW " && "
			 "mount -t %s $(findfs LABEL=nmdeny) " NM_DENY,
			 allow_fs, k ? k->nomtime_opts : "", deny_fs);
}

int nm_blockstats(struct vm *vm, const char *img, long long *writes,
		  long long *flushes)
{
	json_t *blk = NULL, *st = NULL, *e;
	const char *dev = NULL;
	size_t i;
	int r = -1;

	if (qmp_command(vm->qmp, "query-block", NULL, &blk, 10000) ||
	    qmp_command(vm->qmp, "query-blockstats", NULL, &st, 10000))
		goto out;
	json_array_foreach(blk, i, e) {
		const char *file = json_string_value(json_object_get(
			json_object_get(e, "inserted"), "file"));

		if (file && !strcmp(file, img))
			dev = json_string_value(json_object_get(e, "device"));
	}
	json_array_foreach(st, i, e) {
		const char *d = json_string_value(json_object_get(e, "device"));
		json_t *s = json_object_get(e, "stats");

		if (dev && d && !strcmp(d, dev) && s) {
			*writes = json_integer_value(json_object_get(s, "wr_operations"));
			*flushes = json_integer_value(json_object_get(s, "flush_operations"));
			r = 0;
		}
	}
out:
	if (r)
		fprintf(stderr, "nmguest: no block statistics for %s (%s)\n", img,
			qmp_last_error(vm->qmp));
	json_decref(blk);
	json_decref(st);
	return r;
}

static const char *img_dir(void)
{
	const char *t = getenv("TMPDIR");

	return t && *t ? t : "/var/tmp";
}

/* dir/nomtime-bench.PID<suffix>, or NULL (out of memory) */
static char *img_path(const char *dir, long pid, const char *suffix)
{
	char *p;

	return asprintf(&p, "%s/" IMG_PREFIX "%ld%s", dir, pid, suffix) < 0 ? NULL : p;
}

int nm_image_sweep(const char *dir)
{
	static const char *const made[] = { ".img", ".img.part1", ".img.part2", NULL };
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	int n = 0;

	while (d && (e = readdir(d))) {
		char *owner;
		long pid;
		int end = 0;

		/* only our exact names: nomtime-bench.PID.owner */
		if (sscanf(e->d_name, IMG_PREFIX "%ld.owner%n", &pid, &end) != 1 ||
		    e->d_name[end] || pid <= 0)
			continue;
		owner = img_path(dir, pid, ".owner");
		if (owner && !lstat(owner, &st) && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid() && rundir_owner_gone(owner)) {
			for (int i = 0; made[i]; i++) {
				char *p = img_path(dir, pid, made[i]);

				if (p)
					unlink(p);
				free(p);
			}
			unlink(owner);
			n++;
		}
		free(owner);
	}
	if (d)
		closedir(d);
	return n;
}

int nm_image_claim(char *img, size_t n)
{
	const char *dir = img_dir();
	char *owner = img_path(dir, (long)getpid(), ".owner");
	int h, swept, len = snprintf(img, n, "%s/" IMG_PREFIX "%ld.img", dir, (long)getpid());

	if (!owner || len < 0 || (size_t)len >= n) {
		fprintf(stderr, "%s: TMPDIR: '%s' is too long for the image's path (valid: up to %d characters)\n",
			cli_prog, dir, (int)(n - sizeof(IMG_PREFIX "4194304.img.part1")));
		free(owner);
		return -1;
	}
	swept = nm_image_sweep(dir);
	if (swept)
		fprintf(stderr, "%s: removed %d image(s) of killed runs from %s\n", cli_prog,
			swept, dir);
	if (rundir_owner_write(owner, &h)) {
		fprintf(stderr, "%s: %s: %s\n", cli_prog, owner, strerror(errno));
		free(owner);
		return -1;
	}
	free(owner);
	return 0;
}

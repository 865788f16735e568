/*
 * t_vm_agent: the real guest agent's file verbs, on a real guest.
 *
 * The offline tests talk to a fake agent, so what only the real one does
 * is guarded here.  Guards: GET returns every line of a file, those that
 * start with '#' too; VERIFY judges a file it does not follow (a symlink
 * to the right bytes is "lnk" with nothing good, lstat and O_NOFOLLOW),
 * reports a file longer than written by its size, counts a zeroed KiB as
 * 1024 bad bytes (the pattern's own zero bytes are not good), finds one
 * flipped byte at its offset (its 8-byte word bad), and calls a missing file "none" with status
 * 0; LIST names a symlink "lnk" and descends into directories.
 *
 * Environment: KERNEL, INITRD, TOOLS_DISK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hx.h"
#include "pattern.h"
#include "tap.h"
#include "vmtest.h"

#define DIR HX_DATA_MNT "/agent"
#define SEED 77ULL
#define SIZE (256ULL * 1024)

struct judged {
	char type[8];
	long long size;
	unsigned long long good, first_bad;
};

/* VERIFY path against the pattern of SIZE bytes; false if no answer. */
static bool verify(struct hx *h, const char *path, struct judged *j)
{
	char *out = NULL;
	int n = 0;

	memset(j, 0, sizeof(*j));
	if (!hx_run(h, h->base.cmd, &out, "VERIFY %s %llu %llu", path,
		       SEED, SIZE))
		n = sscanf(out, "type=%7s size=%lld good=%llu first_bad=%llu", j->type,
			   &j->size, &j->good, &j->first_bad);
	free(out);
	return n == 4;
}

static bool write_pattern(struct hx *h, const char *name)
{
	return !hx_run(h, h->base.cmd, NULL, "WRITE " DIR "/%s %llu 0 %llu 0",
			  name, SEED, SIZE);
}

static bool run(struct hx *h, const char *cmd)
{
	return !hx_run(h, h->base.cmd, NULL, "RUN %s", cmd);
}

static void get_keeps_hash_lines(struct hx *h)
{
	char *out = NULL;
	bool ok;

	run(h, "printf '# a comment\\nvalue 1\\n#\\n' > " DIR "/hash.txt");
	hx_run(h, h->base.cmd, &out, "GET " DIR "/hash.txt");
	ok = out && !strcmp(out, "# a comment\nvalue 1\n#");
	for (char *p = out; p && *p; p++)	/* one TAP line */
		if (*p == '\n')
			*p = '|';
	tap_ok(ok, "GET: every line, those starting with '#' too (%s)", out ? out : "no answer");
	free(out);
}

/* The arguments are read after verify() has run. */
static void verify_judges(struct hx *h)
{
	unsigned char b;
	char cmd[200];
	struct judged j = { .size = 0 };
	bool ok;

	ok = write_pattern(h, "good.bin") && verify(h, DIR "/good.bin", &j);
	if (!tap_ok(ok && !strcmp(j.type, "reg") && j.good == SIZE && j.first_bad == SIZE,
		    "VERIFY: a written file is reg, all %llu bytes good (%s, %llu)", SIZE,
		    j.type, j.good))
		return;
	run(h, "ln -s good.bin " DIR "/link.bin");
	ok = verify(h, DIR "/link.bin", &j);
	tap_ok(ok && !strcmp(j.type, "lnk") && j.good == 0,
	       "VERIFY: a symlink to the right bytes is lnk, 0 good (%s, %llu)", j.type, j.good);

	write_pattern(h, "long.bin");
	run(h, "printf x >> " DIR "/long.bin");
	ok = verify(h, DIR "/long.bin", &j);
	tap_ok(ok && j.size == (long long)SIZE + 1 && j.good == SIZE,
	       "VERIFY: one byte appended shows in the size (%lld), the data good", j.size);

	write_pattern(h, "zero.bin");
	run(h, "dd if=/dev/zero of=" DIR "/zero.bin bs=1024 seek=4 count=1 conv=notrunc"
	    " 2>/dev/null");
	ok = verify(h, DIR "/zero.bin", &j);
	tap_ok(ok && j.good == SIZE - 1024 && j.first_bad == 4096,
	       "VERIFY: a zeroed KiB is 1024 bad bytes from 4096 (good %llu, first bad %llu)",
	       j.good, j.first_bad);

	pattern_fill(SEED, 100000, &b, 1);
	write_pattern(h, "flip.bin");
	snprintf(cmd, sizeof(cmd), "printf '\\%03o' | dd of=" DIR "/flip.bin bs=1 seek=100000"
		 " conv=notrunc 2>/dev/null", (unsigned char)~b);
	run(h, cmd);
	ok = verify(h, DIR "/flip.bin", &j);
	/* judged by aligned 8-byte words: the flipped byte's word is bad */
	tap_ok(ok && j.good == SIZE - 8 && j.first_bad == 100000,
	       "VERIFY: one flipped byte at 100000, its word bad (good %llu, first bad %llu)",
	       j.good, j.first_bad);

	ok = verify(h, DIR "/none.bin", &j);
	tap_ok(ok && !strcmp(j.type, "none"), "VERIFY: a missing file is none, status 0 (%s)",
	       j.type);
}

static void list_uses_lstat(struct hx *h)
{
	char *out = NULL;

	run(h, "mkdir -p " DIR "/sub/deeper && : > " DIR "/sub/deeper/leaf");
	hx_run(h, h->base.cmd, &out, "LIST " DIR);
	tap_ok(out && strstr(out, "lnk link.bin") && strstr(out, "reg good.bin"),
	       "LIST: the symlink is lnk, the file reg");
	tap_ok(out && strstr(out, "dir sub/deeper") && strstr(out, "reg sub/deeper/leaf"),
	       "LIST: descends into directories");
	free(out);
}

int main(void)
{
	char dir[] = "/tmp/t_vm_agent.XXXXXX", img[600];
	struct hx_opts o;
	struct hx h;

	if (!vmtest_lab_opts(&o, dir, "the real agent"))
		return tap_done();
	hx_init(&h, &o);
	snprintf(img, sizeof(img), "%s/data.img", dir);
	if (tap_ok(!hx_image(&h, img, 64ULL << 20) && !hx_boot(&h, "agent", false) &&
		   !hx_prepare(&h, false) && run(&h, "mkdir -p " DIR),
		   "the guest boots, its data disk mounted")) {
		get_keeps_hash_lines(&h);
		verify_judges(&h);
		list_uses_lstat(&h);
	}
	hx_stop(&h);
	hx_image_drop(&h);
	rmdir(dir);
	return tap_done();
}

/*
 * t_msg_nmimage: nomtime-bench's 1 GiB image, and a mkfs that fails
 * (issue 33, items 6 and 7).
 *
 * Guards: nomtime-bench killed by SIGKILL leaves its image beside an owner
 * record, and the next run removes both (and the partitions' files); an
 * image whose owner still runs, and a user's file of the same name shape
 * without a record, stay; the run's own record is gone after a normal
 * exit; mkfs failing on a full disk shows mkfs's own words ("No space
 * left on device") on nomtime-bench's stderr, not only a status.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakerun.h"
#include "nmguest.h"
#include "progrun.h"
#include "rundir.h"
#include "tap.h"

static char kernel[600], tmp[600], bin[600];

static void touch(const char *dir, const char *name, const char *text)
{
	char p[1300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool exists(const char *dir, const char *name)
{
	char p[1300];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return !access(p, F_OK);
}

/* A mkfs.ext4 that sleeps (to be killed) or fails as a full disk does. */
static void fake_mkfs(void)
{
	char p[700];
	FILE *f;

	snprintf(bin, sizeof(bin), "%s/bin", fakerun_dir());
	mkdir(bin, 0755);
	snprintf(p, sizeof(p), "%s/mkfs.ext4", bin);
	f = fopen(p, "w");
	fputs("#!/bin/sh\n"
	      "[ -n \"$MSG_MKFS_SLEEP\" ] && exec sleep \"$MSG_MKFS_SLEEP\"\n"
	      "echo 'mke2fs 1.47.0 (5-Feb-2023)'\n"
	      "echo 'mkfs.ext4: No space left on device while writing out and closing file system' >&2\n"
	      "exit 1\n", f);
	fclose(f);
	chmod(p, 0755);
}

static void sweep_direct(void)
{
	char dir[700], own[800], img[100];
	pid_t dead;
	int h, n;

	snprintf(dir, sizeof(dir), "%s/direct", fakerun_dir());
	mkdir(dir, 0755);
	/* a dead owner's record, written as the program writes it */
	dead = fork();
	if (!dead) {
		snprintf(own, sizeof(own), "%s/nomtime-bench.%d.owner", dir, (int)getpid());
		_exit(rundir_owner_write(own, &h) ? 1 : 0);
	}
	waitpid(dead, NULL, 0);
	snprintf(img, sizeof(img), "nomtime-bench.%d.img", (int)dead);
	touch(dir, img, "x");
	snprintf(own, sizeof(own), "nomtime-bench.%d.img.part2", (int)dead);
	touch(dir, own, "x");
	/* a live owner's image, and a user's file with no record */
	snprintf(own, sizeof(own), "%s/nomtime-bench.%d.owner", dir, (int)getpid());
	rundir_owner_write(own, &h);
	snprintf(own, sizeof(own), "nomtime-bench.%d.img", (int)getpid());
	touch(dir, own, "live");
	touch(dir, "nomtime-bench.7.img", "a user's, no record");
	n = nm_image_sweep(dir);
	tap_ok(n == 1 && !exists(dir, img) && exists(dir, own) &&
	       exists(dir, "nomtime-bench.7.img"),
	       "sweep: removed %d dead owner's image (gone %d), live owner's kept %d, user's kept %d",
	       n, !exists(dir, img), exists(dir, own), exists(dir, "nomtime-bench.7.img"));
}

int main(int argc, char **argv)
{
	char path[1200];
	const char *dir = fakerun_dir();
	int rc, left;

	(void)argc;
	progrun_init(argv[0]);
	snprintf(kernel, sizeof(kernel), "%s/bzImage", dir);
	snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
	mkdir(tmp, 0700);
	setenv("TMPDIR", tmp, 1);
	fake_mkfs();
	snprintf(path, sizeof(path), "%s:%s", bin, getenv("PATH"));
	setenv("PATH", path, 1);

	sweep_direct();

	/* killed while it makes the image: the image and its record stay */
	setenv("MSG_MKFS_SLEEP", "3", 1);
	rc = progrun("nomtime-bench", (char *[]){ "--kernel", kernel, "--initrd", kernel, NULL },
		     1000, SIGKILL);
	unsetenv("MSG_MKFS_SLEEP");
	left = fakerun_count(tmp, "nomtime-bench.");
	tap_ok(rc == 128 + SIGKILL && left >= 2,
	       "SIGKILL mid-mkfs: rc %d, %d nomtime-bench.* files left (image and record)", rc, left);

	/* the next run: removes them, and mkfs's own words name the cause */
	rc = progrun("nomtime-bench", (char *[]){ "--kernel", kernel, "--initrd", kernel, NULL },
		     0, 0);
	left = fakerun_count(tmp, "nomtime-bench.");
	tap_ok(strstr(progrun_err, "removed 1 image(s) of killed runs") && left == 0,
	       "the next run swept the killed run's image: %d nomtime-bench.* left; %.*s", left,
	       (int)strcspn(progrun_err, "\n"), progrun_err);
	tap_ok(rc == 1 && strstr(progrun_err, "mkfs.ext4 failed (status 1): mkfs.ext4: No space left on device"),
	       "mkfs on a full disk: rc %d, stderr: %s", rc, progrun_err);
	fakerun_done();
	return tap_done();
}

/* SPDX-License-Identifier: GPL-2.0 */
/* nomtimetest: what its parts share (see main.c for what it guards). */
#ifndef NT_H
#define NT_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef O_NOMTIME
#define O_NOMTIME	01000000000
#endif

#define BLK	4096
#define FSIZE	(64 * 1024)

/* the two ext4 mounts: with and without allow_nomtime */
extern const char *allow, *deny;

/* util.c */
const char *path(const char *dir, const char *name);
const char *err(int e);
int try_open(const char *p, int flags, int *fd);
int openat2_(const char *p, uint64_t flags, int *fd);
void fill(char *b, size_t n, int seed);
int make_file(const char *p, uid_t uid, mode_t mode);
bool has_opt(const char *mnt, const char *opt);
int getfl(int fd);
int in_child(int (*fn)(void *), void *arg);
int write_file(const char *p, const char *s);
int enter_userns(int extra);
bool moved(const struct timespec *a, const struct timespec *b);
const char *fs_type(const char *mnt);

/* the TAP checks, one file each */
void test_gate(void);
void test_create(void);
void test_optin(void);
void test_flags(void);
void test_times(void);
void test_ima(void);
void test_nocmtime(void);

/* bench.c: the benchmark's guest half */
int prep(const char *f, long mib);
int bench(const char *f, int count, int nomtime, const char *sync, int gap_ms,
	  int settle_s);

#endif

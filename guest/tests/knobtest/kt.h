/* SPDX-License-Identifier: GPL-2.0 */
/* knobtest: what its parts share (see main.c for what it guards). */
#ifndef KT_H
#define KT_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SYSCTL	"/proc/sys/kernel/suspend_sync"
#define SYSFS	"/sys/power/sync_on_suspend"
/* the sysctl core's own 0..1 integer: proc_dointvec_minmax, 0644, root */
#define REF	"/proc/sys/fs/protected_symlinks"
#define STRICT	"/proc/sys/kernel/sysctl_writes_strict"

/* views.c: reading and writing the two views and other proc files */
int get(const char *path);
int put_at(const char *path, const char *val, size_t len, off_t off);
int put(const char *path, const char *val);
void set(const char *path, int v);
int get_int(const char *path);
void set_int(const char *path, int v);
const char *show(const char *s, size_t len);

/* writes.c: writes, compared with the sysctl core's own integer sysctl */
void documented(void);
void build_scenarios(void);
void compare_with_core(int strict);
void empty_writes_race(void);

/* writers.c: every writer gets the same answer from both views */
void test_writers(void);

/* diffs.c: where the views differ, each difference from both */
void test_differences(void);

#endif

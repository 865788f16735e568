/* SPDX-License-Identifier: GPL-2.0 */
/* The guest agent's parts (see agent.c for what it is). */
#ifndef AGENT_H
#define AGENT_H

#define _GNU_SOURCE
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define TRACE_DIR "/sys/kernel/tracing"

/* io.c: the port, replies, files and clocks */
extern int port;
extern unsigned long seq;	/* of the request being answered */
__attribute__((format(printf, 1, 2))) void klog(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void sendf(const char *fmt, ...);
long long clock_ns(clockid_t id);
void clocks(char *buf, size_t n);
int open_port(void);
int send_file(const char *tag, const char *path, const char *filter);
int write_file(const char *path, const char *val);
void meminfo(long long *dirty, long long *wb);

/* cmds.c: RUN, SUSPEND, CLOCK */
void cmd_run(const char *cmd);
void cmd_suspend(const char *arg);
void cmd_clock(void);

/* files.c: WRITE, VERIFY, LIST */
void cmd_write(const char *arg);
void cmd_verify(const char *arg);
int list_dir(const char *root, const char *rel, int depth);

#endif

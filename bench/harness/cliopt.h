/*
 * Command lines in the manner of util-linux rtcwake: getopt_long over one
 * control struct, and every rejection a single stderr line that names the
 * option and the value and restates what would have been accepted.
 */
#ifndef SLAB_CLIOPT_H
#define SLAB_CLIOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prog.h"

/* "<prog>: <message>" on one line (control characters shown as '?'); 2. */
int cli_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Decimal only: "1e3", " 5", "+5", "0x10" are typos, not numbers.  0 or 2. */
int cli_int(const char *opt, const char *s, long long lo, long long hi,
	    long long *out);
/* "64M" -> 67108864; K, M, G are powers of 1024; false if malformed. */
bool cli_size(const char *s, uint64_t *bytes);
/* Sizes in messages as the user would type them. */
const char *cli_fmt_size(char *buf, size_t n, uint64_t v);
/* A path option: not empty.  0 or 2. */
int cli_path(const char *opt, const char *arg, const char **out);
/* An environment default; an empty value is as good as none. */
const char *cli_env(const char *name);

/* The host's MemAvailable in MiB; -1 if /proc/meminfo does not say. */
long long cli_mem_available_mib(void);
/*
 * A guest of mem_mb MiB against the host's avail_mib (-1: unknown, fits).
 * given: --mem set it, so --mem is blamed, with the host's limit; else the
 * line names what it was sized from (sized_from: "this --dirty list").
 * 0, or 2 after one line.
 */
int cli_host_mem(int mem_mb, bool given, const char *sized_from, long long avail_mib);

struct cli {
	const struct option *longopts;
	const char *shortopts;		/* starting with ':' */
	const char *(*valid_of)(int val);	/* for "missing value" */
	int (*handle)(int c, const char *arg, void *ctx);	/* 0 or 2 */
	void (*usage)(void);
};

/* 0 parsed, 1 after --help (usage on stdout), 2 after one error line. */
int cli_parse(const struct cli *cl, int argc, char **argv, void *ctx);

#endif

#include "nmopts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliopt.h"
#include "fskind.h"
#include "hx.h"

static const char *const caches[] = { "wc", "nowc", NULL };

const char *nm_nomtime_names(void)
{
	static char buf[128];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < fs_n_kinds && len < sizeof(buf); i++)
		if (fs_kinds[i].nomtime)
			len += snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? ", " : "",
					fs_kinds[i].name);
	return buf;
}

static void usage(void)
{
	printf("Usage: nomtime-bench [options]\n"
	       "O_DIRECT overwrites + fsync/fdatasync/syncfs with and without O_NOMTIME:\n"
	       "device requests per overwrite (QMP query-blockstats) and latency.\n\n"
	       "     --fs LIST          filesystems opted in to O_NOMTIME, comma-separated,\n"
	       "                        each once: %s (default ext4)\n"
	       "     --cache LIST       wc (volatile write cache, cache=none), nowc\n"
	       "                        (cache.writeback=off) or wc,nowc (default wc,nowc)\n"
	       " -p, --profile NAME     emmc (20 MiB/s, 2000 write IOPS) or nvme\n"
	       "                        (unthrottled) (default emmc)\n"
	       " -c, --count N          overwrites per run, 10 to 1000 (default 100)\n"
	       " -r, --runs N           runs per setting, interleaved, 1 to %d (default 3)\n"
	       "     --gap-ms N         pause before each overwrite, 0 to 1000 (default 10)\n"
	       "     --settle S         seconds after a run for deferred commits, 0 to 60\n"
	       "                        (default 6; ext4 commits every 5 s)\n"
	       " -k, --kernel PATH      guest kernel (default $KERNEL)\n"
	       " -i, --initrd PATH      guest initrd (default $INITRD)\n"
	       "     --keep-logs        keep the guest logs under\n"
	       "                        results/logs/run-<UTC time>-<pid>/nomtime-bench\n"
	       " -h, --help             this text\n", nm_nomtime_names(), NM_MAX_RUNS);
}

static int bad(const char *opt, const char *val, const char *valid)
{
	return cli_bad("%s: '%s' is not valid (valid: %s)", opt, val, valid);
}

static bool number(const char *s, long lo, long hi, int *v)
{
	char *end;
	long x;

	if (!*s)
		return false;
	x = strtol(s, &end, 10);
	if (*end || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

/* The filesystem named by s[0..len): its name, or NULL after one line. */
static const char *fs_item(const char *arg, const char *s, size_t len)
{
	for (size_t i = 0; i < fs_n_kinds; i++) {
		const struct fs_kind *k = &fs_kinds[i];

		if (strlen(k->name) != len || strncmp(k->name, s, len))
			continue;
		if (k->nomtime)
			return k->name;
		cli_bad("--fs: '%s': %s does not opt in to O_NOMTIME (no FS_ALLOW_NOMTIME), so allow_nomtime cannot be measured on it (valid: %s)",
			arg, k->name, nm_nomtime_names());
		return NULL;
	}
	cli_bad("--fs: '%s': '%.*s' is not a filesystem opted in to O_NOMTIME (valid: %s)",
		arg, (int)len, s, nm_nomtime_names());
	return NULL;
}

static const char *cache_item(const char *arg, const char *s, size_t len)
{
	for (int i = 0; caches[i]; i++)
		if (strlen(caches[i]) == len && !strncmp(caches[i], s, len))
			return caches[i];
	cli_bad("--cache: '%s': '%.*s' is not a disk model (valid: wc, nowc)", arg, (int)len, s);
	return NULL;
}

/*
 * "a,b" into out[], each item through item(); an empty item or one given
 * twice is a typo, named in one line.  0 or 2.
 */
static int list(const char *opt, const char *arg,
		const char *(*item)(const char *arg, const char *s, size_t len),
		const char *valid, const char **out, int max, int *n)
{
	const char *s = arg;

	*n = 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		const char *name;

		if (!len)
			return cli_bad("%s: '%s' has an empty item at offset %d (valid: %s, separated by single commas, each once)",
				       opt, arg, (int)(s - arg), valid);
		name = item(arg, s, len);
		if (!name)
			return 2;
		for (int i = 0; i < *n; i++)
			if (out[i] == name)
				return cli_bad("%s: '%s' names %s twice (valid: %s, each at most once)",
					       opt, arg, name, valid);
		if (*n == max)
			return cli_bad("%s: '%s' has more than %d items", opt, arg, max);
		out[(*n)++] = name;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int handle(struct nm_opts *o, int c, const char *arg, const char *opt)
{
	switch (c) {
	case 'F':
		return list("--fs", arg, fs_item, nm_nomtime_names(), o->fs, NM_MAX_FS, &o->n_fs);
	case 'C':
		return list("--cache", arg, cache_item, "wc, nowc", o->cache, 2, &o->n_cache);
	case 'p':
		if (strcmp(arg, "emmc") && strcmp(arg, "nvme"))
			return bad("--profile", arg, "emmc, nvme");
		o->profile = arg;
		return 0;
	case 'c':
		return number(arg, 10, 1000, &o->count) ? 0 : bad("--count", arg, "10 to 1000");
	case 'r':
		return number(arg, 1, NM_MAX_RUNS, &o->runs) ? 0 : bad("--runs", arg, "1 to 50");
	case 'G':
		return number(arg, 0, 1000, &o->gap_ms) ? 0 : bad("--gap-ms", arg, "0 to 1000");
	case 'S':
		return number(arg, 0, 60, &o->settle_s) ? 0 : bad("--settle", arg, "0 to 60");
	case 'k':
		o->kernel = arg;
		return 0;
	case 'i':
		o->initrd = arg;
		return 0;
	case 'L':
		o->keep_logs = true;
		return 0;
	case 'h':
		usage();
		return 1;
	case ':':
		return bad("option", opt, "it needs a value, see --help");
	default:
		return bad("option", opt, "see --help");
	}
}

int nm_parse_args(int argc, char **argv, struct nm_opts *o)
{
	static const struct option lo[] = {
		{ "fs", 1, NULL, 'F' }, { "cache", 1, NULL, 'C' },
		{ "profile", 1, NULL, 'p' }, { "count", 1, NULL, 'c' },
		{ "runs", 1, NULL, 'r' }, { "gap-ms", 1, NULL, 'G' },
		{ "settle", 1, NULL, 'S' }, { "kernel", 1, NULL, 'k' },
		{ "initrd", 1, NULL, 'i' }, { "keep-logs", 0, NULL, 'L' },
		{ "help", 0, NULL, 'h' }, { 0 },
	};
	int c, rc;

	*o = (struct nm_opts){ .kernel = getenv("KERNEL"), .initrd = getenv("INITRD"),
			       .fs = { "ext4" }, .n_fs = 1, .cache = { "wc", "nowc" },
			       .n_cache = 2, .profile = "emmc", .count = 100, .runs = 3,
			       .gap_ms = 10, .settle_s = 6 };
	cli_prog = "nomtime-bench";
	opterr = 0;	/* our own one line, not getopt's as well */
	optind = 1;
	while ((c = getopt_long(argc, argv, ":p:c:r:k:i:h", lo, NULL)) != -1)
		if ((rc = handle(o, c, optarg, argv[optind - 1])))
			return rc;
	if (optind < argc)
		return bad("argument", argv[optind], "options only, see --help");
	/* before QEMU: a directory or a text file is a typo, not a boot */
	return hx_check_boot_files(o->kernel, o->initrd);
}

/*
 * suspend-lab command line: one struct lab_opts filled from defaults, the
 * environment (KERNEL, INITRD, TOOLS_DISK) and getopt_long; the options it
 * shares with the other programs are the harness's (hxopts.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)

#define CYCLES_MAX 1000
#define MEM_MIN 256
#define MEM_MAX 65536
#define DIRTY_MAX (4 * GIB)

enum {
	OPT_SYNC = 0x500,
	OPT_RESUME_DELAY,
	OPT_WRITEBACK,
	OPT_WINDOW,
	OPT_RUNTIME,
	OPT_SEED,
	OPT_STALL_RETRIES,
};

static const struct option longopts[] = {
	{ "state",		required_argument, NULL, 's' },
	{ "cycles",		required_argument, NULL, 'c' },
	{ "dirty",		required_argument, NULL, 'd' },
	{ "sync",		required_argument, NULL, OPT_SYNC },
	{ "mem",		required_argument, NULL, 'm' },
	{ "test-resume-delay",	required_argument, NULL, OPT_RESUME_DELAY },
	{ "workload",		required_argument, NULL, 'w' },
	{ "writeback",		required_argument, NULL, OPT_WRITEBACK },
	{ "request-window",	required_argument, NULL, OPT_WINDOW },
	{ "runtime",		required_argument, NULL, OPT_RUNTIME },
	{ "seed",		required_argument, NULL, OPT_SEED },
	{ "stall-retries",	required_argument, NULL, OPT_STALL_RETRIES },
	HX_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* Leading ':' so a missing value comes back as ':' rather than '?'. */
static const char shortopts[] = ":s:c:d:m:w:" HX_SHORTOPTS;

/* What each option accepts, for the missing-value message. */
static const char *valid_of(int val)
{
	const char *v = hx_opts_valid(val);

	if (v)
		return v;
	switch (val) {
	case 's': return "mem, freeze";
	case 'c': return "1 to 1000";
	case 'd': return "1 to 16 distinct sizes, each 0 to 4G";
	case OPT_SYNC: return "0, 1, both";
	case 'm': return "256 to 65536";
	case OPT_RESUME_DELAY: return "0 to 60000 ms";
	case 'w': return "bigfile, smallfiles, fsync-log, mixed, all";
	case OPT_WRITEBACK: return "held, default, both";
	case OPT_WINDOW: return "0 to 600000 ms";
	case OPT_RUNTIME: return "1 to 3600 s";
	case OPT_SEED: return "0 to 4294967295";
	case OPT_STALL_RETRIES: return "0 to 20";
	default: return "a value";
	}
}

static int parse_states(const char *arg, struct lab_opts *o)
{
	static const char *const names[] = { "mem", "freeze" };
	const char *s = arg;

	o->n_states = 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		const char *st = NULL;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (len == strlen(names[i]) && !strncmp(s, names[i], len))
				st = names[i];
		if (!st)
			return cli_bad("--state: '%.*s' is not a state (valid: mem, freeze)",
				   (int)len, s);
		for (int i = 0; i < o->n_states; i++)
			if (o->states[i] == st)
				return cli_bad("--state: '%s' names %s twice (valid: mem, freeze, each at most once)",
					   arg, st);
		/* two distinct names fit: duplicates were refused above */
		o->states[o->n_states++] = st;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int parse_dirty(const char *arg, struct lab_opts *o)
{
	const char *s = arg;
	char a[32];

	o->n_dirty = 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		char *tok = strndup(s, len);
		uint64_t v;
		bool ok;

		if (!tok)
			return cli_bad("--dirty: out of memory");
		ok = cli_size(tok, &v);
		free(tok);
		/* a malformed size and an overflowing one both fail above;
		 * only the first is a typo */
		if (!ok && (!len || !isdigit((unsigned char)*s) ||
			    strspn(s, "0123456789") < len - 1 ||
			    !strchr("0123456789kKmMgG", s[len - 1])))
			return cli_bad("--dirty: '%.*s' is not a size (valid: 0 to 4G, suffix K, M or G)",
				   (int)len, s);
		if (!ok || v > DIRTY_MAX)
			return cli_bad("--dirty: '%.*s' is out of range (valid: 0 to 4G)",
				   (int)len, s);
		for (int i = 0; i < o->n_dirty; i++)
			if (o->dirty[i] == v)
				return cli_bad("--dirty: '%s' gives %s twice (valid: 1 to %d distinct sizes, each 0 to 4G)",
					   arg, cli_fmt_size(a, sizeof(a), v),
					   LAB_MAX_DIRTY);
		if (o->n_dirty == LAB_MAX_DIRTY)
			return cli_bad("--dirty: '%s' has more than %d sizes (valid: 1 to %d distinct sizes, each 0 to 4G)",
				   arg, LAB_MAX_DIRTY, LAB_MAX_DIRTY);
		o->dirty[o->n_dirty++] = v;
		if (!s[len])
			break;
		s += len + 1;
	}
	return 0;
}

static int parse_sync(const char *arg, struct lab_opts *o)
{
	o->n_syncs = 0;
	if (!strcmp(arg, "0") || !strcmp(arg, "both"))
		o->syncs[o->n_syncs++] = 0;
	if (!strcmp(arg, "1") || !strcmp(arg, "both"))
		o->syncs[o->n_syncs++] = 1;
	if (!o->n_syncs)
		return cli_bad("--sync: '%s' is not a sync setting (valid: 0, 1, both)",
			   arg);
	return 0;
}

static int parse_workloads(const char *arg, struct lab_opts *o)
{
	const char *s = arg;

	o->n_workloads = 0;
	if (!strcmp(arg, "all")) {
		for (const struct workload *w = workloads; w->name; w++)
			o->workloads[o->n_workloads++] = w;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(s, ",");
		char name[32];
		const struct workload *w;

		snprintf(name, sizeof(name), "%.*s", (int)(len < 31 ? len : 31), s);
		w = len < 31 ? workload_by_name(name) : NULL;
		if (!w && !strcmp(name, "all"))
			return cli_bad("--workload: '%s': 'all' cannot be combined with other names (valid: %s, each at most once, or all alone)",
				       arg, workload_names());
		if (!w)
			return cli_bad("--workload: '%.*s' is not a workload (valid: %s, all)",
				       (int)len, s, workload_names());
		for (int i = 0; i < o->n_workloads; i++)
			if (o->workloads[i] == w)
				return cli_bad("--workload: '%s' names %s twice (valid: each at most once)",
					       arg, w->name);
		o->workloads[o->n_workloads++] = w;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

static int parse_writeback(const char *arg, struct lab_opts *o)
{
	o->n_wbs = 0;
	if (!strcmp(arg, "held") || !strcmp(arg, "both"))
		o->wbs[o->n_wbs++] = WB_HELD;
	if (!strcmp(arg, "default") || !strcmp(arg, "both"))
		o->wbs[o->n_wbs++] = WB_DEFAULT;
	return o->n_wbs ? 0 :
	       cli_bad("--writeback: '%s' is not a writeback mode (valid: held, default, both)", arg);
}

static void usage(void)
{
	printf("Usage: suspend-lab [options]\n"
	       "Boots a Linux guest in QEMU and measures suspend latency for each\n"
	       "state x sync x workload x writeback x size configuration.\n\n"
	       "Options:\n"
	       " -s, --state LIST         states to test, comma-separated: mem, freeze\n"
	       "                          (default mem,freeze)\n"
	       " -c, --cycles N           cycles per configuration, 1 to 1000 (default 3)\n"
	       " -d, --dirty LIST         bytes the workload writes before each suspend\n"
	       "                          (held writeback: all of it still dirty),\n"
	       "                          1 to 16 distinct sizes, each 0 to 4G, suffix\n"
	       "                          K, M or G; with --mem, at most a quarter of it\n"
	       "                          (default 0,64M,256M)\n"
	       "     --sync 0|1|both      suspend sync off, on or both (default both)\n"
	       " -m, --mem MIB            guest RAM, 256 to 65536 MiB (default: four\n"
	       "                          times the largest dirty size plus 512, at\n"
	       "                          least 2048)\n"
	       " -w, --workload LIST      what writes before each suspend, comma-separated,\n"
	       "                          or all (default bigfile):\n");
	for (const struct workload *w = workloads; w->name; w++)
		printf("                            %-10s %s\n", w->name, w->what);
	printf("     --writeback MODE     held (dirty data stays in RAM until the sync),\n"
	       "                          default (the kernel's vm.dirty_*, the request\n"
	       "                          at a seeded random moment) or both (default held)\n"
	       "     --request-window MS  default writeback: the request comes within MS\n"
	       "                          of the workload's start, 0 to 600000 (default 10000)\n"
	       "     --runtime S          mixed runs S seconds, fsync-log at most S seconds,\n"
	       "                          1 to 3600 (default 10)\n"
	       "     --seed N             request moments, 0 to 4294967295 (default 1)\n"
	       "     --stall-retries N    a cycle the host took (HostStall) is measured\n"
	       "                          again up to N times, 0 to 20 (default 3)\n"
	       "     --test-resume-delay MS  test-only: the agent waits MS before\n"
	       "                          reporting the resume\n");
	hx_opts_usage(stdout);
}

static void set_defaults(struct lab_opts *o)
{
	memset(o, 0, sizeof(*o));
	hx_opts_defaults(&o->hx);
	o->states[0] = "mem";
	o->states[1] = "freeze";
	o->n_states = 2;
	o->syncs[0] = 0;
	o->syncs[1] = 1;
	o->n_syncs = 2;
	o->dirty[0] = 0;
	o->dirty[1] = 64 * MIB;
	o->dirty[2] = 256 * MIB;
	o->n_dirty = 3;
	o->cycles = 3;
	o->workloads[0] = workload_by_name("bigfile");
	o->n_workloads = 1;
	o->wbs[0] = WB_HELD;
	o->n_wbs = 1;
	o->window_ms = 10000;
	o->runtime_s = 10;
	o->seed = 1;
	o->stall_retries = LAB_STALL_RETRIES;
}

static int handle(int c, const char *arg, void *ctx)
{
	struct lab_opts *o = ctx;
	long long v;
	int rc = hx_opts_handle(&o->hx, c, arg);

	if (rc >= 0)
		return rc;
	switch (c) {
	case 's':
		return parse_states(arg, o);
	case 'c':
		rc = cli_int("cycles", arg, 1, CYCLES_MAX, &v);
		if (!rc)
			o->cycles = v;
		return rc;
	case 'd':
		return parse_dirty(arg, o);
	case OPT_SYNC:
		return parse_sync(arg, o);
	case 'm':
		rc = cli_int("mem", arg, MEM_MIN, MEM_MAX, &v);
		if (!rc)
			o->mem_mb = v;
		return rc;
	case OPT_RESUME_DELAY:
		rc = cli_int("test-resume-delay", arg, 0, 60000, &v);
		if (!rc)
			o->resume_delay_ms = v;
		return rc;
	case 'w':
		return parse_workloads(arg, o);
	case OPT_WRITEBACK:
		return parse_writeback(arg, o);
	case OPT_WINDOW:
		rc = cli_int("request-window", arg, 0, 600000, &v);
		if (!rc)
			o->window_ms = v;
		return rc;
	case OPT_RUNTIME:
		rc = cli_int("runtime", arg, 1, 3600, &v);
		if (!rc)
			o->runtime_s = v;
		return rc;
	case OPT_SEED:
		rc = cli_int("seed", arg, 0, 4294967295LL, &v);
		if (!rc)
			o->seed = v;
		return rc;
	case OPT_STALL_RETRIES:
		rc = cli_int("stall-retries", arg, 0, LAB_STALL_RETRIES_MAX, &v);
		if (!rc)
			o->stall_retries = v ? v : LAB_STALL_NO_RETRY;
		return rc;
	default:
		return cli_bad("unknown option (try --help)");
	}
}

/* Options that depend on each other, once all of them are known. */
static int check(const struct lab_opts *o)
{
	char a[32], b[32];

	if (o->mem_mb) {
		/* the guest needs room to hold the dirty pages and still run */
		uint64_t lim = (uint64_t)o->mem_mb * MIB / 4;

		for (int i = 0; i < o->n_dirty; i++)
			if (o->dirty[i] > lim)
				return cli_bad("--dirty: '%s' is more than a quarter of --mem %d (valid: 0 to %s)",
					       cli_fmt_size(a, sizeof(a), o->dirty[i]),
					       o->mem_mb, cli_fmt_size(b, sizeof(b), lim));
	}
	if (!o->hx.kernel)
		return cli_bad("no kernel: give --kernel or KERNEL=");
	if (!o->hx.initrd)
		return cli_bad("no initrd: give --initrd or INITRD=");
	return 0;
}

int lab_parse_args(int argc, char **argv, struct lab_opts *o)
{
	static const struct cli cl = {
		.longopts = longopts, .shortopts = shortopts,
		.valid_of = valid_of, .handle = handle, .usage = usage,
	};
	int rc;

	cli_prog = "suspend-lab";
	set_defaults(o);
	rc = cli_parse(&cl, argc, argv, o);
	return rc ? rc : check(o);
}

/* crash-states command line, on the harness's shared options. */
#include <stdio.h>
#include <string.h>

#include "crash.h"

#define MIB (1024ULL * 1024)

enum {
	OPT_SYNC = 0x500,
	OPT_SEED,
	OPT_GAP,
	OPT_PREFIXES,
	OPT_PER_BOOT,
	OPT_SHARD,
	OPT_REC,
	OPT_DROP,
	OPT_CYCLE,
	OPT_NAME,
	OPT_IMAGE,
};

static const struct option longopts[] = {
	{ "state",	required_argument, NULL, 's' },
	{ "sync",	required_argument, NULL, OPT_SYNC },
	{ "cycles",	required_argument, NULL, 'c' },
	{ "size",	required_argument, NULL, 'S' },
	{ "seed",	required_argument, NULL, OPT_SEED },
	{ "gap-states",	required_argument, NULL, OPT_GAP },
	{ "prefixes",	required_argument, NULL, OPT_PREFIXES },
	{ "per-boot",	required_argument, NULL, OPT_PER_BOOT },
	{ "shard",	required_argument, NULL, OPT_SHARD },
	{ "rec",	required_argument, NULL, OPT_REC },
	{ "drop-flush",	no_argument,	   NULL, OPT_DROP },
	{ "cycle",	required_argument, NULL, OPT_CYCLE },
	{ "name",	required_argument, NULL, OPT_NAME },
	{ "image",	required_argument, NULL, OPT_IMAGE },
	HX_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

static const char shortopts[] = ":s:c:S:" HX_SHORTOPTS;

/* The subcommands each option does something for; others refuse it. */
enum { C_ALL = 1, C_RECORD = 2, C_JUDGE = 4, C_MERGE = 8, C_REPLAY = 16 };
#define C_BOOTS (C_ALL | C_RECORD | C_JUDGE)

static const struct {
	const char *name;
	unsigned cmds;
} applies[] = {
	{ "state", C_ALL | C_RECORD }, { "sync", C_ALL | C_RECORD },
	{ "cycles", C_ALL | C_RECORD }, { "size", C_ALL | C_RECORD },
	{ "seed", C_BOOTS },			/* the dataset's, and the sampling's */
	{ "gap-states", C_ALL | C_JUDGE }, { "prefixes", C_ALL | C_JUDGE },
	{ "per-boot", C_ALL | C_JUDGE }, { "drop-flush", C_ALL | C_JUDGE },
	{ "shard", C_JUDGE },			/* all judges and reports the whole run */
	{ "rec", C_BOOTS | C_REPLAY },
	{ "cycle", C_REPLAY }, { "name", C_REPLAY }, { "image", C_REPLAY },
	{ "kernel", C_BOOTS }, { "initrd", C_BOOTS }, { "tools-disk", C_BOOTS },
	{ "out", C_BOOTS | C_MERGE | C_REPLAY },
	{ "profile", C_ALL | C_RECORD },	/* judging reads it from the recording */
	{ "firmware", C_BOOTS }, { "accel", C_BOOTS }, { "timeout-scale", C_BOOTS },
	{ "show-command", C_ALL | C_RECORD }, { "keep-logs", C_BOOTS },
	{ "drive-model", 0 },			/* the logged disk never has nbdkit */
	{ "quiet", C_BOOTS },
	{ "fs", C_ALL | C_RECORD },		/* judging reads it from the recording */
};

static void mark_given(struct cs_opts *o, int c)
{
	for (int i = 0; longopts[i].name; i++)
		if (longopts[i].val == c && i < 64)
			o->given |= 1ULL << i;
}

/* 0, or 2 after one line naming the first option that does nothing here. */
static int check_applies(const struct cs_opts *o, unsigned cmd)
{
	for (int i = 0; longopts[i].name; i++) {
		if (!(o->given & (1ULL << i)))
			continue;
		for (size_t k = 0; k < sizeof(applies) / sizeof(applies[0]); k++)
			if (!strcmp(applies[k].name, longopts[i].name) && !(applies[k].cmds & cmd))
				return cli_bad("--%s does not apply to crash-states %s (try --help)",
					       longopts[i].name, o->cmd);
	}
	return 0;
}

static const char *valid_of(int val)
{
	const char *v = hx_opts_valid(val);

	if (v)
		return v;
	switch (val) {
	case 's': return "mem, freeze";
	case OPT_SYNC: return "0, 1, both";
	case 'c': return "1 to 100";
	case 'S': return "1M to 256M";
	case OPT_SEED: return "0 to 4294967295";
	case OPT_GAP: return "0 to 64";
	case OPT_PREFIXES: return "0 to 100000, or all";
	case OPT_PER_BOOT: return "1 to 24";
	case OPT_SHARD: return "K/N, 1 <= K <= N <= 1000";
	case OPT_CYCLE: return "1 to 1000";
	case OPT_NAME: return "a state name: F<p>, P<p>, G<a>-<p>.<k>s<seed>, D<f>@<p>";
	default: return "a value";
	}
}

static void usage(void)
{
	printf("Usage: crash-states [all|record|judge|merge|replay] [options]\n"
	       "Records every write of a suspend cycle (QEMU blklogwrites), builds the disk\n"
	       "as it stood at each crash point, and judges every state with the power-cut\n"
	       "oracle, many per guest boot.\n\n"
	       "  all      record, judge and report (default)\n"
	       "  record   record the cycles into --rec\n"
	       "  judge    judge the states of shard --shard K/N: <out>/crash-shard-K-of-N.json\n"
	       "  merge    combine <out>/crash-shard-*.json into the report\n"
	       "  replay   build one state's image: --cycle N --name NAME --image PATH\n\n"
	       " -s, --state mem|freeze   suspend state (default mem)\n"
	       "     --sync 0|1|both      suspend_sync settings (default both)\n"
	       " -c, --cycles N           recorded cycles per setting, 1 to 100 (default 1)\n"
	       " -S, --size SIZE          largest file of the dataset, 1M to 256M (default 4M)\n"
	       "     --seed N             dataset and sampling seed (default 1)\n"
	       "     --gap-states N       states per gap between flushes, 0 to 64 (default 3)\n"
	       "     --prefixes N|all     no-cache states per cycle, 0 to 100000 (default 16)\n"
	       "     --per-boot N         states judged per guest boot, 1 to 24 (default 16)\n"
	       "     --shard K/N          judge every N-th state from the K-th (default 1/1)\n"
	       "     --rec DIR            recordings (default <out>/crash-rec)\n"
	       "     --drop-flush         test-only: add states that drop a flush's ordering\n"
	       "An option that does nothing for the subcommand is refused (--shard is judge's);\n"
	       "so is --fs all: a recording holds one filesystem, so give --fs NAME per --out.\n"
	       "Exit status: 0 done; 1 a cycle not recorded, a state not judged or a result\n"
	       "not written; 2 bad input (options, recordings, --image, shards).\n\n");
	hx_opts_usage(stdout);
}

static int handle(int c, const char *arg, void *ctx)
{
	struct cs_opts *o = ctx;
	uint64_t size;
	long long v;
	int rc, k, n, end = -1;

	mark_given(o, c);
	rc = hx_opts_handle(&o->hx, c, arg);
	if (rc >= 0)
		return rc;
	switch (c) {
	case 's':
		if (strcmp(arg, "mem") && strcmp(arg, "freeze"))
			return cli_bad("--state: '%s' is not a state (valid: mem, freeze)", arg);
		o->state = !strcmp(arg, "mem") ? "mem" : "freeze";
		return 0;
	case OPT_SYNC:
		if (!strcmp(arg, "both"))
			o->syncs = 3;
		else if (!strcmp(arg, "0") || !strcmp(arg, "1"))
			o->syncs = 1 << (arg[0] - '0');
		else
			return cli_bad("--sync: '%s' is not a sync setting (valid: 0, 1, both)", arg);
		return 0;
	case 'c':
		rc = cli_int("cycles", arg, 1, 100, &v);
		o->cycles = rc ? o->cycles : v;
		return rc;
	case 'S':
		if (!cli_size(arg, &size) || size < MIB || size > 256 * MIB)
			return cli_bad("--size: '%s' is not a size from 1M to 256M (valid: 1M to 256M)",
				       arg);
		o->big_bytes = size;
		return 0;
	case OPT_SEED:
		rc = cli_int("seed", arg, 0, 4294967295LL, &v);
		o->seed = rc ? o->seed : v;
		o->model.seed = o->seed;
		return rc;
	case OPT_GAP:
		rc = cli_int("gap-states", arg, 0, 64, &v);
		o->model.gap_states = rc ? o->model.gap_states : v;
		return rc;
	case OPT_PREFIXES:
		if (!strcmp(arg, "all")) {
			o->model.prefixes = -1;
			return 0;
		}
		rc = cli_int("prefixes", arg, 0, 100000, &v);
		o->model.prefixes = rc ? o->model.prefixes : v;
		return rc;
	case OPT_PER_BOOT:
		rc = cli_int("per-boot", arg, 1, CS_MAX_PER_BOOT, &v);
		o->per_boot = rc ? o->per_boot : v;
		return rc;
	case OPT_SHARD:
		if (sscanf(arg, "%d/%d%n", &k, &n, &end) != 2 || end < 0 || arg[end] ||
		    arg[0] < '0' || arg[0] > '9' || k < 1 || n < 1 || k > n || n > 1000)
			return cli_bad("--shard: '%s' is not a shard (valid: K/N, 1 <= K <= N <= 1000)",
				       arg);
		o->shard_k = k;
		o->shard_n = n;
		return 0;
	case OPT_REC:
		return cli_path("rec", arg, &o->rec_dir);
	case OPT_DROP:
		o->drop_flush = true;
		return 0;
	case OPT_CYCLE:
		rc = cli_int("cycle", arg, 1, 1000, &v);
		o->replay_cycle = rc ? o->replay_cycle : v;
		return rc;
	case OPT_NAME: {
		struct cs_state s;

		if (cs_parse(arg, &s))
			return cli_bad("--name: '%s' is not a state name (valid: %s)", arg,
				       valid_of(OPT_NAME));
		o->replay_state = arg;
		return 0;
	}
	case OPT_IMAGE:
		return cli_path("image", arg, &o->replay_image);
	default:
		return cli_bad("unknown option (try --help)");
	}
}

int cs_parse_args(int argc, char **argv, struct cs_opts *o)
{
	static const struct cli cl = {
		.longopts = longopts, .shortopts = shortopts,
		.valid_of = valid_of, .handle = handle, .usage = usage,
	};
	static const char *const cmds[] = { "all", "record", "judge", "merge", "replay" };
	static char rec[CS_PATH_MAX + 16];
	unsigned cmd = C_ALL;
	int rc;

	cli_prog = "crash-states";
	memset(o, 0, sizeof(*o));
	hx_opts_defaults(&o->hx);
	o->cmd = "all";
	o->state = "mem";
	o->syncs = 3;
	o->cycles = 1;
	o->big_bytes = 4 * MIB;
	o->seed = 1;
	o->model = (struct cs_model){ .gap_states = 3, .prefixes = 16, .seed = 1 };
	o->per_boot = 16;
	o->shard_k = o->shard_n = 1;
	if (argc > 1 && argv[1][0] != '-') {
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[1], cmds[i])) {
				o->cmd = cmds[i];
				cmd = 1U << i;
			}
		if (strcmp(argv[1], o->cmd))
			return cli_bad("'%s' is not a command (valid: all, record, judge, merge, replay)",
				       argv[1]);
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	rc = cli_parse(&cl, argc, argv, o);
	if (rc || (rc = check_applies(o, cmd)))
		return rc;
	if (o->hx.fs_all)
		return cli_bad("--fs all: a recording holds one filesystem; give --fs NAME per --out");
	/* every path crash-states makes fits its buffers, or nothing starts */
	if (strlen(o->hx.out_dir) > CS_PATH_MAX)
		return cli_bad("--out: the path is %zu bytes (valid: at most %d)",
			       strlen(o->hx.out_dir), CS_PATH_MAX);
	if (o->rec_dir && strlen(o->rec_dir) > CS_PATH_MAX)
		return cli_bad("--rec: the path is %zu bytes (valid: at most %d)",
			       strlen(o->rec_dir), CS_PATH_MAX);
	if (o->replay_image && strlen(o->replay_image) > CS_PATH_MAX)
		return cli_bad("--image: the path is %zu bytes (valid: at most %d)",
			       strlen(o->replay_image), CS_PATH_MAX);
	if (!o->rec_dir) {
		snprintf(rec, sizeof(rec), "%s/crash-rec", o->hx.out_dir);
		o->rec_dir = rec;
	}
	if (!strcmp(o->cmd, "replay") && (!o->replay_cycle || !o->replay_state || !o->replay_image))
		return cli_bad("replay needs --cycle N, --name NAME and --image PATH");
	if (strcmp(o->cmd, "merge") && strcmp(o->cmd, "replay")) {
		if (!o->hx.kernel)
			return cli_bad("no kernel: give --kernel or KERNEL=");
		if (!o->hx.initrd)
			return cli_bad("no initrd: give --initrd or INITRD=");
	}
	return 0;
}

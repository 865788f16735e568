/* power-cut command line, on the harness's shared options. */
#include <stdio.h>
#include <string.h>

#include "powercut.h"

#define MIB (1024ULL * 1024)

enum {
	OPT_SYNC = 0x500,
	OPT_CUT_OFFSET,
	OPT_SEED,
	OPT_TAMPER,
};

static const struct option longopts[] = {
	{ "state",	required_argument, NULL, 's' },
	{ "sync",	required_argument, NULL, OPT_SYNC },
	{ "cut",	required_argument, NULL, 'x' },
	{ "cut-offset",	required_argument, NULL, OPT_CUT_OFFSET },
	{ "cycles",	required_argument, NULL, 'c' },
	{ "size",	required_argument, NULL, 'S' },
	{ "seed",	required_argument, NULL, OPT_SEED },
	{ "tamper",	required_argument, NULL, OPT_TAMPER },
	HX_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

static const char shortopts[] = ":s:x:c:S:" HX_SHORTOPTS;

static const char *valid_of(int val)
{
	const char *v = hx_opts_valid(val);

	if (v)
		return v;
	switch (val) {
	case 's': return "mem, freeze";
	case OPT_SYNC: return "0, 1, both";
	case 'x': return "request, sync, suspended, mix";
	case OPT_CUT_OFFSET: return "0 to 600000 ms, or random";
	case 'c': return "1 to 1000";
	case 'S': return "1M to 1G";
	case OPT_SEED: return "0 to 4294967295";
	case OPT_TAMPER: return "none, manifest, image";
	default: return "a value";
	}
}

static void usage(void)
{
	printf("Usage: power-cut [options]\n"
	       "Writes a known dataset in the guest, suspends, kills QEMU (the battery\n"
	       "dies), boots again on the same disk and judges every byte.\n\n"
	       " -s, --state mem|freeze      suspend state (default mem)\n"
	       "     --sync 0|1|both         suspend_sync during the cut (default both)\n"
	       " -x, --cut POINT             request, sync, suspended or mix (default suspended)\n"
	       "     --cut-offset MS|random  for --cut sync: ms after the request,\n"
	       "                             0 to 600000 (default random)\n"
	       " -c, --cycles N              cuts per sync setting, 1 to 1000 (default 3)\n"
	       " -S, --size SIZE             largest file of the dataset, 1M to 1G (default 16M)\n"
	       "     --seed N                dataset and offset seed, 0 to 4294967295 (default 1)\n"
	       "     --tamper none|manifest|image  damage the oracle must see (self-test)\n");
	hx_opts_usage(stdout);
}

static int handle(int c, const char *arg, void *ctx)
{
	struct pc_opts *o = ctx;
	uint64_t size;
	long long v;
	int rc = hx_opts_handle(&o->hx, c, arg);

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
	case 'x':
		o->mix = !strcmp(arg, "mix");
		for (o->cut = 0; !o->mix && o->cut < CUT__COUNT &&
		     strcmp(arg, cut_name(o->cut)); o->cut++)
			;
		if (!o->mix && o->cut == CUT__COUNT)
			return cli_bad("--cut: '%s' is not a cut point (valid: request, sync, suspended, mix)",
				       arg);
		return 0;
	case OPT_CUT_OFFSET:
		o->offset_given = true;
		if (!strcmp(arg, "random")) {
			o->cut_offset_ms = -1;
			return 0;
		}
		rc = cli_int("cut-offset", arg, 0, 600000, &v);
		if (!rc)
			o->cut_offset_ms = v;
		return rc;
	case 'c':
		rc = cli_int("cycles", arg, 1, 1000, &v);
		if (!rc)
			o->cycles = v;
		return rc;
	case 'S':
		if (!cli_size(arg, &size) || size < MIB || size > 1024 * MIB)
			return cli_bad("--size: '%s' is not a size from 1M to 1G (valid: 1M to 1G)", arg);
		o->big_bytes = size;
		return 0;
	case OPT_SEED:
		rc = cli_int("seed", arg, 0, 4294967295LL, &v);
		if (!rc)
			o->seed = v;
		return rc;
	case OPT_TAMPER:
		if (!strcmp(arg, "none"))
			o->tamper = TAMPER_NONE;
		else if (!strcmp(arg, "manifest"))
			o->tamper = TAMPER_MANIFEST;
		else if (!strcmp(arg, "image"))
			o->tamper = TAMPER_IMAGE;
		else
			return cli_bad("--tamper: '%s' is not a tamper mode (valid: none, manifest, image)", arg);
		return 0;
	default:
		return cli_bad("unknown option (try --help)");
	}
}

int pc_parse_args(int argc, char **argv, struct pc_opts *o)
{
	static const struct cli cl = {
		.longopts = longopts, .shortopts = shortopts,
		.valid_of = valid_of, .handle = handle, .usage = usage,
	};
	int rc;

	cli_prog = "power-cut";
	memset(o, 0, sizeof(*o));
	hx_opts_defaults(&o->hx);
	o->state = "mem";
	o->syncs = 3;
	o->cut = CUT_SUSPENDED;
	o->cut_offset_ms = -1;
	o->cycles = 3;
	o->big_bytes = 16 * MIB;
	o->seed = 1;
	rc = cli_parse(&cl, argc, argv, o);
	if (!rc && !o->hx.kernel)
		rc = cli_bad("no kernel: give --kernel or KERNEL=");
	if (!rc && !o->hx.initrd)
		rc = cli_bad("no initrd: give --initrd or INITRD=");
	if (!rc && o->tamper == TAMPER_IMAGE && (o->hx.fs_all || !o->hx.fs->debugfs))
		rc = cli_bad("--tamper image: needs ext4 (debugfs finds the block to damage), not --fs %s",
			     o->hx.fs_all ? "all" : o->hx.fs->name);
	/* an option that changes nothing is a mistake worth a word */
	if (!rc && o->offset_given && !o->mix && o->cut != CUT_SYNC)
		rc = cli_bad("--cut-offset: applies to --cut sync or mix, not --cut %s",
			     cut_name(o->cut));
	return rc;
}

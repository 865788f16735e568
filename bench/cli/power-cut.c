/* power-cut: command line only; the engine is powercut.c in libslab. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pcreport.h"

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
	       " -p, --profile NAME          disk profile: nvme, sata, emmc, sd, hdd (default emmc)\n"
	       "     --seed N                dataset and offset seed, 0 to 4294967295 (default 1)\n"
	       "     --tamper none|manifest|image  damage the oracle must see (self-test)\n"
	       " -k, --kernel PATH           guest kernel (default $KERNEL)\n"
	       " -i, --initrd PATH           guest initrd (default $INITRD)\n"
	       " -t, --tools-disk PATH       tools image with fio (default $TOOLS_DISK)\n"
	       " -o, --out DIR               results directory (default results)\n"
	       "     --keep-logs             keep the disk images and guest logs\n"
	       " -q, --quiet                 no progress lines\n"
	       " -h, --help                  this text\n");
}

static int bad(const char *opt, const char *val, const char *valid)
{
	fprintf(stderr, "power-cut: %s: '%s' is not valid (valid: %s)\n", opt, val, valid);
	return 2;
}

static bool number(const char *s, long long lo, long long hi, long long *v)
{
	char *end;

	if (!*s)
		return false;
	*v = strtoll(s, &end, 10);
	return !*end && *v >= lo && *v <= hi;
}

static int parse(int argc, char **argv, struct pc_opts *o, int *syncs)
{
	static const struct option opts[] = {
		{ "state", 1, NULL, 's' }, { "sync", 1, NULL, 'Y' },
		{ "cut", 1, NULL, 'x' }, { "cut-offset", 1, NULL, 'O' },
		{ "cycles", 1, NULL, 'c' }, { "size", 1, NULL, 'S' },
		{ "profile", 1, NULL, 'p' }, { "seed", 1, NULL, 'E' },
		{ "tamper", 1, NULL, 'T' }, { "kernel", 1, NULL, 'k' },
		{ "initrd", 1, NULL, 'i' }, { "tools-disk", 1, NULL, 't' },
		{ "out", 1, NULL, 'o' }, { "keep-logs", 0, NULL, 'K' },
		{ "quiet", 0, NULL, 'q' }, { "help", 0, NULL, 'h' }, { 0 },
	};
	long long v;
	uint64_t size;
	int c;

	*o = (struct pc_opts){
		.kernel = getenv("KERNEL"), .initrd = getenv("INITRD"),
		.tools_disk = getenv("TOOLS_DISK"), .out_dir = "results",
		.state = "mem", .cut = CUT_SUSPENDED, .cut_offset_ms = -1,
		.cycles = 3, .big_bytes = 16 << 20, .profile = lab_profile("emmc"),
		.seed = 1,
	};
	*syncs = 3;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":s:x:c:S:p:k:i:t:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (strcmp(optarg, "mem") && strcmp(optarg, "freeze"))
				return bad("--state", optarg, "mem, freeze");
			o->state = optarg;
			break;
		case 'Y':
			if (!strcmp(optarg, "both"))
				*syncs = 3;
			else if (!strcmp(optarg, "0") || !strcmp(optarg, "1"))
				*syncs = 1 << (optarg[0] - '0');
			else
				return bad("--sync", optarg, "0, 1, both");
			break;
		case 'x':
			o->mix = !strcmp(optarg, "mix");
			for (o->cut = 0; !o->mix && o->cut < CUT__COUNT &&
			     strcmp(optarg, cut_name(o->cut)); o->cut++)
				;
			if (!o->mix && o->cut == CUT__COUNT)
				return bad("--cut", optarg, "request, sync, suspended, mix");
			break;
		case 'O':
			if (!strcmp(optarg, "random"))
				o->cut_offset_ms = -1;
			else if (number(optarg, 0, 600000, &v))
				o->cut_offset_ms = v;
			else
				return bad("--cut-offset", optarg, "0 to 600000 ms, or random");
			break;
		case 'c':
			if (!number(optarg, 1, 1000, &v))
				return bad("--cycles", optarg, "1 to 1000");
			o->cycles = v;
			break;
		case 'S':
			if (!lab_parse_size(optarg, &size) || size < (1 << 20) || size > (1ULL << 30))
				return bad("--size", optarg, "1M to 1G");
			o->big_bytes = size;
			break;
		case 'p':
			o->profile = lab_profile(optarg);
			if (!o->profile)
				return bad("--profile", optarg, "nvme, sata, emmc, sd, hdd");
			break;
		case 'E':
			if (!number(optarg, 0, 4294967295LL, &v))
				return bad("--seed", optarg, "0 to 4294967295");
			o->seed = v;
			break;
		case 'T':
			if (!strcmp(optarg, "none"))
				o->tamper = TAMPER_NONE;
			else if (!strcmp(optarg, "manifest"))
				o->tamper = TAMPER_MANIFEST;
			else if (!strcmp(optarg, "image"))
				o->tamper = TAMPER_IMAGE;
			else
				return bad("--tamper", optarg, "none, manifest, image");
			break;
		case 'k': o->kernel = optarg; break;
		case 'i': o->initrd = optarg; break;
		case 't': o->tools_disk = optarg; break;
		case 'o': o->out_dir = optarg; break;
		case 'K': o->keep_logs = true; break;
		case 'q': o->quiet = true; break;
		case 'h':
			usage();
			return 1;
		case ':':
			fprintf(stderr, "power-cut: %s needs a value (see --help)\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "power-cut: unknown option '%s' (see --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "power-cut: unexpected argument '%s' (options only)\n", argv[optind]);
		return 2;
	}
	if (!o->kernel || !o->initrd || !o->tools_disk) {
		fprintf(stderr, "power-cut: need a kernel, an initrd and a tools disk (--kernel/KERNEL, --initrd/INITRD, --tools-disk/TOOLS_DISK)\n");
		return 2;
	}
	return 0;
}

static void on_signal(int sig)
{
	pc_emergency_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	struct pc_opts o;
	struct pc_run run = { .o = &o };
	char path[1024];
	int syncs, rc, failed = 0;
	time_t t = time(NULL);

	rc = parse(argc, argv, &o, &syncs);
	if (rc)
		return rc == 1 ? 0 : 2;
	if (mkdir(o.out_dir, 0755) && access(o.out_dir, W_OK)) {
		fprintf(stderr, "power-cut: --out: cannot use '%s'\n", o.out_dir);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	strftime(run.date, sizeof(run.date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	run.rec = calloc(2 * o.cycles, sizeof(*run.rec));
	if (!run.rec)
		return 1;
	/* alternate the settings, so drift hits both alike */
	for (int i = 0; i < o.cycles; i++)
		for (int sync = 0; sync <= 1; sync++) {
			struct pc_record *r = &run.rec[run.n];

			if (!(syncs & (1 << sync)))
				continue;
			o.sync = sync;
			pc_cycle(&o, run.n, r);
			failed += r->verdict != VERDICT_OK;
			run.n++;
			if (!o.quiet)
				fprintf(stderr, "power-cut: [%d/%d] %s sync=%d cut=%s%s: %s, %llu of %llu bytes lost, fsync'd %s, fs %s\n",
					run.n, o.cycles * ((syncs & 1) + (syncs >> 1)), o.state, sync,
					cut_name(r->cut), r->cut == CUT_SYNC ? "+offset" : "",
					verdict_name(r->verdict), (unsigned long long)r->bytes_lost,
					(unsigned long long)r->bytes_written,
					r->fsync_intact ? "intact" : "NOT intact",
					r->fs_clean ? "clean" : "NOT clean");
		}
	pc_report_table(stdout, &run);
	snprintf(path, sizeof(path), "%s/powercut.json", o.out_dir);
	failed += pc_report_json(path, &run) != 0;
	snprintf(path, sizeof(path), "%s/powercut.csv", o.out_dir);
	failed += pc_report_csv(path, &run) != 0;
	fprintf(stderr, "power-cut: wrote %s/powercut.{json,csv}\n", o.out_dir);
	free(run.rec);
	return failed ? 1 : 0;
}

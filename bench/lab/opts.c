/*
 * suspend-lab command line: one struct lab_opts filled from defaults, the
 * environment (KERNEL, INITRD, TOOLS_DISK) and getopt_long, in the manner
 * of util-linux rtcwake. Every rejection is a single stderr line that names
 * the option and the value and restates what would have been accepted, so
 * a script's log says how to fix the call without a trip to --help.
 */
#define _GNU_SOURCE	/* vasprintf */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)

#define CYCLES_MIN 1
#define CYCLES_MAX 1000
#define MEM_MIN 256
#define MEM_MAX 16384
#define SCALE_MIN 1
#define SCALE_MAX 100
#define DIRTY_MAX (4 * GIB)

/* Write side only: the suspend sync is all writes. */
const struct disk_profile lab_profiles[] = {
	{ "nvme", "fast NVMe: no throttling", 0, 0 },
	{ "sata", "SATA SSD", 450 * MIB, 40000 },
	{ "emmc", "eMMC on a small laptop or tablet", 20 * MIB, 2000 },
	{ "sd", "SD card (class 10)", 10 * MIB, 300 },
	{ "hdd", "laptop hard disk", 100 * MIB, 150 },
	{ NULL },
};

const struct disk_profile *lab_profile(const char *name)
{
	const struct disk_profile *p;

	if (!name)
		return NULL;
	for (p = lab_profiles; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

bool lab_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0;
	int shift = 0;

	/* strtoull would take spaces, signs and hex; none belong here */
	if (!s || !isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int d = *s - '0';

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	switch (*s) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return false;
	}
	if (shift && *++s)
		return false;
	if (v > UINT64_MAX >> shift)
		return false;
	*bytes = v << shift;
	return true;
}

/*
 * One line, whatever the value holds: control characters (a newline in a
 * quoted shell argument, say) are shown as '?' so the message cannot split.
 */
__attribute__((format(printf, 1, 2)))
static int bad(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0) {
		fputs("suspend-lab: bad arguments\n", stderr);
		return 2;
	}
	for (char *p = msg; *p; p++)
		if (iscntrl((unsigned char)*p))
			*p = '?';
	fprintf(stderr, "suspend-lab: %s\n", msg);
	free(msg);
	return 2;
}

/* Sizes in messages as the user would type them. */
static const char *fmt_size(char *buf, size_t n, uint64_t v)
{
	if (v && !(v % GIB))
		snprintf(buf, n, "%lluG", (unsigned long long)(v / GIB));
	else if (v && !(v % MIB))
		snprintf(buf, n, "%lluM", (unsigned long long)(v / MIB));
	else if (v && !(v % 1024))
		snprintf(buf, n, "%lluK", (unsigned long long)(v / 1024));
	else
		snprintf(buf, n, "%llu", (unsigned long long)v);
	return buf;
}

static const char *profile_names(void)
{
	static char buf[128];
	const struct disk_profile *p;
	size_t len = 0;

	if (buf[0])
		return buf;
	for (p = lab_profiles; p->name; p++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				p == lab_profiles ? "" : ", ", p->name);
	return buf;
}

/* Long-only options get values outside the char range. */
enum {
	OPT_SYNC = 256,
	OPT_TIMEOUT_SCALE,
	OPT_SHOW_COMMAND,
	OPT_KEEP_LOGS,
};

static const struct option longopts[] = {
	{ "state",		required_argument, NULL, 's' },
	{ "cycles",		required_argument, NULL, 'c' },
	{ "dirty",		required_argument, NULL, 'd' },
	{ "sync",		required_argument, NULL, OPT_SYNC },
	{ "firmware",		required_argument, NULL, 'f' },
	{ "profile",		required_argument, NULL, 'p' },
	{ "accel",		required_argument, NULL, 'a' },
	{ "mem",		required_argument, NULL, 'm' },
	{ "kernel",		required_argument, NULL, 'k' },
	{ "initrd",		required_argument, NULL, 'i' },
	{ "tools-disk",		required_argument, NULL, 't' },
	{ "out",		required_argument, NULL, 'o' },
	{ "timeout-scale",	required_argument, NULL, OPT_TIMEOUT_SCALE },
	{ "show-command",	no_argument,	   NULL, OPT_SHOW_COMMAND },
	{ "keep-logs",		no_argument,	   NULL, OPT_KEEP_LOGS },
	{ "quiet",		no_argument,	   NULL, 'q' },
	{ "help",		no_argument,	   NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Leading ':' so a missing value comes back as ':' rather than '?'. */
static const char shortopts[] = ":s:c:d:f:p:a:m:k:i:t:o:qh";

static const struct option *opt_of(int val)
{
	const struct option *l;

	for (l = longopts; l->name; l++)
		if (l->val == val)
			return l;
	return NULL;
}

/* What each option accepts, for the missing-value message. */
static const char *valid_of(int val)
{
	switch (val) {
	case 's': return "mem, freeze";
	case 'c': return "1 to 1000";
	case 'd': return "1 to 16 distinct sizes, each 0 to 4G";
	case OPT_SYNC: return "0, 1, both";
	case 'f': return "bios, uefi";
	case 'p': return profile_names();
	case 'a': return "tcg, kvm";
	case 'm': return "256 to 16384";
	case OPT_TIMEOUT_SCALE: return "1 to 100";
	case 'o': return "a directory";
	default: return "a file";
	}
}

/* Decimal only: "1e3", " 5", "0x10" are typos, not numbers. */
static int parse_int(const char *opt, const char *s, long lo, long hi,
		     int *out)
{
	const char *digits = s + (*s == '-');
	long long v;

	if (!*digits || strspn(digits, "0123456789") != strlen(digits))
		return bad("--%s: '%s' is not a number (valid: %ld to %ld)",
			   opt, s, lo, hi);
	errno = 0;
	v = strtoll(s, NULL, 10);
	if (errno == ERANGE || v < lo || v > hi)
		return bad("--%s: '%s' is out of range (valid: %ld to %ld)",
			   opt, s, lo, hi);
	*out = v;
	return 0;
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
			return bad("--state: '%.*s' is not a state (valid: mem, freeze)",
				   (int)len, s);
		for (int i = 0; i < o->n_states; i++)
			if (o->states[i] == st)
				return bad("--state: '%s' names %s twice (valid: mem, freeze, each at most once)",
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
			return bad("--dirty: out of memory");
		ok = lab_parse_size(tok, &v);
		free(tok);
		/* a malformed size and an overflowing one both fail above;
		 * only the first is a typo */
		if (!ok && (!len || !isdigit((unsigned char)*s) ||
			    strspn(s, "0123456789") < len - 1 ||
			    !strchr("0123456789kKmMgG", s[len - 1])))
			return bad("--dirty: '%.*s' is not a size (valid: 0 to 4G, suffix K, M or G)",
				   (int)len, s);
		if (!ok || v > DIRTY_MAX)
			return bad("--dirty: '%.*s' is out of range (valid: 0 to 4G)",
				   (int)len, s);
		for (int i = 0; i < o->n_dirty; i++)
			if (o->dirty[i] == v)
				return bad("--dirty: '%s' gives %s twice (valid: 1 to %d distinct sizes, each 0 to 4G)",
					   arg, fmt_size(a, sizeof(a), v),
					   LAB_MAX_DIRTY);
		if (o->n_dirty == LAB_MAX_DIRTY)
			return bad("--dirty: '%s' has more than %d sizes (valid: 1 to %d distinct sizes, each 0 to 4G)",
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
		return bad("--sync: '%s' is not a sync setting (valid: 0, 1, both)",
			   arg);
	return 0;
}

static int parse_path(const char *opt, const char *arg, const char **out)
{
	if (!*arg)
		return bad("--%s: '' is empty (valid: %s path)", opt,
			   strcmp(opt, "out") ? "a file" : "a directory");
	*out = arg;
	return 0;
}

/* An empty KERNEL= is as good as none: it cannot name a file. */
static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static void usage(void)
{
	const struct disk_profile *p;

	printf("Usage: suspend-lab [options]\n"
	       "Boots a Linux guest in QEMU and measures suspend latency for each\n"
	       "state x sync x dirty-size configuration.\n\n"
	       "Options:\n"
	       " -s, --state LIST         states to test, comma-separated: mem, freeze\n"
	       "                          (default mem,freeze)\n"
	       " -c, --cycles N           cycles per configuration, 1 to 1000 (default 3)\n"
	       " -d, --dirty LIST         page cache to dirty before each suspend,\n"
	       "                          1 to 16 distinct sizes, each 0 to 4G, suffix\n"
	       "                          K, M or G; with --mem, at most a quarter of it\n"
	       "                          (default 0,64M,256M)\n"
	       "     --sync 0|1|both      suspend sync off, on or both (default both)\n"
	       " -f, --firmware bios|uefi guest firmware (default bios)\n"
	       " -p, --profile NAME       disk profile, see below (default emmc)\n"
	       " -a, --accel tcg|kvm      QEMU accelerator (default tcg)\n"
	       " -m, --mem MIB            guest RAM, 256 to 16384 MiB\n"
	       "                          (default: sized from the dirty list)\n"
	       " -k, --kernel PATH        guest kernel (default $KERNEL; required)\n"
	       " -i, --initrd PATH        guest initrd (default $INITRD; required)\n"
	       " -t, --tools-disk PATH    read-only tools image (default $TOOLS_DISK)\n"
	       " -o, --out DIR            results directory (default results)\n"
	       "     --timeout-scale N    multiply every timeout, 1 to 100 (default 1)\n"
	       "     --show-command       print the QEMU command line\n"
	       "     --keep-logs          keep the guest and QEMU logs\n"
	       " -q, --quiet              no progress lines\n"
	       " -h, --help               this text\n\n"
	       "Disk profiles (write throttling):\n");
	for (p = lab_profiles; p->name; p++) {
		char lim[48];

		if (p->write_bps || p->write_iops)
			snprintf(lim, sizeof(lim), "%llu MiB/s, %llu IOPS",
				 (unsigned long long)(p->write_bps / MIB),
				 (unsigned long long)p->write_iops);
		else
			snprintf(lim, sizeof(lim), "unthrottled");
		printf("  %-5s %-22s %s\n", p->name, lim, p->what);
	}
}

static void set_defaults(struct lab_opts *o)
{
	memset(o, 0, sizeof(*o));
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
	o->firmware = VM_FW_BIOS;
	o->profile = lab_profile("emmc");
	o->accel = "tcg";
	o->mem_mb = 0;
	o->out_dir = "results";
	o->timeout_scale = 1;
	o->kernel = env("KERNEL");
	o->initrd = env("INITRD");
	o->tools_disk = env("TOOLS_DISK");
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
				return bad("--dirty: '%s' is more than a quarter of --mem %d (valid: 0 to %s)",
					   fmt_size(a, sizeof(a), o->dirty[i]),
					   o->mem_mb, fmt_size(b, sizeof(b), lim));
	}
	if (!o->kernel)
		return bad("no kernel: give --kernel or KERNEL=");
	if (!o->initrd)
		return bad("no initrd: give --initrd or INITRD=");
	return 0;
}

int lab_parse_args(int argc, char **argv, struct lab_opts *o)
{
	const struct option *l;
	int c, rc = 0;

	set_defaults(o);
	optind = 0;	/* glibc: full reset, so tests can parse again */
	opterr = 0;	/* our own one-line messages instead */

	while (!rc && (c = getopt_long(argc, argv, shortopts, longopts,
				       NULL)) != -1) {
		switch (c) {
		case 's':
			rc = parse_states(optarg, o);
			break;
		case 'c':
			rc = parse_int("cycles", optarg, CYCLES_MIN, CYCLES_MAX,
				       &o->cycles);
			break;
		case 'd':
			rc = parse_dirty(optarg, o);
			break;
		case OPT_SYNC:
			rc = parse_sync(optarg, o);
			break;
		case 'f':
			if (!strcmp(optarg, "bios"))
				o->firmware = VM_FW_BIOS;
			else if (!strcmp(optarg, "uefi"))
				o->firmware = VM_FW_UEFI;
			else
				rc = bad("--firmware: '%s' is not a firmware (valid: bios, uefi)",
					 optarg);
			break;
		case 'p':
			o->profile = lab_profile(optarg);
			if (!o->profile)
				rc = bad("--profile: '%s' is not a profile (valid: %s)",
					 optarg, profile_names());
			break;
		case 'a':
			if (!strcmp(optarg, "tcg"))
				o->accel = "tcg";
			else if (!strcmp(optarg, "kvm"))
				o->accel = "kvm";
			else
				rc = bad("--accel: '%s' is not an accelerator (valid: tcg, kvm)",
					 optarg);
			break;
		case 'm':
			rc = parse_int("mem", optarg, MEM_MIN, MEM_MAX,
				       &o->mem_mb);
			break;
		case 'k':
			rc = parse_path("kernel", optarg, &o->kernel);
			break;
		case 'i':
			rc = parse_path("initrd", optarg, &o->initrd);
			break;
		case 't':
			rc = parse_path("tools-disk", optarg, &o->tools_disk);
			break;
		case 'o':
			rc = parse_path("out", optarg, &o->out_dir);
			break;
		case OPT_TIMEOUT_SCALE:
			rc = parse_int("timeout-scale", optarg, SCALE_MIN,
				       SCALE_MAX, &o->timeout_scale);
			break;
		case OPT_SHOW_COMMAND:
			o->show_command = true;
			break;
		case OPT_KEEP_LOGS:
			o->keep_logs = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage();
			return 1;
		case ':':
			l = opt_of(optopt);
			rc = bad("--%s: missing value (valid: %s)",
				 l ? l->name : "?", valid_of(optopt));
			break;
		default:
			/*
			 * '?': glibc leaves optopt at a known option's value
			 * for "--quiet=x", at the letter for an unknown "-z",
			 * and at 0 for an unknown or ambiguous long option.
			 */
			l = optopt ? opt_of(optopt) : NULL;
			if (l)
				rc = bad("--%s: takes no value, got '%s' (try --help)",
					 l->name, argv[optind - 1]);
			else if (optopt)
				rc = bad("unknown option '-%c' (try --help)",
					 optopt);
			else
				rc = bad("unknown or ambiguous option '%s' (try --help)",
					 argv[optind - 1]);
			break;
		}
	}
	if (rc)
		return rc;
	if (optind < argc)
		return bad("unexpected argument '%s' (valid: options only, try --help)",
			   argv[optind]);
	return check(o);
}

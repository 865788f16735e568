/*
 * t_opts: the suspend-lab command line, offline.
 *
 * Guards: the defaults (states, syncs, dirty list, cycles, firmware, emmc
 * profile, accel, out dir, paths from KERNEL/INITRD/TOOLS_DISK); every
 * option accepted in its long and short form and at both ends of its range;
 * every rejection (out of range low and high, junk, empty, duplicates,
 * unknown options, stray arguments, missing values, no kernel or initrd,
 * dirty sizes above a quarter of --mem) returning 2 with exactly one stderr
 * line that starts "suspend-lab: ", names the option and value and restates
 * what is valid; lab_parse_size on edge and malformed sizes; --help
 * returning 1 with every option and profile on stdout; the profile table
 * and lookup; and that parsing twice starts from a clean state.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"
#include "tap.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)
#define MAXARGS 40

struct res {
	int rc;
	char out[8192];
	char err[4096];
};

/* Reads what a redirected descriptor collected, NUL-terminated. */
static void slurp(FILE *f, char *buf, size_t n)
{
	size_t len;

	rewind(f);
	len = fread(buf, 1, n - 1, f);
	buf[len] = '\0';
	fclose(f);
}

/* Runs lab_parse_args on argv[] with stdout and stderr captured, so that
 * --help text and error lines never mix into the TAP stream. */
static int run_argv(struct lab_opts *o, struct res *r, int argc, char **argv)
{
	FILE *fo = tmpfile(), *fe = tmpfile();
	int so, se;

	if (!fo || !fe) {
		perror("tmpfile");
		exit(2);
	}
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	r->rc = lab_parse_args(argc, argv, o);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	slurp(fo, r->out, sizeof(r->out));
	slurp(fe, r->err, sizeof(r->err));
	return r->rc;
}

/* parse(o, r, "--cycles", "5", NULL): argv[0] is added. */
static int parse(struct lab_opts *o, struct res *r, ...)
{
	char *argv[MAXARGS + 2];
	int argc = 0;
	va_list ap;
	const char *a;

	argv[argc++] = "suspend-lab";
	va_start(ap, r);
	while ((a = va_arg(ap, const char *)) && argc <= MAXARGS)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return run_argv(o, r, argc, argv);
}

static int count_char(const char *s, char c)
{
	int n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* One error line, as the brief for the tool's scripts requires. */
static bool one_error_line(const struct res *r)
{
	size_t len = strlen(r->err);

	return r->rc == 2 && !r->out[0] &&
	       !strncmp(r->err, "suspend-lab: ", 13) &&
	       len && r->err[len - 1] == '\n' && count_char(r->err, '\n') == 1;
}

struct bad_case {
	const char *argv[20];	/* NULL-terminated, without argv[0] */
	const char *want[5];	/* substrings the message must hold */
};

static const struct bad_case bad_cases[] = {
	/* --state */
	{ { "--state", "standby" },
	  { "--state", "'standby'", "is not a state", "(valid: mem, freeze)" } },
	{ { "--state", "" }, { "--state", "''", "(valid: mem, freeze)" } },
	{ { "--state", "MEM" }, { "--state", "'MEM'", "(valid: mem, freeze)" } },
	{ { "--state", "mem," }, { "--state", "''", "(valid: mem, freeze)" } },
	{ { "--state", ",freeze" }, { "--state", "''", "(valid: mem, freeze)" } },
	{ { "-s", "mem,disk" }, { "--state", "'disk'", "(valid: mem, freeze)" } },
	{ { "--state", "mem,mem" },
	  { "--state", "'mem,mem'", "twice", "valid: mem, freeze" } },
	{ { "--state", "freeze,mem,freeze" },
	  { "--state", "'freeze,mem,freeze'", "twice", "valid: mem, freeze" } },
	/* --cycles */
	{ { "--cycles", "0" },
	  { "--cycles: '0' is out of range (valid: 1 to 1000)" } },
	{ { "--cycles", "1001" },
	  { "--cycles: '1001' is out of range (valid: 1 to 1000)" } },
	{ { "--cycles", "-1" },
	  { "--cycles: '-1' is out of range (valid: 1 to 1000)" } },
	{ { "--cycles", "99999999999999999999999" },
	  { "--cycles", "'99999999999999999999999'", "out of range",
	    "(valid: 1 to 1000)" } },
	{ { "--cycles", "abc" },
	  { "--cycles: 'abc' is not a number (valid: 1 to 1000)" } },
	{ { "--cycles", "" }, { "--cycles: '' is not a number (valid: 1 to 1000)" } },
	{ { "--cycles", "1.5" }, { "--cycles", "'1.5'", "(valid: 1 to 1000)" } },
	{ { "--cycles", " 5" }, { "--cycles", "' 5'", "(valid: 1 to 1000)" } },
	{ { "--cycles", "5x" }, { "--cycles", "'5x'", "(valid: 1 to 1000)" } },
	{ { "--cycles", "0x10" }, { "--cycles", "'0x10'", "(valid: 1 to 1000)" } },
	{ { "-c", "-" }, { "--cycles", "'-'", "(valid: 1 to 1000)" } },
	/* a newline in the value must not split the message */
	{ { "--cycles", "1\n2" }, { "--cycles", "'1?2'", "(valid: 1 to 1000)" } },
	/* --dirty */
	{ { "--dirty", "1.5M" }, { "--dirty", "'1.5M'", "not a size", "0 to 4G" } },
	{ { "--dirty", "-1" }, { "--dirty", "'-1'", "not a size", "0 to 4G" } },
	{ { "--dirty", "M" }, { "--dirty", "'M'", "not a size", "0 to 4G" } },
	{ { "--dirty", "12X" }, { "--dirty", "'12X'", "not a size", "0 to 4G" } },
	{ { "--dirty", "16MB" }, { "--dirty", "'16MB'", "not a size", "0 to 4G" } },
	{ { "--dirty", "" }, { "--dirty", "''", "not a size", "0 to 4G" } },
	{ { "--dirty", "0,,64M" }, { "--dirty", "''", "not a size", "0 to 4G" } },
	{ { "--dirty", "0,64M," }, { "--dirty", "''", "not a size", "0 to 4G" } },
	{ { "--dirty", "0,5G" },
	  { "--dirty: '5G' is out of range (valid: 0 to 4G)" } },
	{ { "--dirty", "4097M" },
	  { "--dirty: '4097M' is out of range (valid: 0 to 4G)" } },
	{ { "--dirty", "4294967297" },
	  { "--dirty: '4294967297' is out of range (valid: 0 to 4G)" } },
	{ { "--dirty", "18446744073709551616" },
	  { "--dirty", "'18446744073709551616'", "out of range", "0 to 4G" } },
	{ { "--dirty", "17179869184G" },
	  { "--dirty", "'17179869184G'", "out of range", "0 to 4G" } },
	{ { "--dirty", "0,0" }, { "--dirty", "'0,0'", "0 twice", "(valid: 1 to 16 distinct sizes, each 0 to 4G)" } },
	{ { "-d", "64M,65536K" },
	  { "--dirty", "'64M,65536K'", "64M twice", "(valid: 1 to 16 distinct sizes, each 0 to 4G)" } },
	{ { "--dirty", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16" },
	  { "--dirty", "'0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16'",
	    "more than 16", "(valid: 1 to 16 distinct sizes, each 0 to 4G)" } },
	/* --dirty against --mem, in either order */
	{ { "--mem", "1024", "--dirty", "0,257M" },
	  { "--dirty", "'257M'", "--mem 1024", "(valid: 0 to 256M)" } },
	{ { "--dirty", "1G", "--mem", "2048" },
	  { "--dirty", "'1G'", "--mem 2048", "(valid: 0 to 512M)" } },
	{ { "--mem", "1000" },	/* the default list holds 256M */
	  { "--dirty", "'256M'", "--mem 1000", "(valid: 0 to 250M)" } },
	{ { "--mem", "257", "--dirty", "65M" },
	  { "--dirty", "'65M'", "--mem 257", "(valid: 0 to 65792K)" } },
	/* --sync */
	{ { "--sync", "2" }, { "--sync", "'2'", "(valid: 0, 1, both)" } },
	{ { "--sync", "" }, { "--sync", "''", "(valid: 0, 1, both)" } },
	{ { "--sync", "yes" }, { "--sync", "'yes'", "(valid: 0, 1, both)" } },
	{ { "--sync", "0,1" }, { "--sync", "'0,1'", "(valid: 0, 1, both)" } },
	/* --firmware */
	{ { "--firmware", "efi" }, { "--firmware", "'efi'", "(valid: bios, uefi)" } },
	{ { "-f", "" }, { "--firmware", "''", "(valid: bios, uefi)" } },
	{ { "--firmware", "BIOS" }, { "--firmware", "'BIOS'", "(valid: bios, uefi)" } },
	/* --profile */
	{ { "--profile", "ssd" },
	  { "--profile", "'ssd'", "(valid: nvme, sata, emmc, sd, hdd)" } },
	{ { "--profile", "" },
	  { "--profile", "''", "(valid: nvme, sata, emmc, sd, hdd)" } },
	{ { "-p", "NVME" },
	  { "--profile", "'NVME'", "(valid: nvme, sata, emmc, sd, hdd)" } },
	/* --accel */
	{ { "--accel", "hvf" }, { "--accel", "'hvf'", "(valid: tcg, kvm)" } },
	{ { "--accel", "" }, { "--accel", "''", "(valid: tcg, kvm)" } },
	/* --mem */
	{ { "--mem", "255" },
	  { "--mem: '255' is out of range (valid: 256 to 65536)" } },
	{ { "--mem", "65537" },
	  { "--mem: '65537' is out of range (valid: 256 to 65536)" } },
	{ { "-m", "1G" }, { "--mem: '1G' is not a number (valid: 256 to 65536)" } },
	{ { "--mem", "" }, { "--mem", "''", "(valid: 256 to 65536)" } },
	/* --timeout-scale */
	{ { "--timeout-scale", "0" },
	  { "--timeout-scale: '0' is out of range (valid: 1 to 100)" } },
	{ { "--timeout-scale", "101" },
	  { "--timeout-scale: '101' is out of range (valid: 1 to 100)" } },
	{ { "--timeout-scale", "x" },
	  { "--timeout-scale: 'x' is not a number (valid: 1 to 100)" } },
	/* paths */
	{ { "--kernel", "" }, { "--kernel", "''", "valid: a file path" } },
	{ { "--initrd", "" }, { "--initrd", "''", "valid: a file path" } },
	{ { "--tools-disk", "" }, { "--tools-disk", "''", "valid: a file path" } },
	{ { "--out", "" }, { "--out", "''", "valid: a directory path" } },
	/* missing values */
	{ { "--cycles" }, { "--cycles", "missing value", "(valid: 1 to 1000)" } },
	{ { "-c" }, { "--cycles", "missing value", "(valid: 1 to 1000)" } },
	{ { "--quiet", "--sync" }, { "--sync", "missing value", "(valid: 0, 1, both)" } },
	{ { "--profile" },
	  { "--profile", "missing value", "(valid: nvme, sata, emmc, sd, hdd)" } },
	{ { "--dirty" },
	  { "--dirty", "missing value", "(valid: 1 to 16 distinct sizes, each 0 to 4G)" } },
	/* unknown options, values where none belong, stray arguments */
	{ { "--bogus" }, { "unknown", "'--bogus'", "--help" } },
	{ { "--cycles", "5", "--bogus=1" }, { "unknown", "'--bogus=1'", "--help" } },
	{ { "-z" }, { "unknown option '-z'", "--help" } },
	{ { "-qz" }, { "unknown option '-z'", "--help" } },
	{ { "--t", "1" }, { "ambiguous", "'--t'", "--help" } },
	{ { "--quiet=1" }, { "--quiet", "takes no value", "'--quiet=1'" } },
	{ { "--help=yes" }, { "--help", "takes no value", "'--help=yes'" } },
	{ { "foo" }, { "unexpected argument 'foo'", "options only" } },
	{ { "--cycles", "5", "foo" }, { "unexpected argument 'foo'", "options only" } },
	{ { "--", "--cycles" }, { "unexpected argument '--cycles'", "options only" } },
	{ { "" }, { "unexpected argument ''", "options only" } },
	/* the first error wins, even with --help after it */
	{ { "--cycles", "0", "--help" },
	  { "--cycles: '0' is out of range (valid: 1 to 1000)" } },
};

static void test_bad_cases(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		char *argv[22], desc[256];
		struct lab_opts o;
		struct res r;
		int argc = 0;
		size_t len = 0;
		bool ok;

		argv[argc++] = "suspend-lab";
		desc[0] = '\0';
		for (const char *const *a = c->argv; *a; a++) {
			argv[argc++] = (char *)*a;
			len += snprintf(desc + len, sizeof(desc) - len, " '%s'", *a);
			if (len >= sizeof(desc))
				len = sizeof(desc) - 1;
		}
		argv[argc] = NULL;
		for (char *p = desc; *p; p++)
			if (*p == '\n')
				*p = '?';	/* keep the TAP line whole */

		run_argv(&o, &r, argc, argv);
		ok = one_error_line(&r);
		for (const char *const *w = c->want; *w; w++)
			ok = ok && strstr(r.err, *w);
		if (!tap_ok(ok, "rejected:%s", desc))
			tap_diag("rc %d, stdout %zu bytes, stderr: %s", r.rc,
				 strlen(r.out), r.err);
	}
}

static void test_defaults(void)
{
	struct lab_opts o;
	struct res r;

	setenv("KERNEL", "/k/bzImage", 1);
	setenv("INITRD", "/k/initrd", 1);
	unsetenv("TOOLS_DISK");
	tap_ok(parse(&o, &r, NULL) == 0 && !r.out[0] && !r.err[0],
	       "no options: accepted silently");
	tap_ok(o.n_states == 2 && !strcmp(o.states[0], "mem") &&
	       !strcmp(o.states[1], "freeze"), "default states mem,freeze");
	tap_ok(o.n_syncs == 2 && o.syncs[0] == 0 && o.syncs[1] == 1,
	       "default syncs 0,1");
	tap_ok(o.n_dirty == 3 && o.dirty[0] == 0 && o.dirty[1] == 64 * MIB &&
	       o.dirty[2] == 256 * MIB, "default dirty 0,64M,256M");
	tap_ok(o.cycles == 3, "default cycles 3");
	tap_ok(o.hx.firmware == VM_FW_BIOS, "default firmware bios");
	tap_ok(o.hx.profile && !strcmp(o.hx.profile->name, "emmc"),
	       "default profile emmc");
	tap_ok(o.hx.accel && !strcmp(o.hx.accel, "tcg"), "default accel tcg");
	tap_ok(o.mem_mb == 0, "default mem 0 (sized from the dirty list)");
	tap_ok(o.hx.out_dir && !strcmp(o.hx.out_dir, "results"),
	       "default out dir results");
	tap_ok(o.hx.timeout_scale == 1, "default timeout scale 1");
	tap_ok(o.hx.kernel && !strcmp(o.hx.kernel, "/k/bzImage") && o.hx.initrd &&
	       !strcmp(o.hx.initrd, "/k/initrd") && !o.hx.tools_disk,
	       "kernel, initrd from the environment, no tools disk");
	tap_ok(!o.hx.show_command && !o.hx.keep_logs && !o.hx.quiet,
	       "default flags off");

	setenv("TOOLS_DISK", "/k/tools.img", 1);
	tap_ok(parse(&o, &r, NULL) == 0 && o.hx.tools_disk &&
	       !strcmp(o.hx.tools_disk, "/k/tools.img"), "TOOLS_DISK from env");
	setenv("TOOLS_DISK", "", 1);
	tap_ok(parse(&o, &r, NULL) == 0 && !o.hx.tools_disk,
	       "empty TOOLS_DISK counts as unset");
	unsetenv("TOOLS_DISK");
}

static void test_valid(void)
{
	struct lab_opts o;
	struct res r;

	tap_ok(!parse(&o, &r, "--state", "freeze", NULL) && o.n_states == 1 &&
	       !strcmp(o.states[0], "freeze"), "--state freeze");
	tap_ok(!parse(&o, &r, "-s", "freeze,mem", NULL) && o.n_states == 2 &&
	       !strcmp(o.states[0], "freeze") && !strcmp(o.states[1], "mem"),
	       "-s freeze,mem keeps the order");
	tap_ok(!parse(&o, &r, "--state=mem", NULL) && o.n_states == 1 &&
	       !strcmp(o.states[0], "mem"), "--state=mem");
	tap_ok(!parse(&o, &r, "--state", "mem", "--state", "freeze", NULL) &&
	       o.n_states == 1 && !strcmp(o.states[0], "freeze"),
	       "a repeated --state replaces the list");

	tap_ok(!parse(&o, &r, "--cycles", "1", NULL) && o.cycles == 1,
	       "--cycles 1");
	tap_ok(!parse(&o, &r, "-c", "1000", NULL) && o.cycles == 1000,
	       "-c 1000");
	tap_ok(!parse(&o, &r, "--cycles", "007", NULL) && o.cycles == 7,
	       "--cycles 007");

	tap_ok(!parse(&o, &r, "--dirty", "0", NULL) && o.n_dirty == 1 &&
	       o.dirty[0] == 0, "--dirty 0");
	tap_ok(!parse(&o, &r, "-d", "4G,1m,512k,100", NULL) && o.n_dirty == 4 &&
	       o.dirty[0] == 4 * GIB && o.dirty[1] == MIB &&
	       o.dirty[2] == 512 * 1024 && o.dirty[3] == 100,
	       "-d 4G,1m,512k,100");
	tap_ok(!parse(&o, &r, "--dirty",
		      "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", NULL) &&
	       o.n_dirty == 16 && o.dirty[15] == 15, "--dirty with 16 sizes");
	tap_ok(!parse(&o, &r, "--dirty", "4294967296", NULL) &&
	       o.dirty[0] == 4 * GIB, "--dirty 4294967296 (4G in bytes)");

	tap_ok(!parse(&o, &r, "--sync", "0", NULL) && o.n_syncs == 1 &&
	       o.syncs[0] == 0, "--sync 0");
	tap_ok(!parse(&o, &r, "--sync", "1", NULL) && o.n_syncs == 1 &&
	       o.syncs[0] == 1, "--sync 1");
	tap_ok(!parse(&o, &r, "--sync", "both", NULL) && o.n_syncs == 2 &&
	       o.syncs[0] == 0 && o.syncs[1] == 1, "--sync both");

	tap_ok(!parse(&o, &r, "--firmware", "uefi", NULL) &&
	       o.hx.firmware == VM_FW_UEFI, "--firmware uefi");
	tap_ok(!parse(&o, &r, "-f", "bios", NULL) && o.hx.firmware == VM_FW_BIOS,
	       "-f bios");

	for (const struct disk_profile *p = disk_profiles; p->name; p++)
		tap_ok(!parse(&o, &r, "--profile", p->name, NULL) &&
		       o.hx.profile == p, "--profile %s", p->name);

	tap_ok(!parse(&o, &r, "--accel", "kvm", NULL) &&
	       !strcmp(o.hx.accel, "kvm"), "--accel kvm");
	tap_ok(!parse(&o, &r, "-a", "tcg", NULL) && !strcmp(o.hx.accel, "tcg"),
	       "-a tcg");

	tap_ok(!parse(&o, &r, "--mem", "16384", NULL) && o.mem_mb == 16384,
	       "--mem 16384 with the default dirty list");
	tap_ok(!parse(&o, &r, "-m", "256", "--dirty", "0,64M", NULL) &&
	       o.mem_mb == 256, "-m 256 with dirty up to 64M (a quarter)");
	tap_ok(!parse(&o, &r, "--dirty", "256M", "--mem", "1024", NULL) &&
	       o.mem_mb == 1024 && o.dirty[0] == 256 * MIB,
	       "--dirty 256M then --mem 1024 (exactly a quarter)");
	tap_ok(!parse(&o, &r, "--dirty", "4G", NULL),
	       "--dirty 4G without --mem");

	tap_ok(!parse(&o, &r, "--kernel", "/b/vmlinuz", "-i", "/b/ird",
		      "--tools-disk", "/b/t.img", "-o", "/tmp/res", NULL) &&
	       !strcmp(o.hx.kernel, "/b/vmlinuz") && !strcmp(o.hx.initrd, "/b/ird") &&
	       !strcmp(o.hx.tools_disk, "/b/t.img") &&
	       !strcmp(o.hx.out_dir, "/tmp/res"),
	       "--kernel, -i, --tools-disk, -o override");
	tap_ok(!parse(&o, &r, "-k", "a", "--initrd=b", "-t", "c", "--out=d",
		      NULL) && !strcmp(o.hx.kernel, "a") && !strcmp(o.hx.initrd, "b") &&
	       !strcmp(o.hx.tools_disk, "c") && !strcmp(o.hx.out_dir, "d"),
	       "-k, --initrd=, -t, --out=");

	tap_ok(!parse(&o, &r, "--timeout-scale", "1", NULL) &&
	       o.hx.timeout_scale == 1, "--timeout-scale 1");
	tap_ok(!parse(&o, &r, "--timeout-scale", "100", NULL) &&
	       o.hx.timeout_scale == 100, "--timeout-scale 100");

	tap_ok(!parse(&o, &r, "--show-command", "--keep-logs", "--quiet",
		      NULL) && o.hx.show_command && o.hx.keep_logs && o.hx.quiet &&
	       !r.err[0], "--show-command --keep-logs --quiet");
	tap_ok(!parse(&o, &r, "-qc5", NULL) && o.hx.quiet && o.cycles == 5,
	       "clustered -qc5");
	tap_ok(!parse(&o, &r, "--cyc", "9", NULL) && o.cycles == 9,
	       "unambiguous abbreviation --cyc");

	/* a parse must not inherit the previous one's values or position */
	parse(&o, &r, "--cycles", "7", "--quiet", NULL);
	tap_ok(!parse(&o, &r, NULL) && o.cycles == 3 && !o.hx.quiet,
	       "a second parse starts from the defaults");
	parse(&o, &r, "-c", NULL);
	tap_ok(!parse(&o, &r, "-c", "4", NULL) && o.cycles == 4,
	       "parsing works again after a failed parse");
}

static void test_missing_paths(void)
{
	struct lab_opts o;
	struct res r;

	unsetenv("KERNEL");
	parse(&o, &r, NULL);
	tap_ok(one_error_line(&r) &&
	       strstr(r.err, "no kernel: give --kernel or KERNEL="),
	       "no KERNEL and no --kernel: error");
	tap_ok(!parse(&o, &r, "--kernel", "/x", NULL) &&
	       !strcmp(o.hx.kernel, "/x"), "--kernel alone is enough with INITRD");
	setenv("KERNEL", "", 1);
	parse(&o, &r, NULL);
	tap_ok(one_error_line(&r) && strstr(r.err, "no kernel"),
	       "empty KERNEL counts as unset");
	setenv("KERNEL", "/k/bzImage", 1);

	unsetenv("INITRD");
	parse(&o, &r, NULL);
	tap_ok(one_error_line(&r) &&
	       strstr(r.err, "no initrd: give --initrd or INITRD="),
	       "no INITRD and no --initrd: error");
	tap_ok(!parse(&o, &r, "-i", "/y", NULL), "-i alone is enough");
	setenv("INITRD", "/k/initrd", 1);
}

static void test_help(void)
{
	static const char *const want[] = {
		"--state", "--cycles", "--dirty", "--sync", "--firmware",
		"--profile", "--accel", "--mem", "--kernel", "--initrd",
		"--tools-disk", "--out", "--timeout-scale", "--show-command",
		"--keep-logs", "--quiet", "--help", "--workload", "--writeback",
		"--request-window", "--runtime", "--seed", "bigfile", "smallfiles",
		"fsync-log", "mixed", "--writeback MODE",
		"mem, freeze", "1 to 1000", "1 to 16 distinct sizes", "0 to 4G",
		"0|1|both", "bios|uefi", "tcg|kvm", "256 to 65536", "1 to 100",
		"unthrottled", "450 MiB/s, 40000 IOPS", "20 MiB/s, 2000 IOPS",
		"10 MiB/s, 300 IOPS", "100 MiB/s, 150 IOPS",
	};
	struct lab_opts o;
	struct res r;
	bool all = true;

	unsetenv("KERNEL");
	tap_ok(parse(&o, &r, "--help", NULL) == 1 && !r.err[0] && r.out[0],
	       "--help returns 1, usage on stdout only, needs no kernel");
	setenv("KERNEL", "/k/bzImage", 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(r.out, want[i])) {
			tap_diag("usage lacks '%s'", want[i]);
			all = false;
		}
	tap_ok(all, "usage names every option and range");
	all = true;
	for (const struct disk_profile *p = disk_profiles; p->name; p++) {
		char line[128];

		snprintf(line, sizeof(line), "  %s ", p->name);
		if (!strstr(r.out, line) || !strstr(r.out, p->what)) {
			tap_diag("usage lacks profile %s", p->name);
			all = false;
		}
	}
	tap_ok(all, "usage lists every profile with its description");
	tap_ok(parse(&o, &r, "-q", "-h", "--cycles", "0", NULL) == 1,
	       "-h returns 1 before a later bad option is read");
}

static void test_sizes(void)
{
	static const struct {
		const char *s;
		uint64_t v;
	} good[] = {
		{ "0", 0 }, { "0K", 0 }, { "1", 1 }, { "1k", 1024 },
		{ "1K", 1024 }, { "16M", 16 * MIB }, { "16m", 16 * MIB },
		{ "1g", GIB }, { "4G", 4 * GIB }, { "0004G", 4 * GIB },
		{ "18446744073709551615", UINT64_MAX },
		{ "17179869183G", 17179869183ULL * GIB },
	};
	static const char *const bad[] = {
		"", "1.5M", "-1", "+1", "M", "12X", " 1", "1 ", "1MB", "1KiB",
		"0x10", "1e3", "1,2", "18446744073709551616",
		"99999999999999999999999", "17179869184G",
		"18014398509481984K", "17592186044416M",
	};
	uint64_t v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 12345;
		tap_ok(cli_size(good[i].s, &v) && v == good[i].v,
		       "size '%s' = %llu", good[i].s,
		       (unsigned long long)good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 12345;
		tap_ok(!cli_size(bad[i], &v) && v == 12345,
		       "size '%s' rejected, output untouched", bad[i]);
	}
	tap_ok(!cli_size(NULL, &v), "size NULL rejected");
}

static void test_profiles(void)
{
	static const struct {
		const char *name;
		uint64_t bps, iops;
	} want[] = {
		{ "nvme", 0, 0 },
		{ "sata", 450 * MIB, 40000 },
		{ "emmc", 20 * MIB, 2000 },
		{ "sd", 10 * MIB, 300 },
		{ "hdd", 100 * MIB, 150 },
	};
	size_t n = 0;

	for (const struct disk_profile *p = disk_profiles; p->name; p++)
		n++;
	tap_ok(n == 5, "five profiles before the terminator");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct disk_profile *p = disk_profile(want[i].name);

		tap_ok(p && p == &disk_profiles[i] && p->write_bps == want[i].bps &&
		       p->write_iops == want[i].iops && p->what && p->what[0],
		       "profile %s: %llu B/s, %llu IOPS", want[i].name,
		       (unsigned long long)want[i].bps,
		       (unsigned long long)want[i].iops);
	}
	tap_ok(!disk_profile("ssd") && !disk_profile("") && !disk_profile(NULL) &&
	       !disk_profile("EMMC") && !disk_profile("nvme "),
	       "unknown profile names give NULL");
}

/* The guest is sized from the dirty list: four times it plus 512 MiB. */
static void test_mem(void)
{
	struct lab_opts o = { 0 };
	struct res r;

	tap_ok(!parse(&o, &r, NULL) && lab_mem_mb(&o) == 2048,
	       "mem: 2048 MiB for the default dirty list");
	tap_ok(!parse(&o, &r, "-d", "4G", NULL) && lab_mem_mb(&o) == 16896,
	       "mem: -d 4G sizes the guest at 16896 MiB, not 25.6 GB");
	tap_ok(!parse(&o, &r, "-d", "1G", "--mem", "8192", NULL) && lab_mem_mb(&o) == 8192,
	       "mem: --mem wins");
	tap_ok(!parse(&o, &r, "--test-resume-delay", "300", NULL) && o.resume_delay_ms == 300,
	       "--test-resume-delay 300");
	tap_ok(parse(&o, &r, "--test-resume-delay", "+3", NULL) == 2,
	       "--test-resume-delay +3 refused");
	tap_ok(!parse(&o, &r, NULL) && o.hx.drive_model == HX_DRIVE_AUTO,
	       "--drive-model auto by default");
	tap_ok(!parse(&o, &r, "--drive-model", "off", NULL) && o.hx.drive_model == HX_DRIVE_OFF,
	       "--drive-model off");
	tap_ok(parse(&o, &r, "--drive-model", "on", NULL) == 2 && strstr(r.err, "auto, off"),
	       "--drive-model on refused, naming auto and off");
}

int main(void)
{
	/* every test that is not about the environment has a kernel */
	setenv("KERNEL", "/k/bzImage", 1);
	setenv("INITRD", "/k/initrd", 1);
	unsetenv("TOOLS_DISK");

	test_defaults();
	test_valid();
	test_bad_cases();
	test_missing_paths();
	test_help();
	test_sizes();
	test_profiles();
	test_mem();
	return tap_done();
}

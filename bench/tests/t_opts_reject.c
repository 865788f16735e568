/*
 * t_opts_reject: what the suspend-lab command line refuses. Guards: each bad
 * value, option or argument (and no kernel or initrd) returns 2 with one
 * stderr line "suspend-lab: ..." naming the option, value and what is valid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "labargs.h"
#include "tap.h"

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

		labargs_run(&o, &r, argc, argv);
		ok = labargs_one_error(&r);
		for (const char *const *w = c->want; *w; w++)
			ok = ok && strstr(r.err, *w);
		if (!tap_ok(ok, "rejected:%s", desc))
			tap_diag("rc %d, stdout %zu bytes, stderr: %s", r.rc,
				 strlen(r.out), r.err);
	}
}

static void test_missing_paths(void)
{
	struct lab_opts o;
	struct res r;

	unsetenv("KERNEL");
	labargs_parse(&o, &r, NULL);
	tap_ok(labargs_one_error(&r) &&
	       strstr(r.err, "no kernel: give --kernel or KERNEL="),
	       "no KERNEL and no --kernel: error");
	tap_ok(!labargs_parse(&o, &r, "--kernel", "/x", NULL) &&
	       !strcmp(o.hx.kernel, "/x"), "--kernel alone is enough with INITRD");
	setenv("KERNEL", "", 1);
	labargs_parse(&o, &r, NULL);
	tap_ok(labargs_one_error(&r) && strstr(r.err, "no kernel"),
	       "empty KERNEL counts as unset");
	setenv("KERNEL", "/k/bzImage", 1);

	unsetenv("INITRD");
	labargs_parse(&o, &r, NULL);
	tap_ok(labargs_one_error(&r) &&
	       strstr(r.err, "no initrd: give --initrd or INITRD="),
	       "no INITRD and no --initrd: error");
	tap_ok(!labargs_parse(&o, &r, "-i", "/y", NULL), "-i alone is enough");
	setenv("INITRD", "/k/initrd", 1);
}

int main(void)
{
	/* every test that is not about the environment has a kernel */
	setenv("KERNEL", "/k/bzImage", 1);
	setenv("INITRD", "/k/initrd", 1);
	unsetenv("TOOLS_DISK");

	test_bad_cases();
	test_missing_paths();
	return tap_done();
}

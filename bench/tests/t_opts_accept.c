/*
 * t_opts_accept: what the suspend-lab command line accepts. Guards: the
 * defaults, every option long and short at both ends of its range, --help,
 * sizes, the profile table, guest memory, and that a re-parse starts clean.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "labargs.h"
#include "tap.h"

#define MIB (1024ULL * 1024)
#define GIB (1024ULL * MIB)

static void test_defaults(void)
{
	struct lab_opts o;
	struct res r;

	setenv("KERNEL", "/k/bzImage", 1);
	setenv("INITRD", "/k/initrd", 1);
	unsetenv("TOOLS_DISK");
	tap_ok(labargs_parse(&o, &r, NULL) == 0 && !r.out[0] && !r.err[0],
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
	tap_ok(labargs_parse(&o, &r, NULL) == 0 && o.hx.tools_disk &&
	       !strcmp(o.hx.tools_disk, "/k/tools.img"), "TOOLS_DISK from env");
	setenv("TOOLS_DISK", "", 1);
	tap_ok(labargs_parse(&o, &r, NULL) == 0 && !o.hx.tools_disk,
	       "empty TOOLS_DISK counts as unset");
	unsetenv("TOOLS_DISK");
}

static void test_valid(void)
{
	struct lab_opts o;
	struct res r;

	tap_ok(!labargs_parse(&o, &r, "--state", "freeze", NULL) && o.n_states == 1 &&
	       !strcmp(o.states[0], "freeze"), "--state freeze");
	tap_ok(!labargs_parse(&o, &r, "-s", "freeze,mem", NULL) && o.n_states == 2 &&
	       !strcmp(o.states[0], "freeze") && !strcmp(o.states[1], "mem"),
	       "-s freeze,mem keeps the order");
	tap_ok(!labargs_parse(&o, &r, "--state=mem", NULL) && o.n_states == 1 &&
	       !strcmp(o.states[0], "mem"), "--state=mem");
	tap_ok(!labargs_parse(&o, &r, "--state", "mem", "--state", "freeze", NULL) &&
	       o.n_states == 1 && !strcmp(o.states[0], "freeze"),
	       "a repeated --state replaces the list");

	tap_ok(!labargs_parse(&o, &r, "--cycles", "1", NULL) && o.cycles == 1,
	       "--cycles 1");
	tap_ok(!labargs_parse(&o, &r, "-c", "1000", NULL) && o.cycles == 1000,
	       "-c 1000");
	tap_ok(!labargs_parse(&o, &r, "--cycles", "007", NULL) && o.cycles == 7,
	       "--cycles 007");

	tap_ok(!labargs_parse(&o, &r, "--dirty", "0", NULL) && o.n_dirty == 1 &&
	       o.dirty[0] == 0, "--dirty 0");
	tap_ok(!labargs_parse(&o, &r, "-d", "4G,1m,512k,100", NULL) && o.n_dirty == 4 &&
	       o.dirty[0] == 4 * GIB && o.dirty[1] == MIB &&
	       o.dirty[2] == 512 * 1024 && o.dirty[3] == 100,
	       "-d 4G,1m,512k,100");
	tap_ok(!labargs_parse(&o, &r, "--dirty",
		      "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", NULL) &&
	       o.n_dirty == 16 && o.dirty[15] == 15, "--dirty with 16 sizes");
	tap_ok(!labargs_parse(&o, &r, "--dirty", "4294967296", NULL) &&
	       o.dirty[0] == 4 * GIB, "--dirty 4294967296 (4G in bytes)");

	tap_ok(!labargs_parse(&o, &r, "--sync", "0", NULL) && o.n_syncs == 1 &&
	       o.syncs[0] == 0, "--sync 0");
	tap_ok(!labargs_parse(&o, &r, "--sync", "1", NULL) && o.n_syncs == 1 &&
	       o.syncs[0] == 1, "--sync 1");
	tap_ok(!labargs_parse(&o, &r, "--sync", "both", NULL) && o.n_syncs == 2 &&
	       o.syncs[0] == 0 && o.syncs[1] == 1, "--sync both");

	tap_ok(!labargs_parse(&o, &r, "--firmware", "uefi", NULL) &&
	       o.hx.firmware == VM_FW_UEFI, "--firmware uefi");
	tap_ok(!labargs_parse(&o, &r, "-f", "bios", NULL) && o.hx.firmware == VM_FW_BIOS,
	       "-f bios");

	for (const struct disk_profile *p = disk_profiles; p->name; p++)
		tap_ok(!labargs_parse(&o, &r, "--profile", p->name, NULL) &&
		       o.hx.profile == p, "--profile %s", p->name);

	tap_ok(!labargs_parse(&o, &r, "--accel", "kvm", NULL) &&
	       !strcmp(o.hx.accel, "kvm"), "--accel kvm");
	tap_ok(!labargs_parse(&o, &r, "-a", "tcg", NULL) && !strcmp(o.hx.accel, "tcg"),
	       "-a tcg");

	tap_ok(!labargs_parse(&o, &r, "--mem", "16384", NULL) && o.mem_mb == 16384,
	       "--mem 16384 with the default dirty list");
	tap_ok(!labargs_parse(&o, &r, "-m", "256", "--dirty", "0,64M", NULL) &&
	       o.mem_mb == 256, "-m 256 with dirty up to 64M (a quarter)");
	tap_ok(!labargs_parse(&o, &r, "--dirty", "256M", "--mem", "1024", NULL) &&
	       o.mem_mb == 1024 && o.dirty[0] == 256 * MIB,
	       "--dirty 256M then --mem 1024 (exactly a quarter)");
	tap_ok(!labargs_parse(&o, &r, "--dirty", "4G", NULL),
	       "--dirty 4G without --mem");

	tap_ok(!labargs_parse(&o, &r, "--kernel", "/b/vmlinuz", "-i", "/b/ird",
		      "--tools-disk", "/b/t.img", "-o", "/tmp/res", NULL) &&
	       !strcmp(o.hx.kernel, "/b/vmlinuz") && !strcmp(o.hx.initrd, "/b/ird") &&
	       !strcmp(o.hx.tools_disk, "/b/t.img") &&
	       !strcmp(o.hx.out_dir, "/tmp/res"),
	       "--kernel, -i, --tools-disk, -o override");
	tap_ok(!labargs_parse(&o, &r, "-k", "a", "--initrd=b", "-t", "c", "--out=d",
		      NULL) && !strcmp(o.hx.kernel, "a") && !strcmp(o.hx.initrd, "b") &&
	       !strcmp(o.hx.tools_disk, "c") && !strcmp(o.hx.out_dir, "d"),
	       "-k, --initrd=, -t, --out=");

	tap_ok(!labargs_parse(&o, &r, "--timeout-scale", "1", NULL) &&
	       o.hx.timeout_scale == 1, "--timeout-scale 1");
	tap_ok(!labargs_parse(&o, &r, "--timeout-scale", "100", NULL) &&
	       o.hx.timeout_scale == 100, "--timeout-scale 100");

	tap_ok(!labargs_parse(&o, &r, "--show-command", "--keep-logs", "--quiet",
		      NULL) && o.hx.show_command && o.hx.keep_logs && o.hx.quiet &&
	       !r.err[0], "--show-command --keep-logs --quiet");
	tap_ok(!labargs_parse(&o, &r, "-qc5", NULL) && o.hx.quiet && o.cycles == 5,
	       "clustered -qc5");
	tap_ok(!labargs_parse(&o, &r, "--cyc", "9", NULL) && o.cycles == 9,
	       "unambiguous abbreviation --cyc");

	/* a parse must not inherit the previous one's values or position */
	labargs_parse(&o, &r, "--cycles", "7", "--quiet", NULL);
	tap_ok(!labargs_parse(&o, &r, NULL) && o.cycles == 3 && !o.hx.quiet,
	       "a second parse starts from the defaults");
	labargs_parse(&o, &r, "-c", NULL);
	tap_ok(!labargs_parse(&o, &r, "-c", "4", NULL) && o.cycles == 4,
	       "parsing works again after a failed parse");
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
	tap_ok(labargs_parse(&o, &r, "--help", NULL) == 1 && !r.err[0] && r.out[0],
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
	tap_ok(labargs_parse(&o, &r, "-q", "-h", "--cycles", "0", NULL) == 1,
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

	tap_ok(!labargs_parse(&o, &r, NULL) && lab_mem_mb(&o) == 2048,
	       "mem: 2048 MiB for the default dirty list");
	tap_ok(!labargs_parse(&o, &r, "-d", "4G", NULL) && lab_mem_mb(&o) == 16896,
	       "mem: -d 4G sizes the guest at 16896 MiB, not 25.6 GB");
	tap_ok(!labargs_parse(&o, &r, "-d", "1G", "--mem", "8192", NULL) && lab_mem_mb(&o) == 8192,
	       "mem: --mem wins");
	tap_ok(!labargs_parse(&o, &r, "--test-resume-delay", "300", NULL) && o.resume_delay_ms == 300,
	       "--test-resume-delay 300");
	tap_ok(labargs_parse(&o, &r, "--test-resume-delay", "+3", NULL) == 2,
	       "--test-resume-delay +3 refused");
	tap_ok(!labargs_parse(&o, &r, NULL) && o.hx.drive_model == HX_DRIVE_AUTO,
	       "--drive-model auto by default");
	tap_ok(!labargs_parse(&o, &r, "--drive-model", "off", NULL) && o.hx.drive_model == HX_DRIVE_OFF,
	       "--drive-model off");
	tap_ok(labargs_parse(&o, &r, "--drive-model", "on", NULL) == 2 && strstr(r.err, "auto, off"),
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
	test_help();
	test_sizes();
	test_profiles();
	test_mem();
	return tap_done();
}

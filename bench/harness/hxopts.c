/* The options every program of the lab shares, and their up-front checks. */
#define _GNU_SOURCE
#include "hx.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outdir.h"
#include "rundir.h"

#define MIB (1024ULL * 1024)

void hx_opts_defaults(struct hx_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->profile = disk_profile("emmc");
	o->firmware = VM_FW_BIOS;
	o->accel = "tcg";
	o->out_dir = "results";
	o->timeout_scale = 1;
	o->kernel = cli_env("KERNEL");
	o->initrd = cli_env("INITRD");
	o->tools_disk = cli_env("TOOLS_DISK");
	o->fs = fs_kind_find("ext4");
}

int hx_opts_handle(struct hx_opts *o, int c, const char *arg)
{
	long long v;
	int rc;

	switch (c) {
	case 'k':
		return cli_path("kernel", arg, &o->kernel);
	case 'i':
		return cli_path("initrd", arg, &o->initrd);
	case 't':
		return cli_path("tools-disk", arg, &o->tools_disk);
	case 'o':
		return cli_path("out", arg, &o->out_dir);
	case 'p':
		o->profile = disk_profile(arg);
		return o->profile ? 0 : cli_bad("--profile: '%s' is not a profile (valid: %s)",
						arg, disk_profile_names());
	case 'f':
		if (!strcmp(arg, "bios"))
			o->firmware = VM_FW_BIOS;
		else if (!strcmp(arg, "uefi"))
			o->firmware = VM_FW_UEFI;
		else
			return cli_bad("--firmware: '%s' is not a firmware (valid: bios, uefi)", arg);
		return 0;
	case 'a':
		if (strcmp(arg, "tcg") && strcmp(arg, "kvm"))
			return cli_bad("--accel: '%s' is not an accelerator (valid: tcg, kvm)", arg);
		o->accel = !strcmp(arg, "tcg") ? "tcg" : "kvm";
		return 0;
	case HX_OPT_TIMEOUT_SCALE:
		rc = cli_int("timeout-scale", arg, 1, 100, &v);
		if (!rc)
			o->timeout_scale = v;
		return rc;
	case HX_OPT_SHOW_COMMAND:
		o->show_command = true;
		return 0;
	case HX_OPT_DRIVE_MODEL:
		if (strcmp(arg, "auto") && strcmp(arg, "off"))
			return cli_bad("--drive-model: '%s' is not a mode (valid: auto, off)", arg);
		o->drive_model = strcmp(arg, "off") ? HX_DRIVE_AUTO : HX_DRIVE_OFF;
		return 0;
	case HX_OPT_FS:
		o->fs_all = !strcmp(arg, "all");
		if (o->fs_all)
			return 0;
		o->fs = fs_kind_find(arg);
		return o->fs ? 0 : cli_bad("--fs: '%s' is not a filesystem (valid: %s, all)", arg,
					   fs_kind_names(", "));
	case HX_OPT_KEEP_LOGS:
		o->keep_logs = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	default:
		return -1;
	}
}

const char *hx_opts_valid(int c)
{
	switch (c) {
	case 'p': return disk_profile_names();
	case 'f': return "bios, uefi";
	case 'a': return "tcg, kvm";
	case HX_OPT_TIMEOUT_SCALE: return "1 to 100";
	case HX_OPT_DRIVE_MODEL: return "auto, off";
	case HX_OPT_FS: return "ext4, xfs, btrfs, f2fs, all";
	case 'o': return "a directory";
	case 'k': case 'i': case 't': return "a file";
	default: return NULL;
	}
}

void hx_opts_usage(FILE *f)
{
	const struct disk_profile *p;

	fprintf(f,
		" -p, --profile NAME       disk profile, see below (default emmc)\n"
		" -f, --firmware bios|uefi guest firmware (default bios)\n"
		" -a, --accel tcg|kvm      QEMU accelerator (default tcg)\n"
		" -k, --kernel PATH        guest kernel (default $KERNEL; required)\n"
		" -i, --initrd PATH        guest initrd (default $INITRD; required)\n"
		" -t, --tools-disk PATH    read-only tools image (default $TOOLS_DISK)\n"
		" -o, --out DIR            results directory (default results)\n"
		"     --timeout-scale N    multiply every timeout, 1 to 100 (default 1)\n"
		"     --drive-model MODE   auto: nbdkit under the data disk where the profile\n"
		"                          has a flush latency or a volatile cache; off\n"
		"     --show-command       print the QEMU command line\n"
		"     --keep-logs          keep the guest and QEMU logs\n"
		"     --fs NAME|all        the data disk's filesystem: ext4, xfs, btrfs, f2fs,\n"
		"                          or all of them in turn, each in --out/NAME\n"
		"                          (default ext4)\n"
		" -q, --quiet              no progress lines\n"
		" -h, --help               this text\n\n"
		"Disk profiles (write side):\n");
	for (p = disk_profiles; p->name; p++) {
		char lim[64];

		if (p->write_bps || p->write_iops)
			snprintf(lim, sizeof(lim), "%llu MiB/s, %llu IOPS",
				 (unsigned long long)(p->write_bps / MIB),
				 (unsigned long long)p->write_iops);
		else
			snprintf(lim, sizeof(lim), "unthrottled");
		fprintf(f, "  %-5s %-22s flush %2d ms, cache %-3s %s\n", p->name, lim,
			p->flush_ms, p->volatile_cache ? "on" : "off", p->what);
	}
}

static int readable_file(const char *opt, const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return cli_bad("--%s: '%s': %s", opt, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cli_bad("--%s: '%s' is not a regular file", opt, path);
	if (access(path, R_OK))
		return cli_bad("--%s: '%s': %s", opt, path, strerror(errno));
	return 0;
}

static bool head(const char *path, long off, unsigned char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	bool ok = f && !fseek(f, off, SEEK_SET) && fread(buf, 1, n, f) == n;

	if (f)
		fclose(f);
	return ok;
}

/* x86 boot protocol: "HdrS" at 0x202 of every bzImage */
static bool is_bzimage(const char *path)
{
	unsigned char b[4];

	return head(path, 0x202, b, 4) && !memcmp(b, "HdrS", 4);
}

/* a cpio archive, or one of the compressions the kernel unpacks */
static bool is_initramfs(const char *path)
{
	static const struct { const char *m; size_t n; } magic[] = {
		{ "070701", 6 }, { "070702", 6 }, { "\x1f\x8b", 2 },
		{ "\xfd" "7zXZ", 5 }, { "\x28\xb5\x2f\xfd", 4 }, { "\x02\x21\x4c\x18", 4 },
		{ "BZh", 3 }, { "\x5d\x00\x00", 3 }, { "\x89LZO", 4 },
	};
	unsigned char b[6] = { 0 };

	if (!head(path, 0, b, 2))
		return false;
	head(path, 0, b, 6);
	for (size_t i = 0; i < sizeof(magic) / sizeof(magic[0]); i++)
		if (!memcmp(b, magic[i].m, magic[i].n))
			return true;
	return false;
}

int hx_check_boot_files(const char *kernel, const char *initrd)
{
	if (!kernel)
		return cli_bad("no kernel: give --kernel or KERNEL=");
	if (!initrd)
		return cli_bad("no initrd: give --initrd or INITRD=");
	if (readable_file("kernel", kernel) || readable_file("initrd", initrd))
		return 2;
	if (!is_bzimage(kernel))
		return cli_bad("--kernel: '%s' is not a bzImage (no HdrS header at 0x202)", kernel);
	if (!is_initramfs(initrd))
		return cli_bad("--initrd: '%s' is neither a cpio archive nor compressed (gzip, xz, zstd, lz4, bzip2, lzma, lzo)",
			       initrd);
	return 0;
}

static int make_and_claim(const char *dir, const char *what)
{
	if (mkdir(dir, 0755) && errno != EEXIST)
		return cli_bad("%s: cannot make '%s': %s", what, dir, strerror(errno));
	return outdir_claim(dir);
}

/* --fs all's part for kind i: out/NAME, and its label for messages */
static int part(const struct hx_opts *o, size_t i, char **dir, char **what)
{
	*what = NULL;
	if (asprintf(dir, "%s/%s", o->out_dir, fs_kinds[i].name) < 0)
		return -1;
	if (asprintf(what, "--out (--fs all's %s part)", fs_kinds[i].name) < 0) {
		free(*dir);
		return -1;
	}
	return 0;
}

/* Every part of --fs all, checked (claim false) or made and locked. */
static int each_part(const struct hx_opts *o, bool claim)
{
	struct stat st;
	char *dir, *what;
	int rc = 0;

	for (size_t i = 0; o->fs_all && i < fs_n_kinds && !rc; i++) {
		if (part(o, i, &dir, &what))
			return cli_bad("--out: out of memory");
		if (claim)
			rc = make_and_claim(dir, what);
		else if (!lstat(dir, &st) || errno != ENOENT)
			rc = outdir_check(dir, what);	/* one in the way, found now */
		free(dir);
		free(what);
	}
	return rc;
}

/*
 * Everything is checked before anything is made, locked or swept: a
 * refused run leaves --out as it found it.
 */
int hx_check_inputs(const struct hx_opts *o, bool need_tools)
{
	char why[256];

	if (hx_check_boot_files(o->kernel, o->initrd))
		return 2;
	if (need_tools && !o->tools_disk)
		return cli_bad("no tools disk: give --tools-disk or TOOLS_DISK= (make tools)");
	if (o->tools_disk && readable_file("tools-disk", o->tools_disk))
		return 2;
	if (rundir_check_base(why, sizeof(why)))
		return cli_bad("%s", why);
	if (outdir_check_len(o->out_dir) || outdir_check(o->out_dir, "--out") ||
	    each_part(o, false))
		return 2;
	if (make_and_claim(o->out_dir, "--out"))
		return 2;
	return each_part(o, true);
}

/*
 * The experiment harness under every program of the lab: the options they
 * share, the data image, counted boots, the guest's set-up (data mount,
 * writeback mode, the knob) and one timeout scale for every wait.
 */
#ifndef SLAB_HX_H
#define SLAB_HX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cliopt.h"
#include "drive.h"
#include "fskind.h"
#include "profile.h"
#include "vm.h"

#define HX_DATA_MNT "/mnt/data"
#define HX_FIO "/opt/tools/bin/fio"

struct hx_opts {
	const char *kernel, *initrd, *tools_disk, *out_dir;
	const struct disk_profile *profile;
	enum vm_firmware firmware;
	const char *accel;		/* tcg, kvm */
	int timeout_scale;		/* multiplies every wait, 1..100 */
	bool keep_logs, quiet, show_command;
	/* auto: nbdkit (drive.h) under the throttled data disk when the
	 * profile has a flush latency or a volatile cache; off: the image
	 * itself, cache=none (fakeqemu needs the image's path) */
	enum hx_drive_model { HX_DRIVE_AUTO, HX_DRIVE_OFF } drive_model;
	bool drop_flushes;		/* test only: the drive ignores flushes */
	const struct fs_kind *fs;	/* the data disk's filesystem (fskind.h) */
	bool fs_all;			/* --fs all: the program runs each kind */
};

/* Long-only shared options get values outside the char range. */
enum {
	HX_OPT_TIMEOUT_SCALE = 0x400,
	HX_OPT_SHOW_COMMAND,
	HX_OPT_KEEP_LOGS,
	HX_OPT_DRIVE_MODEL,
	HX_OPT_FS,
};

/* The shared entries of a program's getopt_long table. */
#define HX_LONGOPTS \
	{ "kernel",		required_argument, NULL, 'k' }, \
	{ "initrd",		required_argument, NULL, 'i' }, \
	{ "tools-disk",		required_argument, NULL, 't' }, \
	{ "out",		required_argument, NULL, 'o' }, \
	{ "profile",		required_argument, NULL, 'p' }, \
	{ "firmware",		required_argument, NULL, 'f' }, \
	{ "accel",		required_argument, NULL, 'a' }, \
	{ "timeout-scale",	required_argument, NULL, HX_OPT_TIMEOUT_SCALE }, \
	{ "show-command",	no_argument,	   NULL, HX_OPT_SHOW_COMMAND }, \
	{ "keep-logs",		no_argument,	   NULL, HX_OPT_KEEP_LOGS }, \
	{ "drive-model",	required_argument, NULL, HX_OPT_DRIVE_MODEL }, \
	{ "fs",			required_argument, NULL, HX_OPT_FS }, \
	{ "quiet",		no_argument,	   NULL, 'q' }, \
	{ "help",		no_argument,	   NULL, 'h' }
#define HX_SHORTOPTS "k:i:t:o:p:f:a:qh"

void hx_opts_defaults(struct hx_opts *o);
/* A shared option: 0 or 2; -1 if c is not one of them. */
int hx_opts_handle(struct hx_opts *o, int c, const char *arg);
/* What a shared option accepts; NULL if c is not one of them. */
const char *hx_opts_valid(int c);
/* The shared options' lines for --help, profiles included. */
void hx_opts_usage(FILE *f);
/*
 * Before anything runs: kernel, initrd (and tools disk if needed) are
 * readable files, --out is a directory or can be made one.  0, or 2 after
 * one line.
 */
int hx_check_inputs(const struct hx_opts *o, bool need_tools);
/* What hx_check_inputs() asks of the kernel and initrd: readable files, a
 * bzImage and an initramfs by their first bytes.  0, or 2 after one line. */
int hx_check_boot_files(const char *kernel, const char *initrd);

/*
 * --fs all: fn once per filesystem (fskind.h's order) with o->fs set and
 * o->out_dir its own directory, out/NAME (made and locked); each part's
 * time on stderr; the worst status fn returned.
 */
int hx_each_fs(struct hx_opts *o, int (*fn)(void *ctx), void *ctx);

/* Base waits in ms, before --timeout-scale; tests shrink them. */
struct hx_timeouts {
	int boot;		/* QEMU start to agent READY */
	int cmd;		/* a short guest command */
	int qmp;		/* a QMP command */
	int request;		/* SUSPEND sent to REQUEST */
	int suspend;		/* REQUEST to suspended, on top of the sync's estimate */
	int wake;		/* wake to RESUMED */
	int done;		/* RESUMED to DONE */
	int first_key;		/* freeze: quiet time before the first key */
	int key_every;		/* freeze: key repeat (not scaled) */
};
extern const struct hx_timeouts hx_default_timeouts;


struct hx {
	const struct hx_opts *o;
	struct hx_timeouts base;
	const char *qemu;		/* NULL: qemu-system-x86_64 (tests: a fake) */
	int mem_mb, max_boot_failures;
	const char *append;		/* more kernel command line, or NULL */
	struct vm vm;
	bool up;
	struct drive drive;		/* the drive model, when drive_on */
	bool drive_on, drive_reported;
	int boots, boot_failures;
	char img[600];
	char img_why[400];		/* why hx_image() failed: mkfs's own words */
	int h_img, h_mark;
	char logdir[600];
	char wb_defaults[160];		/* the kernel's vm.dirty_* at boot */
	/* provenance, from the first good boot */
	char release[128], qemu_version[32], knob[64];
	bool at_risk_report;
	double boot_s;
};

void hx_init(struct hx *h, const struct hx_opts *o);
/* A base wait scaled by --timeout-scale. */
int hx_ms(const struct hx *h, int base_ms);
__attribute__((format(printf, 2, 3)))
void hx_progress(const struct hx *h, const char *fmt, ...);

/* A sparse image of --fs's filesystem labelled ssdata at path, removed at exit unless
 * --keep-logs.  0 or -1 after one line. */
int hx_image(struct hx *h, const char *path, uint64_t bytes);
void hx_image_drop(struct hx *h);
/* The image is the caller's now: neither removed at exit nor swept. */
void hx_image_keep(struct hx *h);

/*
 * The QEMU configuration of a boot: the image (throttled to the profile or
 * not; throttle is where the option text lives, n bytes) and the tools
 * disk.  Callers may add drives or arguments before hx_start().
 */
void hx_config(struct hx *h, struct vm_config *cfg, bool throttled, char *throttle,
	       size_t n);
/* --keep-logs: this run's log folder under --out, "logs/run-<UTC time>-<pid>"
 * (one per run: a later run's logs never sit beside an earlier report's);
 * each boot's logs in a folder of its tag there.  NULL without --keep-logs. */
const char *hx_logs_subdir(const struct hx_opts *o);
/* Whether hx_config() puts the drive model (nbdkit) under the data disk. */
bool hx_drive_chosen(const struct hx_opts *o, bool throttled);
/* The data disk's write cache as hx_config() sets it up: "none" (QEMU's
 * cache=none on the image), "writeback" (nbdkit's cache filter: unflushed
 * writes die with a cut) or "writethrough" (nbdkit, no volatile cache). */
const char *hx_disk_cache_mode(const struct hx_opts *o, bool throttled);
/* The QEMU command line a boot would use (--show-command); the drive
 * model's socket is a placeholder. */
void hx_format_command(struct hx *h, bool throttled, char *buf, size_t n);
/* Boots cfg, counted against the boot limit, as hx_boot() does; starts
 * the drive model first when hx_config() chose it (NbdkitFailed if it
 * does not start). */
enum verdict hx_start(struct hx *h, const char *tag, struct vm_config *cfg);
/*
 * Boots the image (throttled to the profile or not).  After
 * max_boot_failures failed boots it refuses: NotRun.  tag names the log
 * directory with --keep-logs.
 */
enum verdict hx_boot(struct hx *h, const char *tag, bool throttled);
/* The guest command that mounts the data disk at HX_DATA_MNT. */
void hx_mount_cmd(const struct hx *h, char *buf, size_t n);
/* Mounts the data disk; pm_debug turns on the kernel's pm_debug_messages
 * at loglevel 8. */
enum verdict hx_prepare(struct hx *h, bool pm_debug);
/*
 * held: dirty data stays in RAM until the sync (no flusher, no expiry, high
 * ratios); otherwise the kernel's own vm.dirty_* values, as read at the
 * first call of this boot.
 */
enum verdict hx_hold_writeback(struct hx *h, bool held);
/* kernel.suspend_sync, or sync_on_suspend on a kernel without the series. */
const char *hx_knob_path(const struct hx *h);
enum verdict hx_set_knob(struct hx *h, int sync);
/* guest_req() with a scaled wait. */
enum verdict hx_run(struct hx *h, int base_ms, char **out, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * The power cut: SIGKILL to nbdkit (first: a flush it is serving must not
 * finish after the cut) and to QEMU, both reaped.  OK if each died of
 * that signal; NbdkitFailed or QemuDied if one was dead already.
 */
enum verdict hx_cut(struct hx *h);
/* v, or NbdkitFailed when the drive model died on its own (reported
 * once): for any step's verdict, OK included, since a guest may carry on
 * with I/O errors. */
enum verdict hx_drive_verdict(struct hx *h, enum verdict v);
/* A failed guest: report it and stop it. */
void hx_fail(struct hx *h, enum verdict v, const char *what);
void hx_stop(struct hx *h);

#endif

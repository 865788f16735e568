#define _GNU_SOURCE
#include "hx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "guestcmd.h"
#include "hostrun.h"
#include "outdir.h"

const struct hx_timeouts hx_default_timeouts = {
	.boot = 60000,
	.cmd = 30000,
	.qmp = 5000,
	.request = 10000,
	.suspend = 60000,
	.wake = 30000,
	.done = 10000,
	.first_key = 1000,
	.key_every = 400,
};

void hx_init(struct hx *h, const struct hx_opts *o)
{
	memset(h, 0, sizeof(*h));
	h->o = o;
	h->base = hx_default_timeouts;
	h->mem_mb = 2048;
	h->max_boot_failures = 3;
	h->h_img = h->h_mark = -1;
	h->qemu = cli_env("SLAB_QEMU");
	drive_init(&h->drive);
	cleanup_install();
}

int hx_ms(const struct hx *h, int base_ms)
{
	long long ms = (long long)base_ms * (h->o->timeout_scale > 0 ? h->o->timeout_scale : 1);

	return ms > 2000000000 ? 2000000000 : (int)ms;
}

void hx_progress(const struct hx *h, const char *fmt, ...)
{
	va_list ap;

	if (h->o->quiet)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

int hx_image(struct hx *h, const char *path, uint64_t bytes)
{
	hx_image_drop(h);
	snprintf(h->img, sizeof(h->img), "%s", path);
	if (!h->o->keep_logs) {
		h->h_img = cleanup_file(h->img);
		/* a later run sweeps it if this one is killed (outdir.h) */
		if (outdir_mark_temporary(h->img, &h->h_mark))
			h->h_mark = -1;
	}
	h->img_why[0] = '\0';
	return fs_mkfs_why(h->o->fs, "ssdata", h->img, bytes, h->img_why, sizeof(h->img_why));
}

void hx_mount_cmd(const struct hx *h, char *buf, size_t n)
{
	const struct fs_kind *k = h->o->fs;

	snprintf(buf, n, "mount -t %s%s%s LABEL=ssdata " HX_DATA_MNT, k->name,
		 k->mount_opts[0] ? " -o " : "", k->mount_opts);
}

void hx_image_keep(struct hx *h)
{
	char mark[1300];

	if (h->h_mark >= 0) {
		outdir_mark_name(mark, sizeof(mark), h->img);
		unlink(mark);
	}
	cleanup_forget(h->h_img);
	cleanup_forget(h->h_mark);
	h->h_img = h->h_mark = -1;
	h->img[0] = '\0';
}

void hx_image_drop(struct hx *h)
{
	char mark[1300];

	if (h->img[0] && !h->o->keep_logs) {
		unlink(h->img);
		outdir_mark_name(mark, sizeof(mark), h->img);
		unlink(mark);
	}
	cleanup_forget(h->h_img);
	cleanup_forget(h->h_mark);
	h->h_img = h->h_mark = -1;
	h->img[0] = '\0';
}

const char *hx_logs_subdir(const struct hx_opts *o)
{
	static char sub[64];

	if (!o->keep_logs)
		return NULL;
	if (!sub[0]) {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(sub, sizeof(sub), "logs/run-%Y%m%dT%H%M%SZ", &tm);
		snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), "-%ld", (long)getpid());
	}
	return sub;
}

bool hx_drive_chosen(const struct hx_opts *o, bool throttled)
{
	/* the drive model is part of the profile: on the throttled disk only */
	return throttled && o->drive_model == HX_DRIVE_AUTO && drive_wanted(o->profile);
}

const char *hx_disk_cache_mode(const struct hx_opts *o, bool throttled)
{
	if (!hx_drive_chosen(o, throttled))
		return "none";		/* QEMU's cache=none on the image */
	/* drive_vm() and drive_start() follow the profile's cache */
	return o->profile && o->profile->volatile_cache ? "writeback" : "writethrough";
}

void hx_config(struct hx *h, struct vm_config *cfg, bool throttled, char *throttle,
	       size_t n)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->qemu = h->qemu;
	cfg->kernel = h->o->kernel;
	cfg->initrd = h->o->initrd;
	cfg->firmware = h->o->firmware;
	cfg->accel = h->o->accel;
	cfg->mem_mb = h->mem_mb;
	cfg->smp = 2;
	cfg->append = h->append;
	cfg->boot_timeout_ms = hx_ms(h, h->base.boot);
	cfg->qmp_timeout_ms = hx_ms(h, h->base.qmp);
	throttle[0] = '\0';
	if (throttled)
		disk_profile_throttle(h->o->profile, throttle, n);
	h->drive_on = h->img[0] && hx_drive_chosen(h->o, throttled);
	if (h->drive_on)
		cfg->drives[cfg->n_drives++] = drive_vm(&h->drive, h->o->profile,
							throttle, n);
	else if (h->img[0])
		cfg->drives[cfg->n_drives++] = (struct vm_drive){
			.file = h->img, .opts = throttle };
	if (h->o->tools_disk)
		cfg->drives[cfg->n_drives++] = (struct vm_drive){
			.file = h->o->tools_disk, .readonly = true };
}

void hx_format_command(struct hx *h, bool throttled, char *buf, size_t n)
{
	struct vm_config cfg;
	struct vm vm = { 0 };
	char throttle[160];

	hx_config(h, &cfg, throttled, throttle, sizeof(throttle));
	vm_build_argv(&vm, &cfg);
	vm_format_command(&vm, buf, n);
	for (int i = 0; i < vm.argc; i++)
		free(vm.argv[i]);
}

enum verdict hx_boot(struct hx *h, const char *tag, bool throttled)
{
	struct vm_config cfg;
	char throttle[160];

	hx_config(h, &cfg, throttled, throttle, sizeof(throttle));
	return hx_start(h, tag, &cfg);
}

/* nbdkit before QEMU, which connects to it at start-up. */
static enum verdict start_drive(struct hx *h)
{
	struct drive_config dc = {
		.image = h->img, .profile = h->o->profile,
		.drop_flushes = h->o->drop_flushes,
		.logdir = h->o->keep_logs ? h->logdir : NULL,
		.timeout_ms = hx_ms(h, 10000),
	};

	h->drive_reported = false;
	if (!drive_start(&h->drive, &dc))
		return VERDICT_OK;
	drive_report(&h->drive);
	drive_stop(&h->drive);
	return VERDICT_NBDKIT_FAILED;
}

enum verdict hx_start(struct hx *h, const char *tag, struct vm_config *c)
{
	struct vm_config cfg = *c;
	enum verdict v = VERDICT_OK;
	char *out = NULL;

	if (h->up)
		hx_stop(h);
	if (h->boot_failures >= h->max_boot_failures)
		return VERDICT_NOT_RUN;
	h->boots++;
	if (h->o->keep_logs) {
		/* this run's own folder: an earlier run's logs are never mixed in */
		int len = snprintf(h->logdir, sizeof(h->logdir), "%s/%s/%s", h->o->out_dir,
				   hx_logs_subdir(h->o), tag);

		if (len < 0 || (size_t)len >= sizeof(h->logdir)) {
			fprintf(stderr, "%s: %s: the log folder's path is longer than %zu bytes\n",
				cli_prog, tag, sizeof(h->logdir) - 1);
			h->logdir[0] = '\0';
			h->boot_failures = h->max_boot_failures;	/* every boot would */
			return VERDICT_SETUP_FAILED;
		}
		cfg.logdir = h->logdir;
	}
	if (h->drive_on)
		v = start_drive(h);
	if (!v && (v = vm_start(&h->vm, &cfg))) {
		v = hx_drive_verdict(h, v);	/* QEMU found no drive to open */
		vm_report_death(&h->vm);
		vm_stop(&h->vm);
		drive_stop(&h->drive);
	}
	if (v) {
		h->boot_failures++;
		fprintf(stderr, "%s: %s: guest did not boot: %s\n", cli_prog, tag,
			verdict_name(v));
		if (h->boot_failures == h->max_boot_failures)
			fprintf(stderr, "%s: %d failed boots: no more boots in this run\n",
				cli_prog, h->boot_failures);
		return v;
	}
	h->up = true;
	if (!h->release[0]) {
		const char *qv = qmp_qemu_version(h->vm.qmp);

		snprintf(h->release, sizeof(h->release), "%s", h->vm.release);
		snprintf(h->qemu_version, sizeof(h->qemu_version), "%s", qv ? qv : "?");
		snprintf(h->knob, sizeof(h->knob), "%s", h->vm.knob);
		h->boot_s = h->vm.t_ready - h->vm.t_spawn;
		if (!hx_run(h, h->base.cmd, &out, "RUN test -e /sys/kernel/tracing/events/"
			    "power/suspend_page_cache && echo yes || echo no"))
			h->at_risk_report = !strncmp(out, "yes", 3);
		free(out);
	}
	hx_progress(h, "%s: booted %s in %.1f s (QEMU %s, %s, knob %s)", tag,
		    h->vm.release, h->vm.t_ready - h->vm.t_spawn, h->qemu_version,
		    h->o->firmware == VM_FW_UEFI ? "UEFI/q35" : "SeaBIOS/i440fx",
		    h->vm.knob);
	return VERDICT_OK;
}

static const char *const wb_keys[] = {
	"vm.dirty_writeback_centisecs", "vm.dirty_expire_centisecs",
	"vm.dirty_ratio", "vm.dirty_background_ratio",
};
/* held: no flusher, no expiry, ratios high enough for any dirty size */
static const char *const wb_held[] = { "0", "360000", "90", "80" };

enum verdict hx_prepare(struct hx *h, bool pm_debug)
{
	char mount[200];
	enum verdict v;

	h->wb_defaults[0] = '\0';
	hx_mount_cmd(h, mount, sizeof(mount));
	v = hx_run(h, h->base.cmd, NULL, "RUN %s%s", mount,
		   pm_debug ? " && echo 1 > /sys/power/pm_debug_messages"
			      " && echo 8 > /proc/sys/kernel/printk" : "");
	if (!v && h->o->tools_disk)
		v = hx_run(h, h->base.cmd, NULL, "RUN test -x " HX_FIO);
	if (v)
		fprintf(stderr, "%s: guest set-up failed (data disk mounted? tools disk attached?)\n",
			cli_prog);
	return v;
}

enum verdict hx_hold_writeback(struct hx *h, bool held)
{
	char cmd[512], *out = NULL;
	size_t len = 0;
	enum verdict v;

	if (!h->wb_defaults[0]) {
		v = hx_run(h, h->base.cmd, &out, "RUN sysctl -n %s %s %s %s", wb_keys[0],
			   wb_keys[1], wb_keys[2], wb_keys[3]);
		if (v)
			return v;
		for (char *p = out; *p; p++)
			if (*p == '\n')
				*p = ' ';
		snprintf(h->wb_defaults, sizeof(h->wb_defaults), "%s", out);
		free(out);
	}
	len = snprintf(cmd, sizeof(cmd), "RUN sysctl -q -w");
	for (unsigned int i = 0; i < 4; i++) {
		char def[32] = "";

		if (!held)
			sscanf(h->wb_defaults, i == 0 ? "%31s" : i == 1 ? "%*s %31s" :
			       i == 2 ? "%*s %*s %31s" : "%*s %*s %*s %31s", def);
		len += snprintf(cmd + len, sizeof(cmd) - len, " %s=%s", wb_keys[i],
				held ? wb_held[i] : def);
	}
	return hx_run(h, h->base.cmd, NULL, "%s", cmd);
}

const char *hx_knob_path(const struct hx *h)
{
	return strcmp(h->vm.knob, "suspend_sync") ? "/sys/power/sync_on_suspend" :
		"/proc/sys/kernel/suspend_sync";
}

enum verdict hx_set_knob(struct hx *h, int sync)
{
	int status = -1;
	char req[128];
	enum verdict v;

	snprintf(req, sizeof(req), "SET %s %d", hx_knob_path(h), sync);
	v = vm_agent_request(&h->vm, req, NULL, NULL, hx_ms(h, h->base.cmd), &status);
	if (!v && status) {
		fprintf(stderr, "%s: %s refused %d: %s\n", cli_prog, hx_knob_path(h),
			sync, strerror(status));
		v = VERDICT_SETUP_FAILED;
	}
	return v;
}

enum verdict hx_run(struct hx *h, int base_ms, char **out, const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return guest_req(&h->vm, hx_ms(h, base_ms), out, NULL, "%s", cmd);
}

enum verdict hx_cut(struct hx *h)
{
	bool dead = drive_died(&h->drive);	/* before the cut: a failure */

	if (h->drive.started && !dead)
		drive_kill(&h->drive);
	if (!vm_kill(&h->vm))
		return VERDICT_QEMU_DIED;
	return dead ? hx_drive_verdict(h, VERDICT_OK) : VERDICT_OK;
}

enum verdict hx_drive_verdict(struct hx *h, enum verdict v)
{
	if (!drive_died(&h->drive))
		return v;
	if (!h->drive_reported) {
		fprintf(stderr, "%s: the drive model failed: %s\n", cli_prog,
			verdict_name(VERDICT_NBDKIT_FAILED));
		drive_report(&h->drive);
	}
	h->drive_reported = true;
	return VERDICT_NBDKIT_FAILED;
}

void hx_fail(struct hx *h, enum verdict v, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", cli_prog, what, verdict_name(v));
	/* no QEMU this boot (the drive model failed first): an earlier
	 * boot's console would only mislead */
	if (h->up)
		vm_report_death(&h->vm);
	hx_stop(h);
}

void hx_stop(struct hx *h)
{
	if (h->up)
		vm_stop(&h->vm);
	h->up = false;
	/* after QEMU, whose quit flushes the drive as a clean shutdown does */
	drive_stop(&h->drive);
}

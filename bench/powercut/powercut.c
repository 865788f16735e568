#define _GNU_SOURCE
#include "powercut.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "guestcmd.h"
#include "hostrun.h"
#include "vmsuspend.h"

#define MIB (1024ULL * 1024)

void pc_record_init(struct pc_record *r, const struct pc_opts *o, int index)
{
	memset(r, 0, sizeof(*r));
	r->state = o->state;
	r->sync = o->sync;
	r->cut = o->mix ? (enum cut_point)(index % CUT__COUNT) : o->cut;
	r->cut_offset_ms = -1;
	r->kernel_at_risk_kb = -1;
	r->kernel_writeback_kb = -1;
	r->at_risk_slack_kb = -1;
	r->dirty_kb_at_cut = -1;
	r->fio_verify = -1;
	r->verdict = VERDICT_NOT_RUN;
	if (r->cut == CUT_SYNC) {
		/* within the time the sync of the whole dataset would take */
		uint64_t bps = o->hx.profile->write_bps ? o->hx.profile->write_bps : 200 * MIB;
		double est = (o->big_bytes + 16 * MIB) / (double)bps;
		unsigned int rs = o->seed * 7919u + index;

		r->cut_offset_ms = o->cut_offset_ms >= 0 ? o->cut_offset_ms :
			(int)(rand_r(&rs) % (unsigned int)(est * 1000 + 1));
	}
	pc_plan(o, index, r);
	for (int i = 0; i < r->n_files; i++)
		r->dataset_bytes += r->files[i].size;
}

__attribute__((format(printf, 4, 5)))
static enum verdict fail(struct hx *h, struct pc_record *r, enum verdict v,
			 const char *fmt, ...)
{
	va_list ap;

	if (v != VERDICT_OK && v != VERDICT_NOT_RUN && h->up && !vm_alive(&h->vm))
		v = VERDICT_QEMU_DIED;
	r->verdict = v;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return v;
}

/* The node counters fold per-CPU deltas at the largest zone threshold. */
static enum verdict read_slack(struct hx *h, struct pc_record *r)
{
	char *out = NULL;
	enum verdict v = hx_run(h, h->base.cmd, &out,
				"RUN echo cpus=$(grep -c ^processor /proc/cpuinfo)"
				" threshold=$(awk '/vm stats threshold/ { if ($4 > m) m = $4 }"
				" END { print m + 0 }' /proc/zoneinfo)");

	if (!v)
		r->at_risk_slack_kb = pc_counter_slack_kb(out);
	free(out);
	return v;
}

/* Kills QEMU at the chosen point of the suspend; OK only if it was cut. */
static enum verdict cut(const struct pc_opts *o, struct hx *h, struct pc_record *r)
{
	struct vm *vm = &h->vm;
	long serial_from = vm_serial_size(vm);
	int susp_ms = hx_ms(h, h->base.suspend + (int)(2000.0 * r->dataset_bytes /
			    (o->hx.profile->write_bps ? o->hx.profile->write_bps : 200 * MIB)));
	double t_req, t_event;
	enum agent_msg tag;
	enum chan_status s;
	char line[256], why[200], *rest;
	enum verdict v;

	/* every dirty inode expired, and the flusher woken (a new interval) */
	if (o->inflight &&
	    (v = hx_run(h, h->base.cmd, NULL, "RUN sysctl -q -w vm.dirty_expire_centisecs=1 "
			"vm.dirty_writeback_centisecs=100")))
		return fail(h, r, v, "starting the writeback: %s", verdict_name(v));
	if ((s = chan_send(&vm->agent, "SUSPEND %s", o->state)))
		return fail(h, r, vm_chan_verdict(vm, s), "SUSPEND: %s", vm->agent.why);
	s = chan_recv(&vm->agent, mono_now() + hx_ms(h, h->base.request) / 1000.0, &tag, &rest);
	if (!s && tag != AGENT_MSG_REQUEST)
		return fail(h, r, VERDICT_PROTOCOL, "%s before REQUEST", agent_msg_name(tag));
	if (s)
		return fail(h, r, vm_chan_verdict(vm, s), "waiting for REQUEST: %s",
			    vm->agent.why);
	t_req = mono_now();
	if (!agent_kv_ll(rest, "dirty_kb", &r->dirty_kb_at_cut))
		return fail(h, r, VERDICT_PROTOCOL, "REQUEST without dirty_kb");

	switch (r->cut) {
	case CUT_REQUEST:
		break;
	case CUT_SYNC:
		while (mono_now() < t_req + r->cut_offset_ms / 1000.0 && vm_alive(vm))
			usleep(1000);
		break;
	case CUT_SUSPENDED:
		if (!strcmp(o->state, "mem")) {
			v = vm_await_suspend(vm, susp_ms, &t_event, &rest, why, sizeof(why));
			if (v)
				return fail(h, r, v, "%s: nothing was cut", why);
		} else if (!vm_serial_wait(vm, "PM: suspend-to-idle", serial_from, susp_ms)) {
			return fail(h, r, VERDICT_NO_SUSPEND_EVENT,
				    "no 'PM: suspend-to-idle' in %d ms: nothing was cut", susp_ms);
		}
		break;
	default:
		return fail(h, r, VERDICT_PROTOCOL, "unknown cut point");
	}
	/* nbdkit too, when the drive model is on: its cache is lost */
	v = hx_cut(h);
	r->cut_by_sigkill = v == VERDICT_OK;
	if (v)
		return fail(h, r, v, "%s died before the cut",
			    v == VERDICT_NBDKIT_FAILED ? "nbdkit" : "QEMU");
	/* the kernel's own figure, if it got to say it before the cut */
	if (vm_serial_find(vm, "PM: Page cache not on storage: ", serial_from, line, sizeof(line)) &&
	    (r->kernel_at_risk_kb = pc_kernel_at_risk_kb(line)) >= 0)
		sscanf(strstr(line, "writeback: "), "writeback: %lld", &r->kernel_writeback_kb);
	return VERDICT_OK;
}

/*
 * Overwrites 4 KiB of the control file's first block in the image.  The
 * image's path (under --out) is an argument, never shell text.
 */
static int corrupt_image(const char *img)
{
	char *arg = host_path_arg(img), *out = NULL, junk[4096];
	char *replay[] = { "e2fsck", "-E", "journal_only", "-p", arg, NULL };
	char *bmap[] = { "debugfs", "-R", "bmap /pc/control.bin 0", arg, NULL };
	long long blk = -1;
	int fd, ok;

	if (!arg)
		return -1;
	/* with a volatile write cache (the drive model) the cut may leave the
	 * file's metadata in the journal alone: replay it first, as the mount
	 * after the cut would */
	host_run(replay, true);
	ok = host_run_out(bmap, &out, 64) == 0 && sscanf(out, "%lld", &blk) == 1 && blk > 0;
	free(out);
	free(arg);
	if (!ok)
		return -1;
	memset(junk, 0x5a, sizeof(junk));
	fd = open(img, O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && pwrite(fd, junk, sizeof(junk), blk * 4096) == sizeof(junk);
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

static enum verdict before(const struct pc_opts *o, struct hx *h, struct pc_record *r,
			   const char *tag)
{
	enum verdict v = hx_boot(h, tag, true);

	if (v)
		return fail(h, r, v, "boot before the cut");
	snprintf(r->kernel_release, sizeof(r->kernel_release), "%s", h->vm.release);
	snprintf(r->qemu_version, sizeof(r->qemu_version), "%s", h->qemu_version);
	snprintf(r->knob, sizeof(r->knob), "%s", h->vm.knob);
	if ((v = hx_prepare(h, true)) || (v = hx_hold_writeback(h, true)) ||
	    (v = hx_set_knob(h, o->sync)) ||
	    (v = read_slack(h, r)) || (v = pc_write_dataset(h, r)))
		return fail(h, r, verdict_is_host(v) ? v : VERDICT_SETUP_FAILED,
			    "set-up before the cut: %s", verdict_name(v));
	if (o->tamper == TAMPER_MANIFEST)
		r->files[0].seed ^= 1;	/* the oracle must call this corrupted */
	return VERDICT_OK;
}

static enum verdict after(struct hx *h, struct pc_record *r, const char *tag)
{
	enum verdict v = hx_boot(h, tag, false);
	char mount[200];
	int status = 0;

	if (v)
		return fail(h, r, v, "boot after the cut");
	/* mounting replays the journal (the log, the tree's last commit) */
	hx_mount_cmd(h, mount, sizeof(mount));
	v = guest_req(&h->vm, hx_ms(h, 60000), NULL, &status, "RUN %s", mount);
	if (v == VERDICT_SETUP_FAILED) {
		pc_judge_unmountable(r);
		r->judged = true;
		return fail(h, r, VERDICT_FS_UNMOUNTABLE, "mount failed with status %d", status);
	}
	if (v)
		return fail(h, r, v, "mount after the cut");
	r->fs_mounted = true;
	if ((v = pc_verify_mounted(h, r, HX_DATA_MNT, NULL)))
		return fail(h, r, v, "verifying the dataset");
	r->judged = true;
	if ((v = hx_run(h, h->base.cmd, NULL, "RUN umount " HX_DATA_MNT)))
		return fail(h, r, v, "umount after the oracle");
	return VERDICT_OK;
}

enum verdict pc_cycle(const struct pc_opts *o, int index, struct pc_record *r,
		      const struct hx_timeouts *base)
{
	uint64_t img_bytes = 4 * o->big_bytes + (512ULL << 20);
	char *img = NULL, tag[64], why[200];
	struct hx h;
	enum verdict v;

	hx_init(&h, &o->hx);
	if (base)
		h.base = *base;
	h.mem_mb = 1024;
	if (o->inflight)
		h.append = "virtio_blk.queue_depth=4";
	pc_record_init(r, o, index);
	/* any length: a cut name could be another file */
	if (asprintf(&img, "%s/cut-%d.img", o->hx.out_dir, index + 1) < 0)
		return fail(&h, r, VERDICT_IMAGE_FAILED, "out of memory");
	if (hx_image(&h, img, img_bytes)) {
		fail(&h, r, VERDICT_IMAGE_FAILED, "the data image %.200s could not be made: %s",
		     img, h.img_why[0] ? h.img_why : "see above");
		free(img);
		return r->verdict;
	}

	snprintf(tag, sizeof(tag), "cut-%d-before", index + 1);
	v = before(o, &h, r, tag);
	if (!v)
		v = cut(o, &h, r);
	if (v) {
		if (h.up)
			hx_fail(&h, v, "before the cut");
		goto out;
	}
	hx_stop(&h);
	if (o->tamper == TAMPER_IMAGE && corrupt_image(img))
		fprintf(stderr, "%s: could not corrupt the image\n", cli_prog);

	snprintf(tag, sizeof(tag), "cut-%d-after", index + 1);
	v = after(&h, r, tag);
	if (v && v != VERDICT_FS_UNMOUNTABLE && h.up)
		hx_fail(&h, v, "after the cut");
	hx_stop(&h);
	if (r->judged) {
		int ck;

		pc_tally(r);
		/* on the host: the image is a file there, and Debian's checkers
		 * are not on the guest's tools disk */
		ck = fs_check(o->hx.fs, img, why, sizeof(why));
		r->fs_clean = ck == 0;
		if (ck < 0)
			fprintf(stderr, "%s: %s could not check %s: %s\n", cli_prog,
				o->hx.fs->checker, img, why);
		if (!v)
			r->verdict = VERDICT_OK;
	}
out:
	hx_stop(&h);
	hx_image_drop(&h);
	free(img);
	return r->verdict;
}

/*
 * One recorded cycle: the guest boots on a copy of a fresh image whose
 * every write goes through QEMU's blklogwrites into write.log, writes the
 * power-cut dataset (the log's size noted around each file), suspends, and
 * is cut once suspended.  The pristine image stays as base.img, so any
 * log position can be replayed onto it.
 */
#define _GNU_SOURCE
#include "crash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "image.h"
#include "vmsuspend.h"

#define MIB (1024ULL * 1024)

struct rec {
	struct cs_cycle *c;
	char log[800];
};

static uint64_t log_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

static void on_mark(void *ctx, int file, bool done)
{
	struct rec *rc = ctx;

	if (file < 0 || file >= PC_MAX_FILES)
		return;
	if (done)
		rc->c->file_end[file] = log_size(rc->log);
	else
		rc->c->file_begin[file] = log_size(rc->log);
	if (file == 0 && !done)
		rc->c->at_start = rc->c->file_begin[0];
}

/*
 * The data disk as -blockdev nodes: the image (O_DIRECT, as cache=none)
 * under blklogwrites, under the profile's throttling, so the log sees the
 * writes in the order the throttled disk completed them.
 */
static int blockdev_args(const struct cs_opts *o, const char *img, const char *log,
			 char args[8][1400], const char *argv[16])
{
	const struct disk_profile *p = o->hx.profile;
	char ei[1300], el[1300];
	int a = 0, k = 0;
	bool thr = p->write_bps || p->write_iops;

	vm_opt_escape(ei, sizeof(ei), img);
	vm_opt_escape(el, sizeof(el), log);
	if (thr) {
		int len = snprintf(args[a], sizeof(args[a]), "throttle-group,id=cstg");

		if (p->write_bps)
			len += snprintf(args[a] + len, sizeof(args[a]) - len, ",x-bps-write=%llu",
					(unsigned long long)p->write_bps);
		if (p->write_iops)
			snprintf(args[a] + len, sizeof(args[a]) - len, ",x-iops-write=%llu",
				 (unsigned long long)p->write_iops);
		argv[k++] = "-object";
		argv[k++] = args[a++];
	}
	snprintf(args[a], sizeof(args[a]),
		 "driver=file,node-name=csimg,filename=%s,cache.direct=on,aio=threads", ei);
	argv[k++] = "-blockdev";
	argv[k++] = args[a++];
	snprintf(args[a], sizeof(args[a]), "driver=file,node-name=cslogf,filename=%s", el);
	argv[k++] = "-blockdev";
	argv[k++] = args[a++];
	snprintf(args[a], sizeof(args[a]), "driver=blklogwrites,node-name=cslw,file=csimg,"
		 "log=cslogf,log-sector-size=512");
	argv[k++] = "-blockdev";
	argv[k++] = args[a++];
	if (thr) {
		snprintf(args[a], sizeof(args[a]),
			 "driver=throttle,node-name=csthr,throttle-group=cstg,file=cslw");
		argv[k++] = "-blockdev";
		argv[k++] = args[a++];
	}
	/* write-cache=on: the guest sees a volatile cache and sends flushes */
	snprintf(args[a], sizeof(args[a]), "virtio-blk-pci,drive=%s,serial=ssdata,write-cache=on",
		 thr ? "csthr" : "cslw");
	argv[k++] = "-device";
	argv[k++] = args[a++];
	argv[k] = NULL;
	return k;
}

/* Suspends and waits until the guest is down; the log's size at the
 * request and once suspended go into c. */
static enum verdict suspend(const struct cs_opts *o, struct hx *h, struct rec *rc,
			    uint64_t dataset)
{
	struct vm *vm = &h->vm;
	long from = vm_serial_size(vm);
	uint64_t bps = o->hx.profile->write_bps ? o->hx.profile->write_bps : 200 * MIB;
	int ms = hx_ms(h, h->base.suspend + (int)(2000.0 * dataset / bps));
	enum agent_msg tag;
	enum chan_status s;
	char *rest;

	rc->c->at_request = log_size(rc->log);
	if ((s = chan_send(&vm->agent, "SUSPEND %s", o->state)))
		return vm_chan_verdict(vm, s);
	s = chan_recv(&vm->agent, mono_now() + hx_ms(h, h->base.request) / 1000.0, &tag, &rest);
	if (s)
		return vm_chan_verdict(vm, s);
	if (tag != AGENT_MSG_REQUEST)
		return VERDICT_PROTOCOL;
	if (!strcmp(o->state, "mem")) {
		double t_event;
		char why[200];
		enum verdict v = vm_await_suspend(vm, ms, &t_event, &rest, why, sizeof(why));

		if (v) {
			fprintf(stderr, "%s: %s\n", cli_prog, why);
			return v;
		}
	} else if (!vm_serial_wait(vm, "PM: suspend-to-idle", from, ms)) {
		return VERDICT_NO_SUSPEND_EVENT;
	}
	rc->c->at_suspended = log_size(rc->log);
	rc->c->suspended = true;
	return VERDICT_OK;
}

static enum verdict run_guest(const struct cs_opts *o, struct hx *h, struct rec *rc,
			      const char *work)
{
	char args[8][1400], thr[160], tag[32];
	const char *extra[16];
	struct vm_config cfg;
	struct pc_record r;
	struct pc_opts po;
	enum verdict v;

	blockdev_args(o, work, rc->log, args, extra);
	hx_config(h, &cfg, false, thr, sizeof(thr));
	cfg.extra = extra;
	if (o->hx.show_command) {
		struct vm vm = { 0 };
		char buf[8192];

		vm_build_argv(&vm, &cfg);
		vm_format_command(&vm, buf, sizeof(buf));
		printf("%s\n", buf);
		for (int i = 0; i < vm.argc; i++)
			free(vm.argv[i]);
	}
	snprintf(tag, sizeof(tag), "record-%d", rc->c->number);
	if ((v = hx_start(h, tag, &cfg)))
		return v;
	snprintf(rc->c->kernel_release, sizeof(rc->c->kernel_release), "%s", h->vm.release);
	snprintf(rc->c->qemu_version, sizeof(rc->c->qemu_version), "%s", h->qemu_version);
	snprintf(rc->c->knob, sizeof(rc->c->knob), "%s", h->vm.knob);
	memset(&po, 0, sizeof(po));
	po.hx = o->hx;
	po.state = o->state;
	po.sync = rc->c->sync;
	po.cut = CUT_SUSPENDED;
	po.seed = o->seed;
	po.big_bytes = o->big_bytes;
	pc_record_init(&r, &po, rc->c->plan_index);
	rc->c->n_files = r.n_files;
	if ((v = hx_prepare(h, !strcmp(o->state, "freeze"))) ||
	    (v = hx_hold_writeback(h, true)) ||
	    (v = hx_set_knob(h, rc->c->sync)) ||
	    (v = pc_write_dataset_marked(h, &r, on_mark, rc)))
		return v;
	if ((v = suspend(o, h, rc, r.dataset_bytes)))
		return v;
	if (!vm_kill(&h->vm))
		return VERDICT_QEMU_DIED;
	rc->c->at_end = log_size(rc->log);
	return VERDICT_OK;
}

/* The whole log replayed onto base.img must give the disk QEMU wrote:
 * nothing was in flight once the guest suspended. */
static bool replay_check(struct cs_cycle *c, const char *log, const char *base,
			 const char *work, const char *tmp)
{
	struct lw_log l;
	char why[300];
	long long at = -1;
	int same = 0;

	if (lw_open(&l, log, 512, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", cli_prog, why);
		return false;
	}
	{
		struct cs_state all = { .kind = CS_PREFIX, .pos = l.n };

		if (!cs_build_image(&l, &all, base, tmp, why, sizeof(why)))
			same = cs_same_content(tmp, work, &at);
		else
			fprintf(stderr, "%s: %s\n", cli_prog, why);
	}
	unlink(tmp);
	if (same == 0)
		fprintf(stderr, "%s: cycle %d: the replayed log differs from the recorded disk"
			" at byte %lld\n", cli_prog, c->number, at);
	lw_close(&l);
	return same == 1;
}

enum verdict cs_record(const struct cs_opts *o, int number, int sync, const char *dir)
{
	struct cs_cycle c;
	struct rec rc = { .c = &c };
	char base[800], work[800], tmp[800];
	int hd, hb, hl, hw, ht;
	struct hx h;
	enum verdict v;
	time_t t = time(NULL);
	FILE *f;

	memset(&c, 0, sizeof(c));
	c.number = number;
	c.sync = sync;
	c.plan_index = number - 1;
	c.seed = o->seed;
	c.big_bytes = o->big_bytes;
	snprintf(c.state, sizeof(c.state), "%s", o->state);
	snprintf(c.profile, sizeof(c.profile), "%s", o->hx.profile->name);
	snprintf(c.fs, sizeof(c.fs), "%s", o->hx.fs->name);
	snprintf(c.dir, sizeof(c.dir), "%s", dir);
	strftime(c.date, sizeof(c.date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	snprintf(base, sizeof(base), "%s/base.img", dir);
	snprintf(work, sizeof(work), "%s/work.img", dir);
	snprintf(tmp, sizeof(tmp), "%s/replay.img", dir);
	snprintf(rc.log, sizeof(rc.log), "%s/write.log", dir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot make %s: %s\n", cli_prog, dir, strerror(errno));
		return VERDICT_SETUP_FAILED;
	}
	/* half a recording is no recording: all of it goes unless it completes */
	hd = cleanup_dir(dir);
	hb = cleanup_file(base);
	hl = cleanup_file(rc.log);
	hw = cleanup_file(work);
	ht = cleanup_file(tmp);
	hx_init(&h, &o->hx);
	h.mem_mb = 1024;
	/* the image is ours to keep: not the harness's data drive */
	v = hx_image(&h, base, 4 * o->big_bytes + (256ULL << 20)) ? VERDICT_IMAGE_FAILED : 0;
	hx_image_keep(&h);
	f = v ? NULL : fopen(rc.log, "we");
	if (!v && (!f || fclose(f) || cs_copy_sparse(base, work, tmp, sizeof(tmp)))) {
		fprintf(stderr, "%s: cannot set up %s: %s\n", cli_prog, dir, tmp);
		v = VERDICT_SETUP_FAILED;
	}
	snprintf(tmp, sizeof(tmp), "%s/replay.img", dir);
	if (!v)
		v = run_guest(o, &h, &rc, work);
	/* a guest that never booted was reported by hx_start() already */
	if (v && h.up)
		hx_fail(&h, v, "recording");
	hx_stop(&h);
	if (!v) {
		c.replay_matches = replay_check(&c, rc.log, base, work, tmp);
		if (!c.replay_matches)
			v = VERDICT_PROTOCOL;
	}
	unlink(work);
	unlink(tmp);
	cleanup_forget(hw);
	cleanup_forget(ht);
	if (!v && cs_meta_write(&c))
		v = VERDICT_SETUP_FAILED;
	if (v) {
		unlink(base);
		unlink(rc.log);
		rmdir(dir);
	}
	cleanup_forget(hb);
	cleanup_forget(hl);
	cleanup_forget(hd);
	return v;
}

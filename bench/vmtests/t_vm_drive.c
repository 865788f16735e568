/*
 * t_vm_drive: the drive model under a real guest (nbdkit between QEMU and
 * the data image).
 *
 * Guards: the guest sees a volatile write cache ("write back") when the
 * profile has one and "write through" when it has none; in a sync=1 mem
 * cycle the device saw the dirty data and at least one flush during the
 * sync phase, each flush at least the profile's latency, with QMP and
 * nbdkit's log agreeing on the bytes; in a sync=0 cycle no flush reached
 * the device from the request to the resume (virtblk_freeze() sends
 * none); a sync=1 cut while suspended loses 0 bytes on the emmc profile;
 * with flushes dropped on purpose the same cut loses data, the fsync'd
 * file included, and the oracle says so: the cache model bites.
 *
 * Environment: KERNEL, INITRD, TOOLS_DISK.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cycle.h"
#include "devstats.h"
#include "powercut.h"
#include "tap.h"
#include "vmtest.h"

#define MIB (1024ULL * 1024)
#define DIRTY_MIB 16

static char dir[] = "/tmp/t_vm_drive.XXXXXX";

static bool boot(struct hx *h, const struct hx_opts *o, const char *tag)
{
	char img[600];

	hx_init(h, o);
	snprintf(img, sizeof(img), "%s/data.img", dir);
	return !hx_image(h, img, 512 * MIB) && !hx_boot(h, tag, true) &&
	       !hx_prepare(h, false) && !hx_hold_writeback(h, true);
}

static void write_cache(struct hx *h, const char *want, const char *what)
{
	char *out = NULL;

	hx_run(h, h->base.cmd, &out, "RUN cat /sys/block/vda/queue/write_cache");
	tap_ok(out && !strncmp(out, want, strlen(want)), "%s: the guest sees '%s' (%s)",
	       what, want, out ? strtok(out, "\n") : "no answer");
	free(out);
}

/* Host CLOCK_REALTIME of a guest trace instant (guest mono seconds). */
static double host_real(const struct cycle *c, double guest_mono)
{
	return guest_mono + (c->req_guest.real - c->req_guest.mono) - c->off_pre;
}

static void cycle(struct hx *h, int sync)
{
	const struct disk_profile *p = h->o->profile;
	struct cycle_timeouts to = cycle_default_timeouts;
	struct dev_counts q0, q1, q, sync_log, all_log;
	struct dev_model m;
	struct cycle c;
	double b, e;
	bool ok;

	ok = !hx_set_knob(h, sync) &&
	     !hx_run(h, h->base.cmd, NULL, "RUN dd if=/dev/zero of=" HX_DATA_MNT
		     "/dirty bs=1M count=%d 2>/dev/null", DIRTY_MIB) &&
	     !devstats_query(h->vm.qmp, DEVSTATS_DATA_DEVICE, 5000, &q0);
	to.suspend_ms = 60000;
	ok = ok && !cycle_run(&h->vm, "mem", &to, &c) &&
	     !devstats_query(h->vm.qmp, DEVSTATS_DATA_DEVICE, 5000, &q1);
	tap_ok(ok, "sync=%d: a mem cycle with %d MiB dirty (%s)", sync, DIRTY_MIB,
	       verdict_name(c.verdict));
	if (!ok)
		return;
	q = devstats_delta(&q1, &q0);
	devlog_window(h->drive.log, 0, c.req_host, c.resumed_host, &all_log);
	tap_diag("sync=%d QMP, request to resume: %llu writes, %llu bytes, %llu flushes "
		 "(%.1f ms); nbdkit log: %llu writes, %llu bytes, %llu flushes (%.1f ms)",
		 sync, (unsigned long long)q.wr_ops, (unsigned long long)q.wr_bytes,
		 (unsigned long long)q.flush_ops, q.flush_time_s * 1e3,
		 (unsigned long long)all_log.wr_ops, (unsigned long long)all_log.wr_bytes,
		 (unsigned long long)all_log.flush_ops, all_log.flush_time_s * 1e3);
	if (!sync) {
		tap_ok(all_log.flush_ops == 0 && q.flush_ops == 0,
		       "sync=0: no flush reached the device from request to resume");
		return;
	}
	b = host_real(&c, cycle_phase_begin(&c, "sync_filesystems"));
	e = host_real(&c, cycle_phase_end(&c, "sync_filesystems"));
	devlog_window(h->drive.log, 0, b, e, &sync_log);
	m = devmodel_predict(p, &sync_log);
	/* all that was dirty at the request, less the vmstat counters' lag */
	tap_ok(sync_log.wr_bytes + sync_log.zero_bytes + 512 * 1024 >= c.dirty_kb * 1024ULL &&
	       c.dirty_kb > 0 && sync_log.flush_ops >= 1 &&
	       sync_log.flush_time_s >= sync_log.flush_ops * p->flush_ms / 1000.0,
	       "sync=1, sync phase: %llu writes, %llu bytes (%lld kB dirty at the request), "
	       "%llu flushes of %.1f ms in all", (unsigned long long)sync_log.wr_ops,
	       (unsigned long long)sync_log.wr_bytes, c.dirty_kb,
	       (unsigned long long)sync_log.flush_ops, sync_log.flush_time_s * 1e3);
	tap_ok(fabs((double)q.wr_bytes - (double)(all_log.wr_bytes + all_log.zero_bytes)) <=
	       MIB, "sync=1: QMP and nbdkit's log agree on the bytes written (%llu, %llu)",
	       (unsigned long long)q.wr_bytes,
	       (unsigned long long)(all_log.wr_bytes + all_log.zero_bytes));
	tap_diag("sync=1 model: %.3f s bytes, %.3f s requests, %.3f s flushes: predicted "
		 "%.3f s, measured %.3f s, ratio %.2f", m.bytes_s, m.ops_s, m.flush_s,
		 m.predict_s, e - b, devmodel_ratio(e - b, &m));
	hx_run(h, h->base.cmd, NULL, "RUN rm -f " HX_DATA_MNT "/dirty");
}

static void cut(const struct pc_opts *base, bool drop, int idx)
{
	struct pc_opts o = *base;
	struct pc_record r;

	o.hx.drop_flushes = drop;
	pc_cycle(&o, idx, &r, NULL);
	if (!tap_ok(r.verdict == VERDICT_OK && r.cut_by_sigkill && r.judged,
		    "%s: mem sync=1 cut while suspended, judged (%s)",
		    drop ? "flushes dropped" : "emmc", verdict_name(r.verdict)))
		return;
	if (drop)
		tap_ok(r.bytes_lost > 0 && !r.fsync_intact && r.n[FV_INTACT] < r.n_files,
		       "flushes dropped: the oracle finds %llu bytes lost, the fsync'd file "
		       "among them, %d/%d files intact", (unsigned long long)r.bytes_lost,
		       r.n[FV_INTACT], r.n_files);
	else
		tap_ok(r.bytes_lost == 0 && r.fsync_intact && r.n[FV_INTACT] == r.n_files,
		       "emmc: %llu of %llu bytes lost, the fsync'd file %s, %d/%d files intact",
		       (unsigned long long)r.bytes_lost, (unsigned long long)r.bytes_written,
		       r.fsync_intact ? "intact" : "NOT intact", r.n[FV_INTACT], r.n_files);
	tap_ok(r.fs_clean, "%s: filesystem clean after the cut",
	       drop ? "flushes dropped" : "emmc");
}

int main(void)
{
	static const struct disk_profile wt = {
		"wt", "no volatile cache, 10 ms flush", 20 * MIB, 2000, 10, false,
	};
	struct hx_opts o;
	struct pc_opts pc;
	struct hx h;

	if (!vmtest_lab_opts(&o, dir, "the drive model in a guest"))
		return tap_done();

	if (tap_ok(boot(&h, &o, "drive-emmc") && h.drive_on, "emmc boots through nbdkit")) {
		write_cache(&h, "write back", "emmc");
		cycle(&h, 1);
		cycle(&h, 0);
	}
	hx_stop(&h);
	hx_image_drop(&h);

	o.profile = &wt;
	if (tap_ok(boot(&h, &o, "drive-wt") && h.drive_on,
		   "a profile without a volatile cache boots through nbdkit"))
		write_cache(&h, "write through", "no volatile cache");
	hx_stop(&h);
	hx_image_drop(&h);

	pc = (struct pc_opts){
		.state = "mem", .sync = 1, .cut = CUT_SUSPENDED, .cut_offset_ms = -1,
		.cycles = 1, .big_bytes = 4 << 20, .seed = 11,
	};
	pc.hx = o;
	pc.hx.profile = disk_profile("emmc");
	cut(&pc, false, 0);
	cut(&pc, true, 1);
	rmdir(dir);
	return tap_done();
}

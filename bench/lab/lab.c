#define _GNU_SOURCE
#include "lab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "guestcmd.h"

#define MIB (1024ULL * 1024)

struct run {
	const struct lab_opts *o;
	struct lab_result *r;
	struct hx h;
	bool alive;
	/* why the last boot gave no guest: what a cycle not run says */
	enum verdict boot_v;
	char boot_why[400];
};

static struct cycle_timeouts timeouts(const struct run *run, uint64_t dirty)
{
	const struct hx *h = &run->h;
	const struct disk_profile *p = run->o->hx.profile;
	double bps = p && p->write_bps ? p->write_bps : 200e6;
	struct cycle_timeouts to = {
		.request_ms = hx_ms(h, h->base.request),
		/* the sync may write all of it, twice over */
		.suspend_ms = hx_ms(h, h->base.suspend + (int)(2000.0 * dirty / bps)),
		.wake_ms = hx_ms(h, h->base.wake),
		.done_ms = hx_ms(h, h->base.done),
		.qmp_ms = hx_ms(h, h->base.qmp),
		.first_key_ms = hx_ms(h, h->base.first_key),
		.key_every_ms = h->base.key_every,
		.resume_delay_ms = run->o->resume_delay_ms,
	};

	return to;
}

/*
 * One unrecorded cycle per state after each boot: under TCG the first
 * suspend and resume run code never translated before, and would look
 * slow for whichever configuration came first.
 */
static enum verdict warm_up(struct run *run)
{
	struct cycle c;
	enum verdict v = hx_set_knob(&run->h, 1);

	for (int s = 0; !v && s < run->o->n_states; s++) {
		struct cycle_timeouts to = timeouts(run, 0);

		v = cycle_run(&run->h.vm, run->o->states[s], &to, &c);
		if (v) {
			fprintf(stderr, "%s: warm-up %s cycle failed: %s (%s)\n", cli_prog,
				run->o->states[s], verdict_name(v), c.why);
			snprintf(run->boot_why, sizeof(run->boot_why), "its warm-up %s cycle: %s",
				 run->o->states[s], c.why);
		}
	}
	return v;
}

#define WL_DIR HX_DATA_MNT "/wl"
#define WL_PID "/tmp/workload.pid"

/* A time long enough for the workload to write size bytes on the profile. */
static int write_ms(const struct run *run, uint64_t size)
{
	const struct disk_profile *p = run->o->hx.profile;
	double bps = p->write_bps ? p->write_bps : 200e6;

	return 60000 + (int)(2000.0 * size / bps) + run->o->runtime_s * 1000;
}

/*
 * Knob, writeback mode, then the workload: a failure here is the set-up's,
 * not the cycle's.  held: the workload runs to its end, all of it dirty.
 * default: it runs in the background and the request comes at a seeded
 * random moment within the window.
 */
static enum verdict set_up_cycle(struct run *run, struct cycle_record *rec)
{
	struct hx *h = &run->h;
	char cmd[1400];
	enum verdict v = hx_set_knob(h, rec->sync);
	bool bg = rec->wb == WB_DEFAULT;

	if (!v)
		v = hx_hold_writeback(h, !bg);
	if (!v)
		v = hx_run(h, h->base.cmd, NULL, "RUN rm -rf " WL_DIR " && sync");
	if (v || !rec->dirty_target_bytes)
		return v;
	workload_command(rec->workload, WL_DIR, rec->dirty_target_bytes,
			 run->o->runtime_s, bg, cmd, sizeof(cmd));
	if (bg)
		/* the pid lets the next cycle wait for the workload's end */
		return hx_run(h, h->base.cmd, NULL, "RUN echo > " WL_PID " && (%s"
			      " echo $! > " WL_PID ")", cmd);
	return hx_run(h, write_ms(run, rec->dirty_target_bytes), NULL, "RUN %s", cmd);
}

/* default writeback: a seeded moment within the window, then the request */
static void request_moment(struct run *run, struct cycle_record *rec, int n)
{
	unsigned int seed = run->o->seed * 2654435761u + (unsigned int)n;
	int ms = run->o->window_ms ? (int)(rand_r(&seed) % (unsigned int)run->o->window_ms) : 0;

	rec->request_after_s = ms / 1000.0;
	usleep(ms * 1000);
}

/* The workload's end, then its files: the next cycle starts clean.
 * default writeback syncs, so the disk keeps its writeback history. */
static enum verdict tear_down(struct run *run, const struct cycle_record *rec)
{
	struct hx *h = &run->h;

	if (rec->wb == WB_HELD)	/* unlinking drops the dirty pages unwritten */
		return hx_run(h, h->base.cmd, NULL, "RUN rm -rf " WL_DIR);
	return hx_run(h, write_ms(run, rec->dirty_target_bytes), NULL,
		      "RUN p=$(cat " WL_PID " 2>/dev/null); while [ -n \"$p\" ] &&"
		      " kill -0 $p 2>/dev/null; do sleep 0.2; done; rm -rf " WL_DIR " && sync");
}

static enum verdict one_cycle(struct run *run, struct cycle_record *rec, int n)
{
	struct cycle_timeouts to = timeouts(run, rec->dirty_target_bytes);
	enum verdict v = hx_drive_verdict(&run->h, set_up_cycle(run, rec));
	struct dev_counts q0;
	struct hostload hl;
	bool counted;

	if (v) {
		rec->c.verdict = verdict_is_host(v) ? v : VERDICT_SETUP_FAILED;
		snprintf(rec->c.why, sizeof(rec->c.why), "set-up: %s", verdict_name(v));
		return rec->c.verdict;
	}
	if (rec->wb == WB_DEFAULT)
		request_moment(run, rec, n);
	counted = !lab_dev_before(&run->h, &q0);
	hostload_start(&hl, run->h.vm.pid, run->h.drive_on ? run->h.drive.pid : 0);
	v = hx_drive_verdict(&run->h, cycle_run(&run->h.vm, rec->state, &to, &rec->c));
	rec->c.verdict = v ? v : rec->c.verdict;
	if (counted && !v)
		lab_dev_after(&run->h, &q0, rec);
	lab_derive(rec, rec->workload == workload_by_name("bigfile") &&
		   rec->wb == WB_HELD ? run->r->floor_bps : -1);
	lab_host_windows(&hl, rec);
	hostload_stop(&hl);
	if (!v && tear_down(run, rec))
		v = VERDICT_SETUP_FAILED;	/* the next cycle's start would be wrong */
	return v;
}

/*
 * A disk that has never completed writeback gets almost no share of the
 * background threshold (wb_over_bg_thresh), so background writeback would
 * start far below the global threshold.  A real disk has history: give it
 * some before default-writeback cycles.
 */
static enum verdict disk_history(struct run *run)
{
	for (int i = 0; i < run->o->n_wbs; i++)
		if (run->o->wbs[i] == WB_DEFAULT)
			return hx_run(&run->h, write_ms(run, 64ULL << 20), NULL,
				      "RUN " HX_FIO " --name=history --filename=" HX_DATA_MNT
				      "/history --rw=write --bs=1M --size=64M --end_fsync=1"
				      " --ioengine=psync --thread --output-format=terse >/dev/null"
				      " && rm -f " HX_DATA_MNT "/history && sync");
	return VERDICT_OK;
}

/* A cause on one line: the console's words may carry line breaks. */
static void boot_cause(struct run *run, enum verdict v, const char *tag, const char *step,
		       const char *why)
{
	run->boot_v = v;
	snprintf(run->boot_why, sizeof(run->boot_why), "%s: %s: %s%s%s", tag, step,
		 verdict_name(v), why[0] ? ": " : "", why);
	for (char *p = run->boot_why; *p; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
}

static enum verdict boot(struct run *run)
{
	double t0 = mono_now();
	char tag[32], why[400] = "";
	enum verdict v;

	snprintf(tag, sizeof(tag), "boot-%d", run->h.boots + 1);
	v = hx_boot(&run->h, tag, true);
	if (v) {
		/* NotRun: the boot limit, the earlier boots' cause stands */
		if (v != VERDICT_NOT_RUN)
			boot_cause(run, v, tag, "the guest did not boot", run->h.vm.why);
		return v;
	}
	run->boot_why[0] = '\0';
	if ((v = hx_prepare(&run->h, false))) {
		hx_fail(&run->h, v, "set-up");
		boot_cause(run, v, tag, "set-up", "the data disk did not mount, or the tools"
			   " disk has no " HX_FIO);
	} else if ((v = hx_hold_writeback(&run->h, true))) {
		hx_fail(&run->h, v, "set-up");
		boot_cause(run, v, tag, "set-up", "writeback could not be held (sysctl vm.dirty_*)");
	} else if ((v = warm_up(run))) {
		snprintf(why, sizeof(why), "%s", run->boot_why);
		hx_fail(&run->h, v, "warm-up");
		boot_cause(run, v, tag, "warm-up", why);
	} else if ((v = disk_history(run))) {
		hx_fail(&run->h, v, "disk history");
		boot_cause(run, v, tag, "disk history", "");
	}
	/* a guest that boots but cannot be set up counts as a failed boot */
	run->h.boot_failures += v != VERDICT_OK;
	run->alive = !v;
	run->r->time_boot_s += mono_now() - t0;
	return v;
}

/* again: a HostStall attempt that is measured again */
static void progress_cycle(struct run *run, const struct cycle_record *rec, int total,
			   bool again)
{
	const char *name = verdict_name(rec->c.verdict);
	unsigned long long mib = rec->dirty_target_bytes >> 20;

	if (rec->c.verdict != VERDICT_OK) {
		fprintf(stderr, "%s: [%d/%d] %s sync=%d %s/%s %lluM cycle %d: %s%s%s%s\n",
			cli_prog, run->r->n, total, rec->state, rec->sync, rec->workload->name,
			writeback_name(rec->wb), mib, rec->index + 1, name,
			rec->c.why[0] ? ": " : "", rec->c.why,
			again ? "; not a measurement, measured again" : "");
		return;
	}
	hx_progress(&run->h, "[%d/%d] %s sync=%d %s/%s %lluM cycle %d: suspend %.3f s, sync %.3f s, resume %.3f s, dirty %lld kB",
		    run->r->n, total, rec->state, rec->sync, rec->workload->name,
		    writeback_name(rec->wb), mib, rec->index + 1,
		    rec->suspend_latency_s, isnan(rec->sync_phase_s) ? 0 : rec->sync_phase_s,
		    rec->resume_latency_s, rec->c.dirty_kb);
}

/* No disk, no cycle: each is reported, under its own verdict. */
static void image_failed(struct run *run, const char *img)
{
	const struct lab_opts *o = run->o;

	hx_image_drop(&run->h);
	const char *why = run->h.img_why[0] ? run->h.img_why : "see above";

	fprintf(stderr, "%s: %s: the data image %s could not be made (%s); no cycle ran\n",
		cli_prog, verdict_name(VERDICT_IMAGE_FAILED), img, why);
	for (int i = 0; i < o->cycles; i++)
		for (int k = 0; k < lab_n_configs(o); k++) {
			struct cycle_record *rec = &run->r->rec[run->r->n++];
			struct lab_config cf;

			lab_config_at(o, k, &cf);
			lab_record_init(rec, &cf, i);
			rec->c.verdict = VERDICT_IMAGE_FAILED;
			snprintf(rec->c.why, sizeof(rec->c.why),
				 "the data image %.90s could not be made: %.130s", img, why);
		}
}

/*
 * One cycle, measured again while the host takes it (HostStall), up to
 * the retry bound: the guest is sound and the disturbance was not its
 * own.  Each stalled attempt stays in the record.
 */
static enum verdict measure(struct run *run, struct cycle_record *rec,
			    const struct lab_config *cf, int total)
{
	int retries = lab_stall_retries(run->o);

	for (int attempt = 1;; attempt++) {
		enum verdict v = one_cycle(run, rec, run->r->n);
		bool again = !v && rec->c.verdict == VERDICT_HOST_STALL && attempt <= retries;
		struct lab_stall *stalls;
		int n;

		progress_cycle(run, rec, total, again);
		if (!again || lab_stall_keep(rec, attempt))
			return v;
		stalls = rec->stalls;
		n = rec->n_stalls;
		lab_record_init(rec, cf, rec->index);
		rec->stalls = stalls;
		rec->n_stalls = n;
	}
}

int lab_run(const struct lab_opts *o, struct lab_result *r,
	    const struct hx_timeouts *base)
{
	struct run run = { .o = o, .r = r };
	int total = lab_n_configs(o) * o->cycles;
	int failed = 0;
	double t_cycles, boot_before;
	char img[600];

	memset(r, 0, sizeof(*r));
	r->accel = o->hx.accel;
	r->floor_bps = -1;
	r->boot_s = -1;
	lab_now_iso(r->date, sizeof(r->date));
	r->rec = calloc(total, sizeof(*r->rec));
	if (!r->rec)
		return 1;
	hx_init(&run.h, &o->hx);
	if (base)
		run.h.base = *base;
	run.h.mem_mb = r->mem_mib = lab_mem_mb(o);
	snprintf(img, sizeof(img), "%s/data.img", o->hx.out_dir);
	/* four times the largest dirty size at least, so ext4's delalloc
	 * heuristics never force writeback during the fio run */
	if (hx_image(&run.h, img, 4 * lab_max_dirty(o) + (512ULL << 20))) {
		image_failed(&run, img);
		return 1;
	}
	if (o->hx.show_command) {
		char cmd[4096];

		hx_format_command(&run.h, true, cmd, sizeof(cmd));
		printf("%s\n", cmd);
	}
	if (!boot(&run)) {
		double t0 = mono_now();

		r->floor_bps = lab_floor(&run.h);
		r->time_floor_s = mono_now() - t0;
	}
	t_cycles = mono_now();
	boot_before = r->time_boot_s;
	/* cycles outermost: a slow start, or drift, hits every configuration
	 * alike instead of the first ones */
	for (int i = 0; i < o->cycles; i++)
	for (int k = 0; k < lab_n_configs(o); k++) {
		struct cycle_record *rec = &r->rec[r->n++];
		struct lab_config cf;
		enum verdict v;

		lab_config_at(o, k, &cf);
		lab_record_init(rec, &cf, i);
		if (!run.alive)
			boot(&run);
		if (!run.alive) {
			failed++;	/* NotRun: no guest to run it on, and why */
			snprintf(rec->c.why, sizeof(rec->c.why), "no guest to run it on: %.230s",
				 run.boot_why[0] ? run.boot_why : "the boot limit was reached");
			continue;
		}
		v = measure(&run, rec, &cf, total);
		if (v) {
			failed++;
			/* a guest in an unknown state is not measured again */
			hx_fail(&run.h, v, "cycle failed");
			run.alive = false;
		} else if (rec->c.verdict) {
			failed++;	/* HostStall every time: a sound guest, no measurement */
		}
	}
	if (failed)
		lab_lacking(o, r);
	r->time_cycles_s = mono_now() - t_cycles - (r->time_boot_s - boot_before);
	lab_provenance(r, &run.h);
	hx_stop(&run.h);
	hx_image_drop(&run.h);
	return failed ? 1 : 0;
}

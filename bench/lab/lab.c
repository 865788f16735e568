#define _GNU_SOURCE
#include "lab.h"
#include "guestcmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DATA_MNT "/mnt/data"
#define FIO "/opt/tools/bin/fio"
#define FLOOR_BYTES (64ULL << 20)

/* for lab_emergency_cleanup(), from a signal handler */
static char live_data_img[512];

void lab_emergency_cleanup(void)
{
	vm_kill_all();
	if (live_data_img[0])
		unlink(live_data_img);
}

struct run {
	const struct lab_opts *o;
	struct lab_result *r;
	struct vm vm;
	struct vm_config cfg;
	char data_img[512];
	char logdir[512];
	int boots;
};

static void progress(const struct lab_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "suspend-lab: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

static uint64_t max_dirty(const struct lab_opts *o)
{
	uint64_t m = 0;

	for (int i = 0; i < o->n_dirty; i++)
		if (o->dirty[i] > m)
			m = o->dirty[i];
	return m;
}

/* ext4 on a sparse image, four times the largest dirty size at least, so
 * ext4's delalloc heuristics never force writeback during the fio run. */
static int make_data_disk(struct run *run)
{
	uint64_t size = 4 * max_dirty(run->o) + (512ULL << 20);
	char sz[32];
	char *mkfs[] = { "mkfs.ext4", "-q", "-F", "-L", "ssdata", "-E",
			 "lazy_itable_init=0,lazy_journal_init=0", run->data_img,
			 sz, NULL };
	FILE *f;

	snprintf(sz, sizeof(sz), "%lluk", (unsigned long long)(size >> 10));
	f = fopen(run->data_img, "w");
	if (!f || fclose(f) || truncate(run->data_img, size)) {
		fprintf(stderr, "suspend-lab: cannot create %s: %s\n",
			run->data_img, strerror(errno));
		return -1;
	}
	return host_run(mkfs, false);
}

/* guest_cmd() with the run's timeout scale, in seconds */
#define guest(run, secs, out, ...) \
	guest_cmd(&(run)->vm, (secs) * 1000 * (run)->o->timeout_scale, out, __VA_ARGS__)

static int boot(struct run *run)
{
	const struct lab_opts *o = run->o;
	char *out;
	enum verdict v;

	if (o->keep_logs) {
		snprintf(run->logdir, sizeof(run->logdir), "%s/logs/boot-%d",
			 o->out_dir, ++run->boots);
		run->cfg.logdir = run->logdir;
	}
	v = vm_start(&run->vm, &run->cfg);
	if (v != VERDICT_OK) {
		fprintf(stderr, "suspend-lab: guest did not boot: %s\n", verdict_name(v));
		vm_report_death(&run->vm);
		vm_stop(&run->vm);
		return -1;
	}
	/* hold writeback off: dirty data stays in RAM until the sync */
	if (guest(run, 30, NULL, "RUN mount -t ext4 LABEL=ssdata " DATA_MNT " && "
		  "sysctl -q -w vm.dirty_writeback_centisecs=0 "
		  "vm.dirty_expire_centisecs=360000 vm.dirty_ratio=90 "
		  "vm.dirty_background_ratio=80") ||
	    guest(run, 10, NULL, "RUN test -x " FIO)) {
		fprintf(stderr, "suspend-lab: guest set-up failed (is the tools disk attached?)\n");
		vm_stop(&run->vm);
		return -1;
	}
	snprintf(run->r->kernel_release, sizeof(run->r->kernel_release), "%s",
		 run->vm.release);
	snprintf(run->r->qemu_version, sizeof(run->r->qemu_version), "%s",
		 qmp_qemu_version(run->vm.qmp) ? qmp_qemu_version(run->vm.qmp) : "?");
	snprintf(run->r->knob, sizeof(run->r->knob), "%s", run->vm.knob);
	if (!guest(run, 10, &out, "RUN test -e /sys/kernel/tracing/events/power/"
		   "suspend_sync_skipped && echo yes || echo no")) {
		run->r->at_risk_report = !strncmp(out, "yes", 3);
		free(out);
	}
	if (run->boots <= 1)
		run->r->boot_s = run->vm.t_ready - run->vm.t_spawn;
	progress(o, "booted %s in %.1f s (QEMU %s, %s, knob %s)", run->vm.release,
		 run->vm.t_ready - run->vm.t_spawn, run->r->qemu_version,
		 run->cfg.firmware == VM_FW_UEFI ? "UEFI/q35" : "SeaBIOS/i440fx",
		 run->vm.knob);
	return 0;
}

static double json_number(json_t *j, const char *path)
{
	/* path like "jobs.0.write.bw_bytes" */
	char buf[128], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && j; tok = strtok_r(NULL, ".", &save))
		j = json_is_array(j) ? json_array_get(j, atoi(tok)) : json_object_get(j, tok);
	return json_is_number(j) ? json_number_value(j) : -1;
}

/* Sequential direct writes on the same throttled disk: the physical floor. */
static int measure_floor(struct run *run)
{
	char *out = NULL, *start;
	json_error_t err;
	json_t *j;
	int r;

	r = guest(run, 300, &out, "RUN " FIO " --name=floor --filename=" DATA_MNT
		  "/floor --rw=write --bs=1M --size=%llu --direct=1 --ioengine=psync"
		  " --thread --output-format=json && rm -f " DATA_MNT "/floor && sync",
		  FLOOR_BYTES);
	if (r)
		return -1;
	start = strchr(out, '{');
	j = start ? json_loads(start, JSON_DISABLE_EOF_CHECK, &err) : NULL;
	run->r->floor_bps = j ? json_number(j, "jobs.0.write.bw_bytes") : -1;
	json_decref(j);
	free(out);
	if (run->r->floor_bps <= 0) {
		fprintf(stderr, "suspend-lab: no bandwidth in fio's JSON output\n");
		return -1;
	}
	progress(run->o, "floor: %.1f MiB/s sequential direct write (profile %s)",
		 run->r->floor_bps / 1048576.0, run->o->profile->name);
	return 0;
}

static int set_knob(struct run *run, int sync)
{
	const char *path = strcmp(run->vm.knob, "suspend_sync") ?
		"/sys/power/sync_on_suspend" : "/proc/sys/kernel/suspend_sync";
	int status = -1;
	char req[128];

	snprintf(req, sizeof(req), "SET %s %d", path, sync);
	if (vm_agent_request(&run->vm, req, NULL, NULL, 10000, &status) || status)
		return -1;
	return 0;
}

static void derive(struct run *run, struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;
	double ms = cycle_phase_begin(c, "machine_suspend");

	rec->suspend_latency_s = -1;
	rec->guest_suspend_latency_s = ms >= 0 && c->req_guest > 0 ?
		ms - c->req_guest : -1;
	rec->resume_latency_s = c->resumed_host > 0 && c->wake_host > 0 ?
		c->resumed_host - c->wake_host : -1;
	rec->guest_resume_s = cycle_phase_end(c, "thaw_processes") >= 0 &&
		cycle_phase_end(c, "machine_suspend") >= 0 ?
		cycle_phase_end(c, "thaw_processes") -
		cycle_phase_end(c, "machine_suspend") : -1;
	rec->sync_phase_s = cycle_phase_s(c, "sync_filesystems");
	rec->floor_s = run->r->floor_bps > 0 ?
		rec->dirty_target_bytes / run->r->floor_bps : -1;
	/* mem: the QMP event's own timestamp against our receipt of the
	 * request, both host clocks; freeze has no event, so the guest's
	 * trace clock measures the same span */
	if (!strcmp(rec->state, "mem") && c->suspend_event > 0) {
		rec->suspend_latency_s = c->suspend_event - c->req_host;
		rec->suspend_latency_source = "qmp_event";
	} else {
		rec->suspend_latency_s = rec->guest_suspend_latency_s;
		rec->suspend_latency_source = "guest_trace";
	}
}

static int one_cycle(struct run *run, struct cycle_record *rec)
{
	const struct lab_opts *o = run->o;
	struct cycle_timeouts to = cycle_default_timeouts;
	double bps = o->profile->write_bps ? o->profile->write_bps : 200e6;
	int secs = 30 + (int)(2.0 * rec->dirty_target_bytes / bps);

	if (set_knob(run, rec->sync))
		return -1;
	if (guest(run, 30, NULL, "RUN rm -f " DATA_MNT "/dirty && sync"))
		return -1;
	if (rec->dirty_target_bytes &&
	    guest(run, 60 + secs, NULL, "RUN " FIO " --name=dirty --filename="
		  DATA_MNT "/dirty --rw=write --bs=1M --size=%llu --ioengine=psync"
		  " --thread --fsync=0 --end_fsync=0 --invalidate=0"
		  " --output-format=terse >/dev/null",
		  (unsigned long long)rec->dirty_target_bytes))
		return -1;
	to.suspend_ms = secs * 1000 * o->timeout_scale;
	to.wake_ms *= o->timeout_scale;
	cycle_run(&run->vm, rec->state, &to, &rec->c);
	derive(run, rec);
	/* unlinking drops the dirty pages without writing them */
	if (rec->c.verdict == VERDICT_OK &&
	    guest(run, 30, NULL, "RUN rm -f " DATA_MNT "/dirty"))
		return -1;
	return rec->c.verdict == VERDICT_OK ? 0 : -1;
}

/*
 * One unrecorded cycle per state after each boot: under TCG the first
 * suspend and resume run code never translated before, and would look
 * slow for whichever configuration came first.
 */
static int warm_up(struct run *run)
{
	struct cycle c;

	for (int s = 0; s < run->o->n_states; s++) {
		if (set_knob(run, 1) ||
		    cycle_run(&run->vm, run->o->states[s], &cycle_default_timeouts, &c)) {
			fprintf(stderr, "suspend-lab: warm-up %s cycle failed: %s\n",
				run->o->states[s], verdict_name(c.verdict));
			vm_report_death(&run->vm);
			vm_stop(&run->vm);
			return -1;
		}
	}
	return 0;
}

static void now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int lab_run(const struct lab_opts *o, struct lab_result *r)
{
	struct run run = { .o = o, .r = r };
	int total = o->n_states * o->n_syncs * o->n_dirty * o->cycles;
	int failed = 0, alive;
	uint64_t md = max_dirty(o);

	memset(r, 0, sizeof(*r));
	r->accel = o->accel;
	r->floor_bps = -1;
	now_iso(r->date, sizeof(r->date));
	r->rec = calloc(total, sizeof(*r->rec));
	if (!r->rec)
		return 1;
	snprintf(run.data_img, sizeof(run.data_img), "%s/data.img", o->out_dir);
	memcpy(live_data_img, run.data_img, sizeof(live_data_img));
	if (make_data_disk(&run)) {
		unlink(run.data_img);
		live_data_img[0] = '\0';
		return 1;
	}

	run.cfg.kernel = o->kernel;
	run.cfg.initrd = o->initrd;
	run.cfg.tools_disk = o->tools_disk;
	run.cfg.data_disk = run.data_img;
	run.cfg.firmware = o->firmware;
	run.cfg.accel = o->accel;
	run.cfg.smp = 2;
	run.cfg.mem_mb = o->mem_mb ? o->mem_mb :
		(int)(md >> 20) * 6 + 1024 > 2048 ? (int)(md >> 20) * 6 + 1024 : 2048;
	r->mem_mib = run.cfg.mem_mb;
	run.cfg.boot_timeout_ms = 120000 * o->timeout_scale;
	{
		static char throttle[128];

		throttle[0] = '\0';
		if (o->profile->write_bps)
			snprintf(throttle, sizeof(throttle), ",throttling.bps-write=%llu",
				 (unsigned long long)o->profile->write_bps);
		if (o->profile->write_iops)
			snprintf(throttle + strlen(throttle), sizeof(throttle) - strlen(throttle),
				 ",throttling.iops-write=%llu",
				 (unsigned long long)o->profile->write_iops);
		run.cfg.data_throttle = throttle;
	}
	if (o->show_command) {
		char cmd[4096];

		vm_build_argv(&run.vm, &run.cfg);
		vm_format_command(&run.vm, cmd, sizeof(cmd));
		printf("%s\n", cmd);
	}

	alive = !boot(&run) && !warm_up(&run);
	if (alive && measure_floor(&run))
		failed++;
	/* cycles outermost: a slow start, or drift, hits every configuration
	 * alike instead of the first ones */
	for (int i = 0; i < o->cycles; i++)
	for (int s = 0; s < o->n_states; s++)
	for (int y = 0; y < o->n_syncs; y++)
	for (int d = 0; d < o->n_dirty; d++) {
		struct cycle_record *rec = &r->rec[r->n++];

		rec->state = o->states[s];
		rec->sync = o->syncs[y];
		rec->dirty_target_bytes = o->dirty[d];
		rec->index = i;
		rec->c.verdict = VERDICT_QEMU_DIED;
		rec->suspend_latency_s = rec->guest_suspend_latency_s = -1;
		rec->resume_latency_s = rec->sync_phase_s = rec->floor_s = -1;
		rec->c.fs_sync_s = -1;
		rec->suspend_latency_source = "none";
		if (!alive && run.boots < 3)
			alive = !boot(&run) && !warm_up(&run);
		if (!alive) {
			failed++;
			continue;
		}
		if (one_cycle(&run, rec)) {
			failed++;
			if (rec->c.verdict == VERDICT_OK)
				rec->c.verdict = VERDICT_AGENT_TIMEOUT;
			fprintf(stderr, "suspend-lab: [%d/%d] %s sync=%d dirty=%lluM cycle %d: %s\n",
				r->n, total, rec->state, rec->sync,
				(unsigned long long)(rec->dirty_target_bytes >> 20), i + 1,
				verdict_name(rec->c.verdict));
			/* a guest in an unknown state is not measured again */
			vm_report_death(&run.vm);
			vm_stop(&run.vm);
			alive = 0;
			continue;
		}
		progress(o, "[%d/%d] %s sync=%d dirty=%lluM cycle %d: suspend %.3f s, sync %.3f s, resume %.3f s, dirty %lld kB",
			 r->n, total, rec->state, rec->sync,
			 (unsigned long long)(rec->dirty_target_bytes >> 20), i + 1,
			 rec->suspend_latency_s, rec->sync_phase_s < 0 ? 0 : rec->sync_phase_s,
			 rec->resume_latency_s, rec->c.dirty_kb);
	}
	if (alive)
		vm_stop(&run.vm);
	unlink(run.data_img);
	live_data_img[0] = '\0';
	return failed ? 1 : 0;
}

void lab_result_free(struct lab_result *r)
{
	free(r->rec);
	r->rec = NULL;
	r->n = 0;
}

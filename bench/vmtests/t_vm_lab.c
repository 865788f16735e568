/*
 * t_vm_lab: short lab runs on a real guest, end to end.
 *
 * Guards: a mem run and a freeze run complete with every cycle OK; with
 * 64 MiB dirty, sync=0 has no sync_filesystems phase and sync=1 has one;
 * every latency is positive and the suspend-side phases never sum to more
 * than the request-to-machine_suspend span they sit in; the JSON report is
 * valid and holds every cycle.  Where the kernel has the at-risk report,
 * each suspend reports once; with the sync off its dirty figure lies
 * within a stated tolerance of what fio left dirty: at most 2 MiB below
 * (per-CPU vmstat counters fold lazily) and at most 8 MiB above (metadata,
 * journal); with the sync on it is at most 2 MiB.
 *
 * The resume's spans: on every OK cycle they add up to the host's resume
 * latency, none is negative beyond the alignment's error, and that error
 * is under 20 ms; a 500 ms delay injected before RESUMED shows in the
 * agent's span, and not in the others.  Every workload runs a short cycle in each
 * writeback mode, and the report has its counts.
 *
 * A cycle the host disturbed (HostStall) is measured again by the lab;
 * one the host took on every attempt is a SKIP, never a failure of what
 * this test guards (vmtest_host_took).
 *
 * Environment: KERNEL, INITRD, TOOLS_DISK (fio); SLAB_LOGDIR keeps logs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab.h"
#include "report.h"
#include "tap.h"
#include "vmtest.h"

static const char *const suspend_side[] = {
	"sync_filesystems", "freeze_processes", "dpm_prepare", "dpm_suspend",
	"dpm_suspend_late", "dpm_suspend_noirq",
};

static void check_record(const struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;
	char what[96];
	double sum = 0;
	bool has_sync = cycle_phase_count(c, "sync_filesystems") > 0;

	snprintf(what, sizeof(what), "%s sync=%d dirty=%lluM #%d", rec->state,
		 rec->sync, (unsigned long long)(rec->dirty_target_bytes >> 20),
		 rec->index + 1);
	if (vmtest_host_took(c->verdict, c->why, what))
		return;
	if (!tap_ok(c->verdict == VERDICT_OK, "%s: verdict %s", what,
		    verdict_name(c->verdict)))
		return;
	tap_ok(has_sync == (rec->sync == 1), "%s: sync_filesystems phase %s",
	       what, has_sync ? "present" : "absent");
	tap_ok(rec->suspend_latency_s > 0 && rec->guest_suspend_latency_s > 0 &&
	       rec->resume_latency_s > 0,
	       "%s: latencies positive (suspend %.3f s via %s, guest %.3f s, resume %.3f s)",
	       what, rec->suspend_latency_s, rec->suspend_latency_source,
	       rec->guest_suspend_latency_s, rec->resume_latency_s);
	for (unsigned int i = 0; i < sizeof(suspend_side) / sizeof(suspend_side[0]); i++) {
		double s = cycle_phase_s(c, suspend_side[i]);

		if (s > 0)
			sum += s;
	}
	tap_ok(sum <= rec->guest_suspend_latency_s,
	       "%s: suspend phases %.3f s fit in the %.3f s span", what, sum,
	       rec->guest_suspend_latency_s);
}

/* The boundaries between host and guest spans placed to within this. */
#define ALIGN_MAX_S 0.02

static void check_spans(const struct cycle_record *rec, const char *what)
{
	double sum = rec->span_wake_s + rec->span_kernel_s + rec->span_agent_s +
		     rec->span_channel_s;

	if (rec->c.verdict != VERDICT_OK)
		return;
	/* a span below zero would be a misplaced boundary: the alignment
	 * before the suspend gives a negative wake span on mem */
	tap_ok(fabs(sum - rec->resume_latency_s) < 1e-6 &&
	       rec->span_remainder_s < ALIGN_MAX_S &&
	       rec->span_wake_s >= -rec->span_remainder_s &&
	       rec->span_channel_s >= -rec->span_remainder_s &&
	       rec->span_kernel_s >= 0 && rec->span_agent_s >= 0,
	       "%s: resume %.3f s = wake %.3f + kernel %.3f + agent %.3f + channel %.3f, each placed to %.3f s (clock step %.3f s)",
	       what, rec->resume_latency_s, rec->span_wake_s, rec->span_kernel_s,
	       rec->span_agent_s, rec->span_channel_s, rec->span_remainder_s,
	       rec->clock_step_s);
}

static void check_at_risk(const struct cycle_record *rec, bool has_report)
{
	const struct cycle *c = &rec->c;
	long long want = rec->dirty_target_bytes >> 10, risk;

	/* held writeback and bigfile: what fio wrote is what is dirty */
	if (c->verdict != VERDICT_OK || rec->wb != WB_HELD ||
	    strcmp(rec->workload->name, "bigfile"))
		return;
	if (!has_report) {
		tap_skip("kernel has no at-risk report", "%s sync=%d: at-risk figure",
			 rec->state, rec->sync);
		return;
	}
	tap_ok(c->skip_events == 1, "%s sync=%d dirty=%lluM: one suspend_page_cache event (%d)",
	       rec->state, rec->sync, (unsigned long long)(rec->dirty_target_bytes >> 20),
	       c->skip_events);
	risk = c->skip_dirty_kb + c->skip_writeback_kb;	/* a cut loses both */
	if (rec->sync)	/* the sync wrote it all: about nothing left */
		tap_ok(c->skip_dirty_kb >= 0 && risk <= 2048,
		       "%s sync=1: kernel says %lld kB not on storage after the sync (at most 2 MiB)",
		       rec->state, risk);
	else
		tap_ok(risk >= want - 2048 && risk <= want + 8192,
		       "%s sync=0: kernel says %lld kB not on storage, fio wrote %lld kB (lab saw %lld kB)",
		       rec->state, risk, want, c->dirty_kb);
}

static int run(struct lab_opts *o, const char *name, struct lab_result *out)
{
	struct lab_result r;
	char json[600];
	json_error_t err;
	json_t *j;
	int rc, stalled = 0, others = 0;

	rc = lab_run(o, &r, NULL);
	for (int i = 0; i < r.n; i++) {
		stalled += r.rec[i].c.verdict == VERDICT_HOST_STALL;
		others += r.rec[i].c.verdict != VERDICT_OK &&
			  r.rec[i].c.verdict != VERDICT_HOST_STALL;
	}
	/* rc 1 for cycles the host took alone is the host's, not the guest's */
	tap_ok((rc == 0 || (stalled && !others)) && r.n > 0,
	       "%s run completes (%d cycles, rc %d, %d the host took on every attempt)", name,
	       r.n, rc, stalled);
	for (int i = 0; i < r.n; i++) {
		check_record(&r.rec[i]);
		check_at_risk(&r.rec[i], r.at_risk_report);
		check_spans(&r.rec[i], name);
	}
	if (out)
		*out = r;
	else
		lab_result_free(&r);
	snprintf(json, sizeof(json), "%s/%s.json", o->hx.out_dir, name);
	{
		struct lab_summary *sum = NULL;
		struct lab_view v = { .o = o, .r = &r };

		v.n_sum = lab_summarise(o, &r, &sum);
		v.sum = sum;
		tap_ok(report_json(json, &v) == 0, "%s: JSON written", name);
		free(sum);
	}
	j = json_load_file(json, 0, &err);
	tap_ok(j && json_array_size(json_object_get(j, "cycles")) == (size_t)r.n,
	       "%s: JSON valid and holds all %d cycles%s%s", name, r.n,
	       j ? "" : ": ", j ? "" : err.text);
	json_decref(j);
	unlink(json);
	return rc;
}

/* A delay before RESUMED lands in the agent's span, nowhere else. */
static void delayed(struct lab_opts *o)
{
	struct lab_result r;
	const struct cycle_record *c;

	o->states[0] = "mem";
	o->n_syncs = 1;
	o->syncs[0] = 0;
	o->dirty[0] = 0;
	o->resume_delay_ms = 500;
	run(o, "mem, 500 ms before RESUMED", &r);
	o->resume_delay_ms = 0;
	c = &r.rec[0];
	if (!r.n)
		tap_ok(false, "the delayed cycle ran");
	else if (vmtest_host_took(c->c.verdict, c->c.why, "the delayed cycle"))
		;	/* a SKIP line said so */
	else if (c->c.verdict != VERDICT_OK)
		tap_ok(false, "the delayed cycle ran (%s)", verdict_name(c->c.verdict));
	else
		/* wake and kernel end before the delay starts; they keep
		 * their own variance (CPU bring-up under a busy host) */
		tap_ok(c->span_agent_s >= 0.5 && c->span_agent_s < 0.6 &&
		       c->span_channel_s < 0.1,
		       "the 500 ms delay is in the agent span (%.3f s), not the channel (%.3f s)",
		       c->span_agent_s, c->span_channel_s);
	lab_result_free(&r);
}

/* Every workload, one short cycle in each writeback mode. */
static void all_workloads(struct lab_opts *o)
{
	struct lab_result r;

	o->n_syncs = 1;
	o->syncs[0] = 1;
	o->dirty[0] = 16ULL << 20;
	o->n_workloads = 0;
	for (const struct workload *w = workloads; w->name; w++)
		o->workloads[o->n_workloads++] = w;
	o->wbs[0] = WB_HELD;
	o->wbs[1] = WB_DEFAULT;
	o->n_wbs = 2;
	o->runtime_s = 3;
	o->window_ms = 3000;
	run(o, "workloads", &r);
	for (int i = 0; i < r.n; i++) {
		const struct cycle_record *c = &r.rec[i];

		if (vmtest_host_took(c->c.verdict, c->c.why, c->workload->name))
			continue;
		tap_ok(c->c.verdict == VERDICT_OK && c->c.dirty_kb >= 0 &&
		       (c->wb == WB_HELD) == isnan(c->request_after_s),
		       "%s/%s: a cycle with its counts (dirty %lld kB at the request, %.1f s in)",
		       c->workload->name, writeback_name(c->wb), c->c.dirty_kb,
		       c->request_after_s);
	}
	lab_result_free(&r);
}

int main(void)
{
	static char *argv[] = { "t_vm_lab", "--quiet", NULL };
	char dir[] = "/tmp/t_vm_lab.XXXXXX";
	struct lab_opts o;

	if (!getenv("TOOLS_DISK")) {
		tap_skip("TOOLS_DISK not set (make tools)", "lab runs");
		return tap_done();
	}
	if (!mkdtemp(dir) || lab_parse_args(2, argv, &o)) {
		tap_ok(false, "set-up");
		return tap_done();
	}
	o.hx.out_dir = dir;
	o.hx.keep_logs = getenv("SLAB_LOGDIR") != NULL;

	o.n_states = 1;
	o.states[0] = "mem";
	o.n_dirty = 2;
	o.dirty[0] = 0;
	o.dirty[1] = 64ULL << 20;
	o.cycles = 1;
	run(&o, "mem", NULL);

	o.states[0] = "freeze";
	o.n_dirty = 1;
	o.dirty[0] = 64ULL << 20;
	run(&o, "freeze", NULL);

	delayed(&o);
	all_workloads(&o);

	rmdir(dir);
	return tap_done();
}

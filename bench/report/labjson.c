/* The lab's JSON report, rendered from its summary. */
#define _GNU_SOURCE
#include "report.h"

#include <math.h>
#include <string.h>

#include "cliopt.h"
#include "escape.h"
#include "outfile.h"

#define FLOOR_METHOD "fio sequential 1 MiB direct writes"

static json_t *j_num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* kB counts from /proc/meminfo are integers; keep them so */
static json_t *j_kb(long long v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *j_str(const char *s)
{
	/* json_string() is NULL for bytes that are not UTF-8: never drop them */
	json_t *j = s && *s ? json_text(s) : NULL;

	return j ? j : json_null();
}

/* a profile limit of 0 means none, which is not a rate */
static json_t *j_limit(uint64_t v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

static json_t *j_stats(const struct stats *s)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:o}", "n", s->n,
			 "min", j_num(s->min), "median", j_num(s->median),
			 "p95", j_num(s->p95), "max", j_num(s->max));
}

static json_t *j_profile(const struct disk_profile *p)
{
	if (!p)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:i, s:b}", "name", j_str(p->name),
			 "write_bytes_per_s", j_limit(p->write_bps),
			 "write_iops", j_limit(p->write_iops),
			 "flush_ms", p->flush_ms, "volatile_cache", p->volatile_cache);
}

static json_t *j_provenance(const struct lab_view *v)
{
	const struct lab_opts *o = v->o;
	const struct lab_result *r = v->r;

	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:o, s:s, s:o, s:o, s:i,"
			 " s:o, s:i}",
			 "program_version", LAB_VERSION,
			 "date", j_str(r->date),
			 "kernel_release", j_str(r->kernel_release),
			 "qemu_version", j_str(r->qemu_version),
			 "accel", j_str(report_accel(v)),
			 "firmware", report_firmware_name(o->hx.firmware),
			 "machine", report_machine_name(o->hx.firmware),
			 "profile", j_profile(o->hx.profile),
			 "filesystem", o->hx.fs->name,
			 "knob", j_str(r->knob),
			 "guest_mem_mib", r->mem_mib > 0 ? json_integer(r->mem_mib) : json_null(),
			 "cycles_per_config", o->cycles,
			 "boot_s", r->boot_s >= 0 ? json_real(r->boot_s) : json_null(),
			 "boots", r->boots);
}

static json_t *j_phases(const struct cycle *c)
{
	json_t *o = json_object();

	for (int i = 0; o && i < c->n_phases; i++) {
		const char *name = c->phases[i].name;
		double s = cycle_phase_s(c, name);

		if (s >= 0 && !json_object_get(o, name))
			json_object_set_new(o, name, json_real(s));
	}
	return o;
}

static json_t *j_spans(const struct cycle_record *rec)
{
	json_t *o = json_object();

	for (int k = 0; o && k < LAB_SPANS; k++)
		json_object_set_new(o, lab_span_names[k], j_num(lab_span(rec, k)));
	if (o)
		json_object_set_new(o, "clock_step", j_num(rec->clock_step_s));
	return o;
}

static json_t *j_span_stats(const struct lab_summary *cf)
{
	json_t *o = json_object();

	for (int k = 0; o && k < LAB_SPANS; k++)
		json_object_set_new(o, lab_span_names[k], j_stats(&cf->span[k]));
	return o;
}

static json_t *j_counts(const struct dev_counts *c)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:f, s:f}",
			 "write_requests", (json_int_t)c->wr_ops,
			 "write_bytes", (json_int_t)c->wr_bytes,
			 "zero_bytes", (json_int_t)c->zero_bytes,
			 "fua_requests", (json_int_t)c->fua_ops,
			 "flush_requests", (json_int_t)c->flush_ops,
			 "write_time_s", c->wr_time_s, "flush_time_s", c->flush_time_s);
}

static json_t *j_device(const struct cycle_record *rec)
{
	bool synced = strcmp(rec->dev_sync_source, "none");

	if (!rec->dev_measured)
		return json_null();
	return json_pack("{s:o, s:o, s:s, s:o, s:o}",
			 "suspend", j_counts(&rec->dev_suspend),
			 "sync", synced ? j_counts(&rec->dev_sync) : json_null(),
			 "sync_source", rec->dev_sync_source,
			 "sync_predicted_s", j_num(rec->sync_predicted_s),
			 "sync_over_predicted", j_num(rec->sync_over_predicted));
}

static json_t *j_host(const struct host_window *w)
{
	if (!w->measured)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:o, s:f, s:f}", "wall", w->wall_s,
			 "taken", hostload_taken(w), "qemu_stopped", w->stopped_s,
			 "harness_late", w->late_s, "run_queue_wait", w->wait_s,
			 "others_cpu", isfinite(w->others_cpu_s) ? json_real(w->others_cpu_s) : json_null(),
			 "host_wait", hostload_host_wait(w), "qemu_cpu", w->cpu_s);
}

/* Per phase, the cycle's slowest devices and its callbacks never ended. */
static json_t *j_devices(const struct cycle *c)
{
	json_t *slow = json_object(), *open = json_object();

	for (int p = 0; slow && open && p < DEVCB__PHASES; p++) {
		struct devcb_time t[DEVCB_TOP];
		int n = devcb_slowest(c, p, t, DEVCB_TOP), u = devcb_unended(c, p);
		json_t *a = json_array();

		for (int i = 0; a && i < n; i++)
			json_array_append_new(a, json_pack("{s:o, s:f}", "device", json_text(t[i].dev),
							   "s", t[i].s));
		if (n)
			json_object_set_new(slow, devcb_phase_name(p), a);
		else
			json_decref(a);
		if (u)
			json_object_set_new(open, devcb_phase_name(p), json_integer(u));
	}
	return json_pack("{s:i, s:i, s:o, s:o}", "callbacks", c->cbs.n,
			 "dropped", c->cbs.dropped, "slowest_s", slow, "unended", open);
}

static json_t *j_devsum(const struct devsum *d)
{
	json_t *o = json_object();

	for (int p = 0; o && p < DEVCB__PHASES; p++) {
		json_t *a = d->phase[p].n ? json_array() : NULL;

		for (int i = 0; a && i < d->phase[p].n; i++)
			json_array_append_new(a, json_pack("{s:o, s:o}", "device",
							   json_text(d->phase[p].top[i].dev), "s",
							   j_stats(&d->phase[p].top[i].s)));
		if (a)
			json_object_set_new(o, devcb_phase_name(p), a);
	}
	return o;
}

/* The attempts the host took before this one: kept, never measurements. */
static json_t *j_stalls(const struct cycle_record *rec)
{
	json_t *a = json_array();

	for (int k = 0; a && k < rec->n_stalls; k++) {
		const struct lab_stall *s = &rec->stalls[k];

		json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:f, s:f, s:o, s:o, s:o, s:o}",
			"attempt", s->attempt,
			"verdict", verdict_name(VERDICT_HOST_STALL),
			"window", s->window,
			"host_taken_s", s->taken_s,
			"window_s", s->wall_s,
			"why", json_text(s->why),
			"suspend_latency_s", j_num(s->suspend_latency_s),
			"resume_latency_s", j_num(s->resume_latency_s),
			"host_s", json_pack("{s:o, s:o}", "suspend", j_host(&s->host_suspend),
					    "resume", j_host(&s->host_resume))));
	}
	return a;
}

static json_t *j_cycle(const struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;
	bool skip = c->skip_events > 0;
	json_t *o;

	o = json_pack("{s:o, s:i, s:s, s:s, s:o, s:I, s:i, s:s, s:o, s:i, s:o, s:o, s:o, s:o,"
			 " s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "state", j_str(rec->state),
			 "sync", rec->sync,
			 "workload", rec->workload ? rec->workload->name : "?",
			 "writeback", writeback_name(rec->wb),
			 "request_after_s", j_num(rec->request_after_s),
			 "dirty_target_bytes", (json_int_t)rec->dirty_target_bytes,
			 "cycle", rec->index + 1,
			 "verdict", verdict_name(c->verdict),
			 "why", json_text(c->why),
			 "rc", c->rc,
			 "dirty_at_request_kb", j_kb(c->dirty_kb),
			 "writeback_at_request_kb", j_kb(c->writeback_kb),
			 /* the kernel's own at-risk report, when it skipped */
			 "kernel_at_risk_dirty_kb", j_kb(skip ? c->skip_dirty_kb : -1),
			 "kernel_at_risk_writeback_kb", j_kb(skip ? c->skip_writeback_kb : -1),
			 "suspend_latency_s", j_num(rec->suspend_latency_s),
			 "suspend_latency_source", j_str(rec->suspend_latency_source),
			 "guest_suspend_latency_s", j_num(rec->guest_suspend_latency_s),
			 "resume_latency_s", j_num(rec->resume_latency_s),
			 "guest_resume_s", j_num(rec->guest_resume_s),
			 "fs_sync_log_s", j_num(c->fs_sync_s >= 0 ? c->fs_sync_s : NAN),
			 "sync_phase_s", j_num(rec->sync_phase_s),
			 "floor_s", j_num(rec->floor_s),
			 "sync_over_floor", j_num(rec->sync_over_floor),
			 "phases_s", j_phases(c),
			 "resume_spans_s", j_spans(rec),
			 "device", j_device(rec),
			 "host_s", json_pack("{s:o, s:o}", "suspend", j_host(&rec->host_suspend),
					   "resume", j_host(&rec->host_resume)));
	if (o) {
		json_object_set_new(o, "devices", j_devices(c));
		json_object_set_new(o, "stalled_attempts", j_stalls(rec));
	}
	return o;
}

static json_t *j_config(const struct lab_view *v, const struct lab_summary *cf)
{
	json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:I, s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:o,"
			 " s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "state", cf->state,
			 "sync", cf->sync,
			 "workload", cf->cf.workload->name,
			 "writeback", writeback_name(cf->cf.wb),
			 "dirty_target_bytes", (json_int_t)cf->dirty,
			 "profile", j_str(v->o->hx.profile ? v->o->hx.profile->name : NULL),
			 "n_ok", cf->n_ok,
			 "n_total", cf->n_total,
			 "suspend_latency_s", j_stats(&cf->suspend),
			 "resume_latency_s", j_stats(&cf->resume),
			 "guest_resume_s", j_stats(&cf->guest_resume),
			 "sync_phase_s", j_stats(&cf->sync_phase),
			 "sync_over_floor", j_stats(&cf->ratio),
			 "dirty_at_request_kb", j_stats(&cf->dirty_kb),
			 "resume_spans_s", j_span_stats(cf),
			 "sync_write_requests", j_stats(&cf->sync_writes),
			 "sync_write_bytes", j_stats(&cf->sync_bytes),
			 "sync_flush_requests", j_stats(&cf->sync_flushes),
			 "sync_predicted_s", j_stats(&cf->sync_predicted),
			 "sync_over_predicted", j_stats(&cf->sync_over_predicted),
			 "host_taken_suspend_s", j_stats(&cf->host_suspend),
			 "host_taken_resume_s", j_stats(&cf->host_resume));

	if (o) {
		json_object_set_new(o, "slowest_devices_s", j_devsum(&cf->devs));
		json_object_set_new(o, "n_stalled", json_integer(cf->n_stalled));
	}
	return o;
}

/* NULL on allocation failure; json_pack drops its "o" arguments then. */
static json_t *j_report(const struct lab_view *v)
{
	json_t *cycles = json_array(), *summary = json_array();
	bool ok = cycles && summary;

	for (int i = 0; ok && i < v->r->n; i++)
		ok = !json_array_append_new(cycles, j_cycle(&v->r->rec[i]));
	for (int k = 0; ok && k < v->n_sum; k++)
		ok = !json_array_append_new(summary, j_config(v, &v->sum[k]));
	if (!ok) {
		json_decref(cycles);
		json_decref(summary);
		return NULL;
	}
	return json_pack("{s:s, s:o, s:{s:o, s:s}, s:o, s:o, s:{s:i, s:i}}",
			 "schema", REPORT_SCHEMA,
			 "provenance", j_provenance(v),
			 "floor", "write_bytes_per_s",
			 j_num(v->r->floor_bps > 0 ? v->r->floor_bps : NAN),
			 "method", FLOOR_METHOD,
			 "cycles", cycles,
			 "summary", summary,
			 "host_stalls", "n_stalled", lab_stalled_attempts(v->r),
			 "retries_per_cycle", lab_stall_retries(v->o));
}

static int dump_json(FILE *f, const void *ctx)
{
	return json_dumpf(ctx, f, JSON_INDENT(2) | JSON_SORT_KEYS |
			  JSON_REAL_PRECISION(12)) ? -1 : 0;
}

int report_json(const char *path, const struct lab_view *v)
{
	json_t *j = j_report(v);
	int rc;

	if (!j) {
		fprintf(stderr, "%s: JSON report %s: out of memory\n", cli_prog, path);
		return -1;
	}
	rc = outfile_write(path, dump_json, j);
	json_decref(j);
	return rc;
}


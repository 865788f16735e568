#include "reportrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>

#define MIB (1024ULL * 1024)

static const struct disk_profile profile = {
	.name = "emmc", .what = "test profile", .write_bps = 20 * MIB,
	.write_iops = 2000, .flush_ms = 10, .volatile_cache = true,
};

static void add_phase(struct cycle *c, const char *name, double begin,
		      double end)
{
	struct phase *p = &c->phases[c->n_phases++];

	snprintf(p->name, sizeof(p->name), "%s", name);
	p->begin = begin;
	p->end = end;
}

/* A plausible OK cycle: sync on adds a sync phase that grows with dirty;
 * the figures come from lab_derive(), as in a real run. */
static void fill_ok(struct cycle_record *rec, double floor_bps)
{
	struct cycle *c = &rec->c;
	double mib = rec->dirty_target_bytes / (double)MIB;
	double sync = rec->sync ? 0.01 + mib / 20 * (1 + 0.1 * rec->index) : 0;
	double t = 100;

	c->verdict = VERDICT_OK;
	c->req_host = 1000;
	c->req_guest.mono = t;
	c->dirty_kb = (long long)(rec->dirty_target_bytes >> 10);
	c->writeback_kb = 0;
	c->fs_sync_s = rec->sync ? sync : -1;
	t += 0.001;
	if (rec->sync) {
		add_phase(c, "sync_filesystems", t, t + sync);
		t += sync;
	}
	add_phase(c, "freeze_processes", t, t + 0.02);
	add_phase(c, "dpm_prepare", t + 0.02, t + 0.03);
	add_phase(c, "dpm_suspend", t + 0.03, t + 0.08);
	add_phase(c, "dpm_suspend", t + 0.08, t + 0.09);	/* second span */
	add_phase(c, "machine_suspend", t + 0.1, t + 0.2);
	add_phase(c, "dpm_resume", t + 0.2, t + 0.3);
	add_phase(c, "thaw_processes", t + 0.3, t + 0.35);
	c->suspend_event = c->req_host + (t + 0.1 - c->req_guest.mono) + 0.005;
	c->wake_host = 2000;
	c->resumed_host = 2000.4 + 0.01 * rec->index;
	lab_derive(rec, floor_bps);
}

/* Suspended, then never came back: nothing after the request measured. */
static void fill_failed(struct cycle_record *rec)
{
	struct cycle *c = &rec->c;

	c->verdict = VERDICT_RESUME_TIMEOUT;
	c->req_host = 1000;
	c->dirty_kb = (long long)(rec->dirty_target_bytes >> 10);
	add_phase(c, "freeze_processes", 10, 10.02);
	add_phase(c, "machine_suspend", 10.1, -1);	/* never closed */
	lab_derive(rec, 19.5 * MIB);
}

void reportrun_provenance(struct lab_opts *o, struct lab_result *r)
{
	o->hx.firmware = VM_FW_BIOS;
	o->hx.profile = &profile;
	o->hx.accel = "tcg";
	o->mem_mb = 2048;

	memset(r, 0, sizeof(*r));
	snprintf(r->kernel_release, sizeof(r->kernel_release), "6.1.0-slab_test");
	snprintf(r->qemu_version, sizeof(r->qemu_version), "7.2.0");
	snprintf(r->knob, sizeof(r->knob), "suspend_sync");
	snprintf(r->date, sizeof(r->date), "2024-01-02T03:04:05Z");
	r->accel = "tcg";
	r->boot_s = 3.5;
	r->mem_mib = 2048;
	r->floor_bps = 19.5 * MIB;
}

/* mem x {off, on} x {8, 64} MiB x 2 cycles; the last on/64M cycle fails. */
void reportrun_make(struct lab_opts *o, struct lab_result *r, int *failed)
{
	static struct cycle_record rec[8];
	int n = 0;

	memset(o, 0, sizeof(*o));
	hx_opts_defaults(&o->hx);
	o->states[0] = "mem";
	o->n_states = 1;
	o->syncs[0] = 0;
	o->syncs[1] = 1;
	o->n_syncs = 2;
	o->dirty[0] = 64 * MIB;	/* out of order: the plot must sort */
	o->dirty[1] = 8 * MIB;
	o->n_dirty = 2;
	o->cycles = 2;
	o->workloads[0] = workload_by_name("bigfile");
	o->n_workloads = 1;
	o->wbs[0] = WB_HELD;
	o->n_wbs = 1;
	reportrun_provenance(o, r);
	memset(rec, 0, sizeof(rec));
	for (int y = 0; y < o->n_syncs; y++)
	for (int d = 0; d < o->n_dirty; d++)
	for (int i = 0; i < o->cycles; i++) {
		struct cycle_record *p = &rec[n];

		struct lab_config cf = {
			.state = "mem", .sync = o->syncs[y], .dirty = o->dirty[d],
			.workload = o->workloads[0], .wb = WB_HELD,
		};

		lab_record_init(p, &cf, i);
		if (p->sync && d == 0 && i == 1) {
			fill_failed(p);
			*failed = n;
		} else {
			fill_ok(p, r->floor_bps);
		}
		if (!p->sync) {	/* the kernel's at-risk report */
			p->c.skip_events = 1;
			p->c.skip_dirty_kb = (long long)(p->dirty_target_bytes >> 10) + 40;
			p->c.skip_writeback_kb = 4;
		}
		n++;
	}
	r->n = n;
	r->rec = rec;
}

int reportrun_scratch(char *dir, char *tmp, size_t n)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(tmp, n, "%s/tmp", dir);
	if (mkdir(tmp, 0700))
		return -1;
	return setenv("TMPDIR", tmp, 1);
}

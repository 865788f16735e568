#include "reportgroup.h"
#include "reportrun.h"

#include <stdio.h>
#include <string.h>

#define MIB (1024ULL * 1024)
#define CYCLES 3
#define MAX_RECS (LAB_MAX_STATES * LAB_MAX_SYNC * LAB_MAX_WORKLOADS * LAB_MAX_WB * CYCLES)

/* Held: the sync writes all 64 MiB at 20 MiB/s; default: part of it is
 * already written back.  fsync-log keeps little dirty. */
static void figures(struct cycle_record *rec, int w)
{
	static const double sync_held[] = { 3.2, 4.1, 0.3, 1.6 };
	static const double sync_default[] = { 0.5, 0.7, 0.12, 0.4 };
	bool freeze = !strcmp(rec->state, "freeze");
	double spread = 1 + 0.15 * rec->index;
	double sync = !rec->sync ? 0 : rec->wb == WB_HELD ? sync_held[w % 4] : sync_default[w % 4];

	rec->c.verdict = VERDICT_OK;
	rec->suspend_latency_s = (0.06 + 0.01 * w + sync) * spread * (freeze ? 0.8 : 1);
	rec->resume_latency_s = (freeze ? 0.12 : 0.45 + 0.1 * w) * spread;
}

/* mem sync on: mixed/default never resumes, smallfiles/held once in three */
static bool fails(const struct lab_config *cf, int i)
{
	if (strcmp(cf->state, "mem") || !cf->sync)
		return false;
	if (!strcmp(cf->workload->name, "mixed"))
		return cf->wb == WB_DEFAULT;
	return !strcmp(cf->workload->name, "smallfiles") && cf->wb == WB_HELD && i == 2;
}

void reportgroup_make(struct lab_opts *o, struct lab_result *r, int n_states)
{
	static struct cycle_record rec[MAX_RECS];
	int n = 0;

	memset(o, 0, sizeof(*o));
	hx_opts_defaults(&o->hx);
	o->states[0] = "mem";
	o->states[1] = "freeze";
	o->n_states = n_states;
	o->syncs[0] = 0;
	o->syncs[1] = 1;
	o->n_syncs = 2;
	o->dirty[0] = 64 * MIB;
	o->n_dirty = 1;
	o->cycles = CYCLES;
	for (int w = 0; workloads[w].name && w < LAB_MAX_WORKLOADS; w++)
		o->workloads[o->n_workloads++] = &workloads[w];
	o->wbs[0] = WB_HELD;
	o->wbs[1] = WB_DEFAULT;
	o->n_wbs = 2;
	reportrun_provenance(o, r);
	memset(rec, 0, sizeof(rec));
	for (int k = 0; k < lab_n_configs(o); k++) {
		struct lab_config cf;
		int w;

		lab_config_at(o, k, &cf);
		w = (int)(cf.workload - workloads);
		for (int i = 0; i < o->cycles; i++) {
			struct cycle_record *p = &rec[n++];

			lab_record_init(p, &cf, i);
			if (fails(&cf, i))
				p->c.verdict = VERDICT_RESUME_TIMEOUT;
			else
				figures(p, w);
		}
	}
	r->n = n;
	r->rec = rec;
}

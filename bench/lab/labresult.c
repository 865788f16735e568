#define _GNU_SOURCE
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* What a run is sized by and what it hands the reports: no guest here. */

#define MIB (1024ULL * 1024)

uint64_t lab_max_dirty(const struct lab_opts *o)
{
	uint64_t m = 0;

	for (int i = 0; i < o->n_dirty; i++)
		if (o->dirty[i] > m)
			m = o->dirty[i];
	return m;
}

int lab_mem_mb(const struct lab_opts *o)
{
	/* the dirty pages, four times over, as --mem's quarter rule wants */
	int need = (int)(4 * (lab_max_dirty(o) / MIB)) + 512;

	if (o->mem_mb)
		return o->mem_mb;
	return need > 2048 ? need : 2048;
}

void lab_now_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void lab_provenance(struct lab_result *r, const struct hx *h)
{
	snprintf(r->kernel_release, sizeof(r->kernel_release), "%s", h->release);
	snprintf(r->qemu_version, sizeof(r->qemu_version), "%s", h->qemu_version);
	snprintf(r->knob, sizeof(r->knob), "%s", h->knob);
	r->at_risk_report = h->at_risk_report;
	r->boot_s = h->release[0] ? h->boot_s : -1;
	r->boots = h->boots;
}

int lab_ok_cycles(const struct lab_result *r)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += r->rec[i].c.verdict == VERDICT_OK;
	return n;
}

void lab_result_free(struct lab_result *r)
{
	for (int i = 0; r->rec && i < r->n; i++)
		free(r->rec[i].stalls);
	free(r->rec);
	r->rec = NULL;
	r->n = 0;
}

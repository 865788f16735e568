/*
 * A cycle the host took (HostStall) is not a measurement of the guest: the
 * lab measures it again, a bounded number of times, and keeps each
 * stalled attempt for the reports.  A run fails only when a configuration
 * still lacks cycles, and says which, one line each.
 */
#define _GNU_SOURCE
#include "lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lab_stall_retries(const struct lab_opts *o)
{
	if (o->stall_retries == LAB_STALL_NO_RETRY)
		return 0;
	return o->stall_retries > 0 ? o->stall_retries : LAB_STALL_RETRIES;
}

int lab_stall_keep(struct cycle_record *rec, int attempt)
{
	struct lab_stall *s = realloc(rec->stalls, (rec->n_stalls + 1) * sizeof(*s));
	bool sus;

	if (!s)
		return -1;
	rec->stalls = s;
	s = &s[rec->n_stalls++];
	memset(s, 0, sizeof(*s));
	/* hostwin.c tries the suspend window first */
	sus = hostload_stalled(&rec->host_suspend);
	s->attempt = attempt;
	s->window = sus ? "suspend" : "resume";
	s->taken_s = hostload_taken(sus ? &rec->host_suspend : &rec->host_resume);
	s->wall_s = sus ? rec->host_suspend.wall_s : rec->host_resume.wall_s;
	s->host_suspend = rec->host_suspend;
	s->host_resume = rec->host_resume;
	s->suspend_latency_s = rec->suspend_latency_s;
	s->resume_latency_s = rec->resume_latency_s;
	snprintf(s->why, sizeof(s->why), "%s", rec->c.why);
	return 0;
}

int lab_stalled_attempts(const struct lab_result *r)
{
	int n = 0;

	for (int i = 0; i < r->n; i++)
		n += r->rec[i].n_stalls + (r->rec[i].c.verdict == VERDICT_HOST_STALL);
	return n;
}

/* "2 HostStall, 1 NotRun": the verdicts of the configuration's other cycles */
static void others(const struct lab_result *r, const struct lab_config *cf, char *buf,
		   size_t n)
{
	int count[VERDICT__COUNT] = { 0 };
	size_t len = 0;
	const char *why = NULL;

	for (int i = 0; i < r->n; i++) {
		const struct cycle_record *rec = &r->rec[i];

		if (rec->state != cf->state || rec->sync != cf->sync || rec->workload != cf->workload ||
		    rec->wb != cf->wb || rec->dirty_target_bytes != cf->dirty ||
		    rec->c.verdict == VERDICT_OK)
			continue;
		count[rec->c.verdict]++;
		if (!why && rec->c.why[0])
			why = rec->c.why;
	}
	buf[0] = '\0';
	for (int v = 0; v < VERDICT__COUNT && len < n; v++)
		if (count[v])
			len += snprintf(buf + len, n - len, "%s%d %s", len ? ", " : "", count[v],
					verdict_name(v));
	if (why && len < n)
		snprintf(buf + len, n - len, " (%s)", why);
}

int lab_lacking(const struct lab_opts *o, const struct lab_result *r)
{
	int lacking = 0;

	for (int k = 0; k < lab_n_configs(o); k++) {
		struct lab_config cf;
		int ok = 0;
		char rest[512];

		lab_config_at(o, k, &cf);
		for (int i = 0; i < r->n; i++) {
			const struct cycle_record *rec = &r->rec[i];

			ok += rec->state == cf.state && rec->sync == cf.sync &&
			      rec->workload == cf.workload && rec->wb == cf.wb &&
			      rec->dirty_target_bytes == cf.dirty && rec->c.verdict == VERDICT_OK;
		}
		if (ok >= o->cycles)
			continue;
		lacking++;
		others(r, &cf, rest, sizeof(rest));
		fprintf(stderr, "%s: %s sync=%d %s/%s %lluM: %d of %d cycles measured; the rest: %s",
			cli_prog, cf.state, cf.sync, cf.workload->name, writeback_name(cf.wb),
			(unsigned long long)(cf.dirty >> 20), ok, o->cycles, rest);
		if (strstr(rest, "HostStall"))
			fprintf(stderr, "; the host took all %d attempts of each HostStall cycle",
				lab_stall_retries(o) + 1);
		fputc('\n', stderr);
	}
	return lacking;
}

/*
 * Judging a shard: every N-th state of the run from the K-th, in batches
 * of --per-boot images built from base.img and the log, handed to a
 * backend (the guest, or a test's stand-in), and the results written as
 * one shard file.  The states and their order depend only on the
 * recordings and the model, so shards judged anywhere merge into the
 * report a single run gives.
 */
#define _GNU_SOURCE
#include "crash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "clock.h"
#include "image.h"

static void init_result(struct cs_result *res, int index, const struct cs_cycle *c,
			const struct cs_state *s)
{
	memset(res, 0, sizeof(*res));
	res->index = index;
	res->cycle = c->number;
	res->sync = c->sync;
	cs_name(s, res->name, sizeof(res->name));
	res->kind = s->kind;
	res->pos = s->pos;
	res->phase = cs_phase_of(&c->m, s->pos);
	res->fio_verify = -1;
	snprintf(res->verdict, sizeof(res->verdict), "%s", verdict_name(VERDICT_NOT_RUN));
}

/* Builds the images of a batch and keeps the jobs whose image was built
 * at the front: their count.  A state that cannot be replayed is not
 * judged, and says why. */
static int build(const char *work, struct cs_job *jobs, int n)
{
	int ok = 0;

	for (int i = 0; i < n; i++) {
		struct cs_job j = jobs[i];
		char base[800], why[300];

		snprintf(j.image, sizeof(j.image), "%s/state-%d.img", work, j.res->index + 1);
		snprintf(base, sizeof(base), "%s/base.img", j.cycle->dir);
		j.h_image = cleanup_file(j.image);
		if (cs_build_image(&j.cycle->log, j.state, base, j.image, why, sizeof(why))) {
			fprintf(stderr, "%s: %s: %s\n", cli_prog, j.res->name, why);
			snprintf(j.res->verdict, sizeof(j.res->verdict), "%s", CS_REPLAY_FAILED);
			unlink(j.image);
			cleanup_forget(j.h_image);
			continue;
		}
		jobs[ok] = j;
		/* pointers into the job itself are set where it stays */
		cs_expect(j.cycle, j.state, &jobs[ok].rec, jobs[ok].tol_buf, jobs[ok].tol);
		ok++;
	}
	return ok;
}

int cs_judge(const struct cs_opts *o, const struct cs_backend *be, char *path, size_t pn)
{
	struct cs_cycle *cy = NULL;
	struct cs_state *st = NULL;
	struct cs_result *res = NULL;
	struct cs_job *jobs = NULL;
	int *cyc = NULL, n_cy, total, mine = 0, done = 0, judged = 0, hd, rc = 0;
	char work[700];
	double t0 = mono_now();

	n_cy = cs_cycles_load(o->rec_dir, &cy);
	if (n_cy < 0)
		return 2;
	total = cs_run_states(o, cy, n_cy, &st, &cyc);
	res = calloc(total + 1, sizeof(*res));
	jobs = calloc(o->per_boot, sizeof(*jobs));
	if (total < 0 || !res || !jobs) {
		fprintf(stderr, "%s: out of memory\n", cli_prog);
		rc = 2;
		goto out;
	}
	for (int i = 0; i < total; i++)
		if (cs_in_shard(i, o->shard_k, o->shard_n))
			init_result(&res[mine++], i, &cy[cyc[i]], &st[i]);
	snprintf(work, sizeof(work), "%s/crash-work-%d-of-%d", o->hx.out_dir, o->shard_k,
		 o->shard_n);
	if (mkdir(work, 0755) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot make %s: %s\n", cli_prog, work, strerror(errno));
		rc = 2;
		goto out;
	}
	hd = cleanup_dir(work);
	hx_progress(&(struct hx){ .o = &o->hx }, "shard %d/%d: %d of %d states", o->shard_k,
		    o->shard_n, mine, total);
	while (done < mine) {
		int nb = mine - done < o->per_boot ? mine - done : o->per_boot;

		for (int i = 0; i < nb; i++) {
			struct cs_result *r = &res[done + i];

			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].res = r;
			jobs[i].state = &st[r->index];
			jobs[i].cycle = &cy[cyc[r->index]];
		}
		nb = build(work, jobs, nb);
		if (nb)
			be->batch(be->ctx, jobs, nb);
		for (int i = 0; i < nb; i++) {
			unlink(jobs[i].image);
			cleanup_forget(jobs[i].h_image);
		}
		done += o->per_boot < mine - done ? o->per_boot : mine - done;
		hx_progress(&(struct hx){ .o = &o->hx }, "judged %d of %d states (%.1f s)", done,
			    mine, mono_now() - t0);
	}
	rmdir(work);
	cleanup_forget(hd);
	for (int i = 0; i < mine; i++)
		judged += res[i].judged;
	{
		double s = mono_now() - t0;

		fprintf(stderr, "%s: shard %d/%d: judged %d of %d states in %.1f s: %.1f states"
			" per minute\n", cli_prog, o->shard_k, o->shard_n, judged, mine, s,
			s > 0 ? judged * 60.0 / s : 0.0);
	}
	snprintf(path, pn, "%s/crash-shard-%d-of-%d.json", o->hx.out_dir, o->shard_k,
		 o->shard_n);
	if (cs_shard_write(path, o, cy, n_cy, total, res, mine))
		rc = 1;		/* a result not written, as a report's */
	else if (judged < mine)
		rc = 1;
out:
	for (int i = 0; i < n_cy; i++)
		cs_cycle_free(&cy[i]);
	free(cy);
	free(st);
	free(cyc);
	free(res);
	free(jobs);
	return rc;
}

/* power-cut: command line only; the engine is powercut/ in libslab. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cleanup.h"
#include "outdir.h"
#include "outset.h"
#include "pcreport.h"

/* The results set run_one() replaces: checked up front (outdir.h). */
static const char *const results[] = { "powercut.json", "powercut.csv", NULL };

static void progress(const struct pc_opts *o, const struct pc_result *run, int total)
{
	const struct pc_record *r = &run->rec[run->n - 1];

	if (o->hx.quiet && r->verdict == VERDICT_OK)
		return;
	if (!r->judged) {
		fprintf(stderr, "power-cut: [%d/%d] %s sync=%d cut=%s: %s, not judged%s%s\n",
			run->n, total, o->state, r->sync, cut_name(r->cut),
			verdict_name(r->verdict), r->why[0] ? ": " : "", r->why);
		return;
	}
	fprintf(stderr, "power-cut: [%d/%d] %s sync=%d cut=%s%s: %s, %llu of %llu bytes lost, fsync'd %s, fs %s%s\n",
		run->n, total, o->state, r->sync, cut_name(r->cut),
		r->cut == CUT_SYNC ? "+offset" : "", verdict_name(r->verdict),
		(unsigned long long)r->bytes_lost, (unsigned long long)r->dataset_bytes,
		r->fsync_intact ? "intact" : "NOT intact", r->fs_clean ? "clean" : "NOT clean",
		r->n_unexpected ? ", unexpected entries" : "");
}

/* One filesystem's cuts, their table and their results set. */
static int run_one(void *ctx)
{
	struct pc_opts *op = ctx, o = *op;
	struct pc_result run = { .o = &o };
	struct pc_summary *sum = NULL;
	int n, judged = 0, failed = 0, total;
	time_t t = time(NULL);

	strftime(run.date, sizeof(run.date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	total = o.cycles * ((o.syncs & 1) + (o.syncs >> 1));
	run.rec = calloc(total, sizeof(*run.rec));
	if (!run.rec)
		return 1;
	/* alternate the settings, so drift hits both alike */
	for (int i = 0; i < o.cycles; i++)
		for (int sync = 0; sync <= 1; sync++) {
			struct pc_record *r = &run.rec[run.n];

			if (!(o.syncs & (1 << sync)))
				continue;
			o.sync = sync;
			pc_cycle(&o, run.n, r, NULL);
			run.n++;
			judged += r->judged;
			failed += r->verdict != VERDICT_OK;
			progress(&o, &run, total);
		}
	n = pc_summarise(&run, &sum);
	if (n < 0)
		return 1;
	{
		struct pc_view v = { .run = &run, .sum = sum, .n_sum = n };

		pc_report_table(stdout, &v);
		fflush(stdout);
		if (!judged) {
			fprintf(stderr, "power-cut: no cut was judged; earlier results in %s are kept\n",
				o.hx.out_dir);
			failed++;
		} else {
			struct outset set;
			int bad;

			if (outset_begin(&set, o.hx.out_dir)) {
				failed++;
			} else {
				bad = pc_report_json(outset_path(&set, "powercut.json"), &v) != 0;
				bad += pc_report_csv(outset_path(&set, "powercut.csv"), &v) != 0;
				if (outset_commit(&set, bad))
					failed++;
				else
					fprintf(stderr, "power-cut: wrote %s/powercut.{json,csv}\n",
						o.hx.out_dir);
			}
		}
	}
	free(sum);
	free(run.rec);
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct pc_opts o;
	int rc;

	rc = pc_parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : 2;
	outdir_expect(results);
	if (hx_check_inputs(&o.hx, true))
		return 2;
	cleanup_install();
	if (!o.hx.fs_all)
		return run_one(&o);
	return hx_each_fs(&o.hx, run_one, &o);
}

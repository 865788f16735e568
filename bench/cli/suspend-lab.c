/* suspend-lab: command line only; the lab itself is in libslab. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "lab.h"
#include "outdir.h"
#include "outset.h"
#include "report.h"

/* The results set write_reports() replaces: checked up front (outdir.h). */
static const char *const results[] = {
	"latency.json", "latency.csv", "latency.svg", "latency.png", "report.html", NULL
};

/* The guest's RAM must fit in what the host has free. */
static int write_reports(const struct lab_view *v, const char *dir)
{
	struct outset set;
	char *svg;
	int bad = 0;

	if (outset_begin(&set, dir))
		return 1;
	bad += report_json(outset_path(&set, "latency.json"), v) != 0;
	bad += report_csv(outset_path(&set, "latency.csv"), v) != 0;
	svg = strdup(outset_path(&set, "latency.svg"));
	bad += !svg || report_plot(svg, v) != 0;
	bad += report_plot(outset_path(&set, "latency.png"), v) != 0;
	/* the page inlines the chart just rendered */
	bad += !svg || report_html(outset_path(&set, "report.html"), v, svg) != 0;
	free(svg);
	if (outset_commit(&set, bad))
		return 1;
	fprintf(stderr, "suspend-lab: wrote %s/latency.{json,csv,svg,png} and %s/report.html\n",
		dir, dir);
	return 0;
}

/* One filesystem's experiment, its table and its results set. */
static int run_one(void *ctx)
{
	const struct lab_opts *o = ctx;
	struct lab_result r;
	struct lab_summary *sum = NULL;
	struct lab_view v;
	int rc, n;

	rc = lab_run(o, &r, NULL);
	n = lab_summarise(o, &r, &sum);
	if (n < 0) {
		fprintf(stderr, "suspend-lab: out of memory\n");
		return 1;
	}
	v = (struct lab_view){ .o = o, .r = &r, .sum = sum, .n_sum = n };
	report_table(stdout, &v);
	fflush(stdout);
	fprintf(stderr, "suspend-lab: time: boots %.0f s, floor %.0f s, %d cycles %.0f s\n",
		r.time_boot_s, r.time_floor_s, r.n, r.time_cycles_s);
	if (!lab_ok_cycles(&r)) {
		fprintf(stderr, "suspend-lab: no cycle was measured; earlier results in %s are kept\n",
			o->hx.out_dir);
		rc = 1;
	} else if (write_reports(&v, o->hx.out_dir)) {
		rc = 1;
	}
	free(sum);
	lab_result_free(&r);
	return rc;
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	int rc;

	rc = lab_parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : 2;
	/* every check before hx_check_inputs() makes, locks or sweeps --out */
	if (cli_host_mem(lab_mem_mb(&o), o.mem_mb > 0, "this --dirty list",
			 cli_mem_available_mib()))
		return 2;
	outdir_expect(results);
	if (hx_check_inputs(&o.hx, true))
		return 2;
	cleanup_install();
	if (!o.hx.fs_all)
		return run_one(&o);
	return hx_each_fs(&o.hx, run_one, &o);
}

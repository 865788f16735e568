/* suspend-lab: command line only; the lab itself is in libslab. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "lab.h"
#include "outset.h"
#include "report.h"

/* The guest's RAM must fit in what the host has free. */
static int check_host_mem(int mem_mb)
{
	char line[256];
	long long avail_kb = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "MemAvailable: %lld", &avail_kb);
	if (f)
		fclose(f);
	if (avail_kb > 0 && (long long)mem_mb * 1024 > avail_kb)
		return cli_bad("the guest needs %d MiB of RAM for this --dirty list, and the host has %lld MiB available",
			       mem_mb, avail_kb / 1024);
	return 0;
}

static int write_reports(const struct lab_view *v, const char *dir)
{
	struct outset set;
	char svg[1200];
	int bad = 0;

	if (outset_begin(&set, dir))
		return 1;
	bad += report_json(outset_path(&set, "latency.json"), v) != 0;
	bad += report_csv(outset_path(&set, "latency.csv"), v) != 0;
	snprintf(svg, sizeof(svg), "%s", outset_path(&set, "latency.svg"));
	bad += report_plot(svg, v) != 0;
	bad += report_plot(outset_path(&set, "latency.png"), v) != 0;
	/* the page inlines the chart just rendered */
	bad += report_html(outset_path(&set, "report.html"), v, svg) != 0;
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
	if (hx_check_inputs(&o.hx, true) || check_host_mem(lab_mem_mb(&o)))
		return 2;
	cleanup_install();
	if (!o.hx.fs_all)
		return run_one(&o);
	return hx_each_fs(&o.hx, run_one, &o);
}

/* suspend-lab: command line only; the lab itself is in libslab. */
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lab.h"
#include "report.h"

static void on_signal(int sig)
{
	lab_emergency_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void path(char *buf, size_t n, const char *dir, const char *name)
{
	snprintf(buf, n, "%s/%s", dir, name);
}

int main(int argc, char **argv)
{
	struct lab_opts o;
	struct lab_result r;
	char p[1024];
	int rc;

	rc = lab_parse_args(argc, argv, &o);
	if (rc)
		return rc == 1 ? 0 : 2;
	if (mkdir(o.out_dir, 0755) && access(o.out_dir, W_OK)) {
		fprintf(stderr, "suspend-lab: --out: cannot use '%s'\n", o.out_dir);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);

	rc = lab_run(&o, &r);
	report_table(stdout, &o, &r);
	path(p, sizeof(p), o.out_dir, "latency.json");
	if (report_json(p, &o, &r))
		rc = 1;
	path(p, sizeof(p), o.out_dir, "latency.csv");
	if (report_csv(p, &o, &r))
		rc = 1;
	path(p, sizeof(p), o.out_dir, "latency.svg");
	if (report_plot(p, &o, &r))
		rc = 1;
	path(p, sizeof(p), o.out_dir, "latency.png");
	if (report_plot(p, &o, &r))
		rc = 1;
	fprintf(stderr, "suspend-lab: wrote %s/latency.{json,csv,svg,png}\n", o.out_dir);
	lab_result_free(&r);
	return rc;
}

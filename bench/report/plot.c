/*
 * The lab's plot: report_plot() picks the chart (plotchoose.h) and runs
 * gnuplot for either; the chart drawn here is suspend and resume latency
 * against dirty page cache.
 */
#define _GNU_SOURCE
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cliopt.h"
#include "plotchoose.h"
#include "plotint.h"

/* One line of the plot: a (state, sync, workload, writeback) over
 * ascending sizes. */
#define MAX_LINES 16
struct series {
	const char *state;
	int sync;
	const struct workload *workload;
	enum writeback wb;
	int n;
	double mib[LAB_MAX_DIRTY];
	const struct lab_summary *cf[LAB_MAX_DIRTY];
};

struct plot {
	struct series line[MAX_LINES];
	int n_lines;
	double xmax, ymin[2], ymax[2];	/* [0] suspend, [1] resume */
	bool many;			/* several workloads or modes: name them */
};

static const struct stats *metric(const struct lab_summary *cf, int which)
{
	return which ? &cf->resume : &cf->suspend;
}

static bool same_line(const struct series *l, const struct lab_config *c)
{
	return !strcmp(l->state, c->state) && l->sync == c->sync &&
	       l->workload == c->workload && l->wb == c->wb;
}

/* Points in ascending size (insertion: a handful of points per line). */
static void add_point(struct series *l, const struct lab_summary *cf)
{
	int j = l->n++;

	for (; j > 0 && l->mib[j - 1] > cf->dirty / MIB; j--) {
		l->mib[j] = l->mib[j - 1];
		l->cf[j] = l->cf[j - 1];
	}
	l->mib[j] = cf->dirty / MIB;
	l->cf[j] = cf;
}

/* Lines with no OK cycle are left out: gnuplot rejects empty blocks. */
static void plot_collect(struct plot *pl, const struct lab_view *v)
{
	pl->ymin[0] = pl->ymin[1] = INFINITY;
	for (int k = 0; k < v->n_sum; k++) {
		const struct lab_summary *cf = &v->sum[k];
		struct series *l = NULL;

		if (cf->dirty / MIB > pl->xmax)
			pl->xmax = cf->dirty / MIB;
		if (!cf->suspend.n)
			continue;
		for (int i = 0; i < pl->n_lines && !l; i++)
			if (same_line(&pl->line[i], &cf->cf))
				l = &pl->line[i];
		if (!l && pl->n_lines == MAX_LINES)
			continue;	/* the table and JSON have them all */
		if (!l) {
			l = &pl->line[pl->n_lines++];
			l->state = cf->state;
			l->sync = cf->sync;
			l->workload = cf->cf.workload;
			l->wb = cf->cf.wb;
		}
		add_point(l, cf);
		for (int w = 0; w < 2; w++) {
			const struct stats *st = metric(cf, w);

			if (st->n && st->max > pl->ymax[w])
				pl->ymax[w] = st->max;
			if (st->n && st->min > 0 && st->min < pl->ymin[w])
				pl->ymin[w] = st->min;
		}
	}
}

/* Data blocks, "index 2*i + w": MiB median min max p95 (seconds) */
static int plot_data(FILE *f, const struct plot_job *j, const void *ctx)
{
	const struct plot *pl = ctx;

	(void)j;
	for (int i = 0; i < pl->n_lines; i++)
		for (int w = 0; w < 2; w++) {
			const struct series *l = &pl->line[i];

			fprintf(f, "%s# %s, sync %s, %s, %s, %s: MiB median min max p95\n",
				i || w ? "\n\n" : "", w ? "resume" : "suspend",
				l->sync ? "on" : "off", l->state, l->workload->name,
				writeback_name(l->wb));
			for (int k = 0; k < l->n; k++) {
				const struct stats *st = metric(l->cf[k], w);

				if (st->n)
					fprintf(f, "%.9g %.9g %.9g %.9g %.9g\n", l->mib[k],
						st->median, st->min, st->max, st->p95);
				else	/* keeps the block non-empty and in step */
					fprintf(f, "%.9g NaN NaN NaN NaN\n", l->mib[k]);
			}
		}
	return ferror(f) ? -1 : 0;
}

static void panel(FILE *f, const struct plot *pl, int w)
{
	bool logy = pl->ymin[w] > 0 && isfinite(pl->ymin[w]) &&
		    pl->ymax[w] / pl->ymin[w] > LOG_SPAN;

	char title[160];

	snprintf(title, sizeof(title), "%s (median line, min-max bars, p95 marks)%s",
		 w ? "Resume latency, wake to the agent's RESUMED" :
		 "Suspend latency, request to suspended", logy ? ", log scale" : "");
	fputs("set title ", f);
	gp_text(f, title);
	fputc('\n', f);
	fprintf(f, "set ylabel '%s latency (s)'\n", w ? "resume" : "suspend");
	if (logy)
		fprintf(f, "set logscale y\nset yrange [%.9g:%.9g]\n", pl->ymin[w] / 1.5,
			pl->ymax[w] * 1.5);
	else
		fprintf(f, "unset logscale y\nset yrange [0:%.9g]\n",
			pl->ymax[w] > 0 ? pl->ymax[w] * 1.15 : 1);
	for (int i = 0; i < pl->n_lines; i++) {
		const struct series *l = &pl->line[i];

		/* the title is text: a state or workload name is never code */
		snprintf(title, sizeof(title), "sync %s, %s%s%s%s%s", l->sync ? "on" : "off",
			 l->state, pl->many ? ", " : "", pl->many ? l->workload->name : "",
			 pl->many ? "/" : "", pl->many ? writeback_name(l->wb) : "");
		fprintf(f, "%s D index %d using 1:2:3:4 with yerrorlines lw 2 pt 7 dt %d lc %d"
			" title ", i ? ", \\\n    " : "plot", 2 * i + w, l->sync ? 1 : 2, i + 1);
		gp_text(f, title);
		fprintf(f, ", \\\n    D index %d using 1:5 with points pt 2 lc %d notitle",
			2 * i + w, i + 1);
	}
	fputc('\n', f);
}

void plot_begin(FILE *f, const struct plot_job *j, int png_w, int png_h, int rows, int cols,
		const char *what)
{
	const struct lab_result *r = j->v->r;
	const struct lab_opts *o = j->v->o;
	char lim[96], title[768];
	int len;

	report_profile_limits(lim, sizeof(lim), o->hx.profile);
	len = snprintf(title, sizeof(title), "kernel %s, profile %s (%s), firmware %s, %s, %s",
		       r->kernel_release[0] ? r->kernel_release : "unknown",
		       o->hx.profile ? o->hx.profile->name : "unknown", lim,
		       report_firmware_name(o->hx.firmware), report_accel(j->v), r->date);
	if (what && len >= 0 && (size_t)len < sizeof(title))
		snprintf(title + len, sizeof(title) - len, "\n%s", what);
	/* noenhanced: kernel releases are full of '_' and '^' is possible */
	if (j->svg)
		fprintf(f, "set terminal svg size %d,%d dynamic noenhanced"
			" font 'sans,12' background rgb 'white'\n", png_w * 4 / 5, png_h * 4 / 5);
	else
		fprintf(f, "set terminal pngcairo size %d,%d noenhanced font 'sans,11'\n",
			png_w, png_h);
	fputs("set output ", f);
	gp_path(f, j->out);
	fputs("\nD = ", f);
	gp_path(f, j->data);
	fprintf(f, "\nset multiplot layout %d,%d title ", rows, cols);
	gp_text(f, title);
	fputc('\n', f);
}

static int plot_script(FILE *f, const struct plot_job *j, const void *ctx)
{
	const struct plot *pl = ctx;

	plot_begin(f, j, 1200, 1250, 2, 1, NULL);
	fputs("set xlabel 'bytes the workload wrote before the request (MiB)'\n"
	      "set key top left box opaque\nset grid\n", f);
	/* fixed ranges: gnuplot warns about empty autoscaled ones */
	fprintf(f, "set xrange [0:%.9g]\n", pl->xmax > 0 ? pl->xmax * 1.08 : 1);
	if (!pl->n_lines) {
		fputs("unset key\nset label 1 'no successful cycle to plot'"
		      " at graph 0.5,0.5 center\nset yrange [0:1]\nplot NaN notitle\n"
		      "plot NaN notitle\n", f);
	} else {
		panel(f, pl, 0);
		panel(f, pl, 1);
	}
	fputs("unset multiplot\n", f);
	return ferror(f) ? -1 : 0;
}

int plot_by_size(struct plot_job *j)
{
	struct plot pl;

	memset(&pl, 0, sizeof(pl));
	pl.many = j->v->o->n_workloads > 1 || j->v->o->n_wbs > 1;
	plot_collect(&pl, j->v);
	return plot_render(j, plot_data, plot_script, &pl);
}

static int write_plain(const char *path, plot_fn fn, const struct plot_job *j, const void *ctx)
{
	FILE *f = fopen(path, "we");
	int rc;

	if (!f)
		return -1;
	rc = fn(f, j, ctx);
	return fclose(f) || rc ? -1 : 0;
}

/* $GNUPLOT names another binary; the tests use it to fake a missing one. */
static int plot_run(const struct plot_job *j)
{
	const char *gp = getenv("GNUPLOT");
	posix_spawn_file_actions_t fa;
	char *argv[3];
	struct stat st;
	int err, status;
	pid_t pid;

	if (!gp || !*gp)
		gp = "gnuplot";
	argv[0] = (char *)gp;
	argv[1] = (char *)j->script;
	argv[2] = NULL;
	/* gnuplot reads the script file; a terminal on stdin must not matter */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	err = posix_spawnp(&pid, gp, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err == ENOENT) {
		fprintf(stderr, "%s: plot: %s not found; apt-get install gnuplot-nox\n",
			cli_prog, gp);
		return -1;
	}
	if (err) {
		fprintf(stderr, "%s: plot: cannot run %s: %s\n", cli_prog, gp, strerror(err));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "%s: plot: lost %s\n", cli_prog, gp);
			return -1;
		}
	if (WIFEXITED(status) && !WEXITSTATUS(status) && !stat(j->out, &st) && st.st_size > 0)
		return 0;
	fprintf(stderr, "%s: plot: %s did not render %s (wait status %#x)\n",
		cli_prog, gp, j->out, status);
	return -1;
}

/* Names of any length: a long TMPDIR is used, never cut short. */
int plot_render(struct plot_job *j, plot_fn data, plot_fn script, const void *ctx)
{
	const char *tmp = getenv("TMPDIR");
	int rc = -1;

	j->dir = j->data = j->script = NULL;
	if (asprintf(&j->dir, "%s/slab-plot.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		j->dir = NULL;
		fprintf(stderr, "%s: plot: out of memory\n", cli_prog);
		return -1;
	}
	if (!mkdtemp(j->dir)) {
		fprintf(stderr, "%s: plot: cannot make %s: %s\n", cli_prog, j->dir,
			strerror(errno));
		goto out;
	}
	if (asprintf(&j->data, "%s/latency.dat", j->dir) < 0)
		j->data = NULL;
	if (asprintf(&j->script, "%s/latency.gp", j->dir) < 0)
		j->script = NULL;
	if (!j->data || !j->script)
		fprintf(stderr, "%s: plot: out of memory\n", cli_prog);
	else if (write_plain(j->data, data, j, ctx) || write_plain(j->script, script, j, ctx))
		fprintf(stderr, "%s: plot: cannot write the gnuplot input in %s\n",
			cli_prog, j->dir);
	else
		rc = plot_run(j);
	if (j->data)
		unlink(j->data);
	if (j->script)
		unlink(j->script);
	rmdir(j->dir);
out:
	free(j->dir);
	free(j->data);
	free(j->script);
	j->dir = j->data = j->script = NULL;
	return rc;
}

enum plot_kind plot_choose(const struct lab_config *cf, int n)
{
	for (int i = 1; i < n; i++)
		if (cf[i].dirty != cf[0].dirty)
			return PLOT_BY_SIZE;
	return n > 0 ? PLOT_GROUPED : PLOT_BY_SIZE;
}

static enum plot_kind view_kind(const struct lab_view *v)
{
	struct lab_config *cf = calloc(v->n_sum > 0 ? v->n_sum : 1, sizeof(*cf));
	enum plot_kind kind;

	if (!cf)	/* the size chart draws any sweep, if less well */
		return PLOT_BY_SIZE;
	for (int k = 0; k < v->n_sum; k++)
		cf[k] = v->sum[k].cf;
	kind = plot_choose(cf, v->n_sum);
	free(cf);
	return kind;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && !strcmp(s + n - m, suffix);
}

int report_plot(const char *path, const struct lab_view *v)
{
	struct plot_job j = { .v = v, .svg = ends_with(path, ".svg") };
	char *tmp;
	int rc;

	if (!j.svg && !ends_with(path, ".png")) {
		fprintf(stderr, "%s: plot: %s: name it *.svg or *.png\n", cli_prog, path);
		return -1;
	}
	/* gnuplot renders beside the name; the rename keeps an earlier plot
	 * until this one is whole (the suffix tells gnuplot the format) */
	if (asprintf(&tmp, "%s.tmp%s", path, j.svg ? ".svg" : ".png") < 0) {
		fprintf(stderr, "%s: plot: out of memory\n", cli_prog);
		return -1;
	}
	j.out = tmp;
	rc = view_kind(v) == PLOT_GROUPED ? plot_grouped(&j) : plot_by_size(&j);
	if (!rc && rename(tmp, path)) {
		fprintf(stderr, "%s: plot: %s: %s\n", cli_prog, path, strerror(errno));
		rc = -1;
	}
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

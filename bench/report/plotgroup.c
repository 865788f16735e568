/*
 * The lab's plot for a sweep at one dirty size (plotchoose.h): a group of
 * bars per workload, one bar per state and sync setting, a panel per
 * writeback mode, suspend latency above and resume latency below.  Bars
 * are the median, whiskers reach the max, a diamond marks the p95, all
 * read from the summary.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "plotint.h"

#define GROUP_WIDTH 0.8		/* of the unit between two workloads */

struct group {
	const char *state[LAB_MAX_STATES];
	int sync[LAB_MAX_SYNC];
	const struct workload *wl[LAB_MAX_WORKLOADS];
	int wb[LAB_MAX_WB];
	int n_states, n_syncs, n_wl, n_wb;
	uint64_t dirty;
	/* by state, sync, workload, writeback; NULL where the sweep has none */
	const struct lab_summary *cell[LAB_MAX_STATES][LAB_MAX_SYNC][LAB_MAX_WORKLOADS][LAB_MAX_WB];
};

/* The index of x in a[0..*n), added if new; -1 when a is full. */
static int slot_str(const char **a, int *n, int max, const char *x)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(a[i], x))
			return i;
	return *n < max ? (a[*n] = x, (*n)++) : -1;
}

static int slot_wl(const struct workload **a, int *n, int max, const struct workload *x)
{
	for (int i = 0; i < *n; i++)
		if (a[i] == x)
			return i;
	return *n < max ? (a[*n] = x, (*n)++) : -1;
}

static int slot_int(int *a, int *n, int max, int x)
{
	for (int i = 0; i < *n; i++)
		if (a[i] == x)
			return i;
	return *n < max ? (a[*n] = x, (*n)++) : -1;
}

/* Axes in the order of the summary, which is the experiment's. */
static void group_collect(struct group *g, const struct lab_view *v)
{
	for (int k = 0; k < v->n_sum; k++) {
		const struct lab_summary *cf = &v->sum[k];
		int s = slot_str(g->state, &g->n_states, LAB_MAX_STATES, cf->state);
		int y = slot_int(g->sync, &g->n_syncs, LAB_MAX_SYNC, cf->sync);
		int w = slot_wl(g->wl, &g->n_wl, LAB_MAX_WORKLOADS, cf->cf.workload);
		int p = slot_int(g->wb, &g->n_wb, LAB_MAX_WB, cf->cf.wb);

		g->dirty = cf->dirty;
		if (s >= 0 && y >= 0 && w >= 0 && p >= 0)
			g->cell[s][y][w][p] = cf;
	}
}

static int n_bars(const struct group *g)
{
	return g->n_states * g->n_syncs;
}

static const struct lab_summary *cell(const struct group *g, int b, int w, int p)
{
	return g->cell[b / g->n_syncs][b % g->n_syncs][w][p];
}

/* Which == 0: suspend, 1: resume; NULL when the sweep lacks the cell. */
static const struct stats *cell_stats(const struct group *g, int b, int w, int p, int which)
{
	const struct lab_summary *cf = cell(g, b, w, p);

	return !cf ? NULL : which ? &cf->resume : &cf->suspend;
}

static bool measured(const struct stats *st)
{
	return st && st->n > 0;
}

/* The bar's centre: bars of a group side by side around its workload. */
static double bar_x(const struct group *g, int b, int w)
{
	return w - GROUP_WIDTH / 2 + (b + 0.5) * GROUP_WIDTH / n_bars(g);
}

static void bar_title(char *buf, size_t n, const struct group *g, int b)
{
	snprintf(buf, n, "%s sync %s", g->state[b / g->n_syncs],
		 g->sync[b % g->n_syncs] ? "on" : "off");
}

static int block(const struct group *g, int which, int p, int b)
{
	return (which * g->n_wb + p) * n_bars(g) + b;
}

/*
 * Data blocks in block()'s order, a row per workload: x median p95 max
 * (seconds).  NaN where nothing was measured keeps every block one row per
 * workload, never empty, which gnuplot would reject.
 */
static int group_data(FILE *f, const struct plot_job *j, const void *ctx)
{
	const struct group *g = ctx;
	char bar[64];

	(void)j;
	for (int which = 0; which < 2; which++)
		for (int p = 0; p < g->n_wb; p++)
			for (int b = 0; b < n_bars(g); b++) {
				bar_title(bar, sizeof(bar), g, b);
				fprintf(f, "%s# block %d: %s, writeback %s, %s: x median p95 max\n",
					block(g, which, p, b) ? "\n\n" : "", block(g, which, p, b),
					which ? "resume" : "suspend",
					writeback_name((enum writeback)g->wb[p]), bar);
				for (int w = 0; w < g->n_wl; w++) {
					const struct stats *st = cell_stats(g, b, w, p, which);

					if (measured(st))
						fprintf(f, "%.9g %.9g %.9g %.9g\n", bar_x(g, b, w),
							st->median, st->p95, st->max);
					else
						fprintf(f, "%.9g NaN NaN NaN\n", bar_x(g, b, w));
				}
			}
	return ferror(f) ? -1 : 0;
}

/* The panel's smallest and largest drawn value; false if none. */
static bool panel_span(const struct group *g, int which, int p, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (int b = 0; b < n_bars(g); b++)
		for (int w = 0; w < g->n_wl; w++) {
			const struct stats *st = cell_stats(g, b, w, p, which);

			if (!measured(st))
				continue;
			*lo = fmin(*lo, fmin(st->median, fmin(st->p95, st->max)));
			*hi = fmax(*hi, fmax(st->median, fmax(st->p95, st->max)));
		}
	return isfinite(*lo);
}

/* Under a bar with nothing measured, and over one with cycles missing. */
static void cell_labels(FILE *f, const struct group *g, int which, int p)
{
	for (int b = 0; b < n_bars(g); b++)
		for (int w = 0; w < g->n_wl; w++) {
			const struct stats *st = cell_stats(g, b, w, p, which);
			const struct lab_summary *cf = cell(g, b, w, p);

			if (!st)
				continue;
			if (!st->n)
				fprintf(f, "set label 'no OK cycle' at first %.9g, graph 0.03"
					" rotate by 90 left front font ',9'\n", bar_x(g, b, w));
			else if (st->n < cf->n_total)
				fprintf(f, "set label '%d/%d OK' at first %.9g, first %.9g center"
					" offset 0,0.8 front font ',9'\n", st->n, cf->n_total,
					bar_x(g, b, w), st->max);
		}
}

static bool bar_drawn(const struct group *g, int which, int p, int b)
{
	for (int w = 0; w < g->n_wl; w++)
		if (measured(cell_stats(g, b, w, p, which)))
			return true;
	return false;	/* a block of NaN only: gnuplot would warn */
}

/* Bars first, so the key lists them first and the marks lie on top. */
static void panel_plot(FILE *f, const struct group *g, int which, int p, double cap)
{
	static const char *const colour[LAB_MAX_SYNC] = { "#e69f00", "#0072b2" };
	const char *sep = "plot";
	bool keyed = false;
	char bar[64];

	for (int b = 0; b < n_bars(g); b++) {
		if (!bar_drawn(g, which, p, b))
			continue;
		bar_title(bar, sizeof(bar), g, b);
		/* colour: sync; solid or hatched: the state */
		fprintf(f, "%s D index %d using 1:2 with boxes lc rgb '%s' fs %s border lc rgb"
			" 'black' title ", sep, block(g, which, p, b),
			colour[g->sync[b % g->n_syncs] ? 1 : 0],
			b / g->n_syncs ? "pattern 4" : "solid 0.9");
		gp_text(f, bar);
		sep = ", \\\n    ";
	}
	/* whisker and cap as vectors: gnuplot's error bars leave a gap at the point */
	for (int b = 0; b < n_bars(g); b++) {
		int i = block(g, which, p, b);

		if (!bar_drawn(g, which, p, b))
			continue;
		fprintf(f, "%sD index %d using 1:2:(0):($4-$2) with vectors nohead lc rgb 'black'"
			" lw 1.5 %s, \\\n    D index %d using ($1-%.9g):4:(%.9g):(0) with vectors"
			" nohead lc rgb 'black' lw 1.5 notitle, \\\n    D index %d using 1:3 with"
			" points pt 13 ps 1.2 lc rgb '#c00000' %s", sep, i,
			keyed ? "notitle" : "title 'max'", i, cap, 2 * cap, i,
			keyed ? "notitle" : "title 'p95'");
		keyed = true;
	}
	fputc('\n', f);
}

static void panel(FILE *f, const struct group *g, int which, int p)
{
	double lo, hi;
	bool any = panel_span(g, which, p, &lo, &hi);
	bool logy = any && lo > 0 && hi / lo > LOG_SPAN;
	char title[192];

	snprintf(title, sizeof(title), "%s\nwriteback %s%s",
		 which ? "Resume latency, wake to the agent's RESUMED" :
		 "Suspend latency, request to suspended",
		 writeback_name((enum writeback)g->wb[p]), logy ? ", log scale" : "");
	fputs("unset label\nset title ", f);
	gp_text(f, title);
	fprintf(f, "\nset ylabel '%s latency (s)'\n", which ? "resume" : "suspend");
	if (!any) {
		fputs("unset logscale y\nset yrange [0:1]\nset label 1 'no successful cycle"
		      " to plot' at graph 0.5,0.5 center\nplot NaN notitle\n", f);
		return;
	}
	/* headroom above the tallest whisker for the key */
	if (logy)
		fprintf(f, "set logscale y\nset yrange [%.9g:%.9g]\n", lo / 1.5, hi * 6);
	else
		fprintf(f, "unset logscale y\nset yrange [%.9g:%.9g]\n", lo < 0 ? lo * 1.15 : 0,
			hi > 0 ? hi * 1.35 : 1);
	cell_labels(f, g, which, p);
	panel_plot(f, g, which, p, 0.3 * GROUP_WIDTH / n_bars(g));
}

static int group_script(FILE *f, const struct plot_job *j, const void *ctx)
{
	const struct group *g = ctx;
	char what[160];

	snprintf(what, sizeof(what), "bars: median of the OK cycles, whiskers: up to the max,"
		 " diamonds: the p95 (%g MiB written before each request)", g->dirty / MIB);
	/* a column per writeback mode; wider than tall with two */
	plot_begin(f, j, g->n_wb > 1 ? 1400 : 900, 1100, 2, g->n_wb, what);
	fprintf(f, "set xlabel 'workload (each wrote %g MiB before the request)'\n"
		"set xrange [-0.5:%g]\nset xtics scale 0 (", g->dirty / MIB, g->n_wl - 0.5);
	for (int w = 0; w < g->n_wl; w++) {
		gp_text(f, g->wl[w]->name);
		fprintf(f, " %d%s", w, w + 1 < g->n_wl ? ", " : ")\n");
	}
	fprintf(f, "set boxwidth %.9g absolute\n"
		"set key top left horizontal maxcols 4 samplen 2 box opaque font ',10'\n"
		"set grid ytics mytics\n", 0.9 * GROUP_WIDTH / n_bars(g));
	for (int which = 0; which < 2; which++)
		for (int p = 0; p < g->n_wb; p++)
			panel(f, g, which, p);
	fputs("unset multiplot\n", f);
	return ferror(f) ? -1 : 0;
}

int plot_grouped(struct plot_job *j)
{
	struct group g;

	memset(&g, 0, sizeof(g));
	group_collect(&g, j->v);
	if (!g.n_wl)	/* no configuration: the size chart's empty plot */
		return plot_by_size(j);
	return plot_render(j, group_data, group_script, &g);
}

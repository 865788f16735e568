/* Order statistics of one metric over the cycles of a configuration. */
#ifndef SLAB_STATS_H
#define SLAB_STATS_H

struct stats {
	int n;			/* values measured (>= 0) */
	double min, median, p95, max;	/* all -1 when n == 0 */
};

/*
 * Summarises v[0..n); negative (and NaN) entries mean "not measured" and
 * are skipped.  v is left untouched.
 */
void stats_compute(const double *v, int n, struct stats *s);

#endif

/* Order statistics of one metric over the cycles of a configuration. */
#ifndef SLAB_STATS_H
#define SLAB_STATS_H

struct stats {
	int n;			/* values measured */
	double min, median, p95, max;	/* all NAN when n == 0 */
};

/*
 * Summarises v[0..n); NAN entries mean "not measured" and are skipped.
 * Negative values are measurements (a host that read late) and count.
 * v is left untouched.
 */
void stats_compute(const double *v, int n, struct stats *s);

#endif

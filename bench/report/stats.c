#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_compute(const double *v, int n, struct stats *s)
{
	double *w;
	int m = 0, rank;

	s->n = 0;
	s->min = s->median = s->p95 = s->max = NAN;
	if (n <= 0)
		return;
	/* sort a copy: the caller's array is in cycle order and stays so */
	w = malloc((size_t)n * sizeof(*w));
	if (!w)
		return;
	for (int i = 0; i < n; i++)
		if (!isnan(v[i]))
			w[m++] = v[i];
	if (m) {
		qsort(w, m, sizeof(*w), cmp_double);
		s->n = m;
		s->min = w[0];
		s->max = w[m - 1];
		s->median = m % 2 ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2;
		/*
		 * Nearest rank: the smallest value with at least 95% of the
		 * values at or below it, rank ceil(0.95 m), 1-based.  Integer
		 * arithmetic, as 0.95 * 20 is not exactly 19 in binary.
		 */
		rank = (95 * m + 99) / 100;
		s->p95 = w[rank - 1];
	}
	free(w);
}

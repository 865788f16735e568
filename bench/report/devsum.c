/* Per configuration: which devices' callbacks took the time, per phase. */
#include "devsum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#define PER_CYCLE 64	/* devices ranked per cycle and phase */

struct cand {
	char dev[48];
	double *v;	/* per cycle */
	struct stats s;
};

static int by_median(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->s.median != y->s.median)
		return x->s.median < y->s.median ? 1 : -1;
	if (x->s.max != y->s.max)
		return x->s.max < y->s.max ? 1 : -1;
	return strcmp(x->dev, y->dev);
}

static int one_phase(const struct cycle_record *const *recs, int n, enum devcb_phase p,
		     struct devsum_phase *out)
{
	struct devcb_time t[PER_CYCLE];
	struct cand *c = NULL;
	int nc = 0, cap = 0, rc = 0;

	for (int i = 0; i < n && !rc; i++) {
		int k = devcb_slowest(&recs[i]->c, p, t, PER_CYCLE);

		for (int j = 0; j < k && !rc; j++) {
			int m;

			for (m = 0; m < nc && strcmp(c[m].dev, t[j].dev); m++)
				;
			if (m == nc) {
				struct cand *g = nc == cap ? realloc(c, (cap = cap * 2 + 8) * sizeof(*c)) : c;

				if (!g || !(g[m].v = calloc(n, sizeof(double)))) {
					c = g ? g : c;
					rc = -1;
					break;
				}
				c = g;
				snprintf(c[m].dev, sizeof(c[m].dev), "%s", t[j].dev);
				nc++;
			}
			c[m].v[i] = t[j].s;
		}
	}
	for (int m = 0; m < nc && !rc; m++)
		stats_compute(c[m].v, n, &c[m].s);
	if (!rc && nc)
		qsort(c, nc, sizeof(*c), by_median);
	out->n = 0;
	for (int m = 0; m < nc && !rc && out->n < DEVCB_TOP; m++) {
		snprintf(out->top[out->n].dev, sizeof(out->top[0].dev), "%s", c[m].dev);
		out->top[out->n++].s = c[m].s;
	}
	for (int m = 0; m < nc; m++)
		free(c[m].v);
	free(c);
	return rc;
}

int devsum_compute(const struct cycle_record *const *recs, int n, struct devsum *out)
{
	memset(out, 0, sizeof(*out));
	for (int p = 0; p < DEVCB__PHASES; p++)
		if (one_phase(recs, n, p, &out->phase[p]))
			return -1;
	return 0;
}

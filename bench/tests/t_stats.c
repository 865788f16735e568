/*
 * t_stats: the order statistics behind every summary the lab prints.
 *
 * Guards: the median of odd and even counts (mean of the middle two),
 * NaN ("not measured") being skipped rather than counted as a fast cycle,
 * negative values (a host that read late) kept as the measurements they
 * are, the empty case giving NaN everywhere, the nearest-rank
 * p95 (19 of 1..20, 95 of 1..100, never an interpolated value), a single
 * value, and the caller's array coming back in its original order.
 */
#include <math.h>
#include <string.h>

#include "stats.h"
#include "tap.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || fabs(a - b) < 1e-12;
}

static void check(const char *what, const double *v, int n, int want_n,
		  double min, double median, double p95, double max)
{
	struct stats s;

	stats_compute(v, n, &s);
	tap_ok(s.n == want_n && same(s.min, min) && same(s.median, median) &&
	       same(s.p95, p95) && same(s.max, max),
	       "%s: n %d min %g median %g p95 %g max %g", what, s.n, s.min,
	       s.median, s.p95, s.max);
}

int main(void)
{
	static const double odd[] = { 5, 1, 3 };
	static const double even[] = { 4, 1, 3, 2 };
	static const double neg[] = { -1, 2, -0.5, 8, 4, -1 };
	static const double all_nan[] = { NAN, NAN };
	static const double one[] = { 0.25 };
	static const double zero[] = { 0, 0, 7 };
	double with_nan[] = { 3, NAN, 1 };
	double twenty[20], hundred[100], mixed[] = { 9, NAN, 2, 7, 1 };
	double copy[N(mixed)];
	struct stats s;

	check("odd n", odd, N(odd), 3, 1, 3, 5, 5);
	check("even n: median is the mean of the middle two", even, N(even),
	      4, 1, 2.5, 4, 4);
	check("negatives are measurements", neg, N(neg), 6, -1, 0.75, 8, 8);
	check("only NaN: all NaN", all_nan, N(all_nan), 0, NAN, NAN, NAN, NAN);
	check("n = 0: all NaN", odd, 0, 0, NAN, NAN, NAN, NAN);
	check("single value", one, N(one), 1, 0.25, 0.25, 0.25, 0.25);
	check("zero is a measurement", zero, N(zero), 3, 0, 0, 7, 7);
	check("NaN is not measured", with_nan, N(with_nan), 2, 1, 2, 3, 3);

	for (int i = 0; i < N(twenty); i++)
		twenty[i] = N(twenty) - i;	/* reversed: sorting matters */
	check("p95 nearest rank of 1..20 is 19", twenty, N(twenty), 20, 1,
	      10.5, 19, 20);
	for (int i = 0; i < N(hundred); i++)
		hundred[i] = (i * 37) % 100 + 1;	/* 1..100 shuffled */
	check("p95 nearest rank of 1..100 is 95", hundred, N(hundred), 100, 1,
	      50.5, 95, 100);

	memcpy(copy, mixed, sizeof(copy));
	stats_compute(mixed, N(mixed), &s);
	tap_ok(!memcmp(copy, mixed, sizeof(copy)) && s.n == 4 && s.median == 4.5,
	       "input array not modified (median %g)", s.median);
	return tap_done();
}

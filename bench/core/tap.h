/*
 * Tiny kselftest-style TAP producer for the bench unit tests.
 * Header-only; the counters live in one function-static so that each test
 * binary (a single translation unit) has its own. Every line is flushed so
 * that forked fake peers never inherit and re-print buffered output.
 */
#ifndef SLAB_TAP_H
#define SLAB_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

struct tap_state {
	bool started;
	int n, pass, fail, skip;
};

static inline struct tap_state *tap_state(void)
{
	static struct tap_state st;

	if (!st.started) {
		st.started = true;
		printf("TAP version 13\n");
	}
	return &st;
}

static inline void tap_vline(const char *status, const char *fmt, va_list ap,
			     const char *skip)
{
	struct tap_state *st = tap_state();

	printf("%s %d - ", status, ++st->n);
	vprintf(fmt, ap);
	if (skip)
		printf(" # SKIP %s", skip);
	printf("\n");
	fflush(stdout);
}

/* Returns cond so callers can bail out of a dependent sequence. */
__attribute__((format(printf, 2, 3)))
static inline bool tap_ok(bool cond, const char *fmt, ...)
{
	struct tap_state *st = tap_state();
	va_list ap;

	va_start(ap, fmt);
	tap_vline(cond ? "ok" : "not ok", fmt, ap, NULL);
	va_end(ap);
	if (cond)
		st->pass++;
	else
		st->fail++;
	return cond;
}

__attribute__((format(printf, 2, 3)))
static inline void tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline("ok", fmt, ap, reason);
	va_end(ap);
	tap_state()->skip++;
}

__attribute__((format(printf, 1, 2)))
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	tap_state();
	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

/* Trailing plan, kselftest-like totals; exit status 0 only if none failed. */
static inline int tap_done(void)
{
	struct tap_state *st = tap_state();

	printf("1..%d\n", st->n);
	printf("# Totals: pass:%d fail:%d skip:%d\n", st->pass, st->fail,
	       st->skip);
	fflush(stdout);
	return st->fail ? 1 : 0;
}

#endif

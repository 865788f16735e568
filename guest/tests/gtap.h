/*
 * TAP for the in-guest test programs (knobtest, nomtimetest): numbered
 * results and diagnostics, flushed at once so that the host sees every
 * line before a test that may hang or crash the guest.
 */
#ifndef GTAP_H
#define GTAP_H

#include <stdarg.h>
#include <stdio.h>

/* gtap.c: results so far, and how many failed */
extern int tests, failed;

static inline __attribute__((format(printf, 2, 3)))
void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!cond)
		failed++;
}

static inline __attribute__((format(printf, 1, 2)))
void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* a check that cannot run here, and why */
static inline __attribute__((format(printf, 2, 3)))
void skip(const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("ok %d - %s # SKIP ", ++tests, what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#endif

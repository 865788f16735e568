/*
 * The one CSV writer: a header of unit-suffixed names, then rows whose
 * fields are counted against it.  Not measured is an empty field; strings
 * are quoted only when they hold a comma, quote, CR or LF (RFC 4180), and
 * bytes that are not UTF-8 come out as \xNN.
 */
#ifndef SLAB_CSV_H
#define SLAB_CSV_H

#include <stdbool.h>
#include <stdio.h>

struct csv {
	FILE *f;
	int n_cols, col;
	bool bad;		/* a row with the wrong number of fields */
};

void csv_begin(struct csv *c, FILE *f, const char *const *cols, int n);
void csv_str(struct csv *c, const char *s);
void csv_int(struct csv *c, long long v);
void csv_num(struct csv *c, double v);		/* NAN: empty */
void csv_kb(struct csv *c, long long v);	/* < 0: empty */
void csv_bool(struct csv *c, int v);		/* < 0: empty */
void csv_end_row(struct csv *c);
/* 0, or -1 if a row was malformed or the stream failed. */
int csv_finish(struct csv *c);

#endif

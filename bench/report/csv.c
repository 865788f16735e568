#include "csv.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "escape.h"

void csv_begin(struct csv *c, FILE *f, const char *const *cols, int n)
{
	c->f = f;
	c->n_cols = n;
	c->col = 0;
	c->bad = false;
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "", cols[i]);
	fputc('\n', f);
}

static void sep(struct csv *c)
{
	if (c->col++)
		fputc(',', c->f);
	if (c->col > c->n_cols)
		c->bad = true;
}

/* RFC 4180: quoted when it holds a comma, quote, CR or LF, quotes doubled;
 * invalid UTF-8 as \xNN, so the file stays text. */
void csv_str(struct csv *c, const char *s)
{
	bool quote;
	size_t n;

	sep(c);
	if (!s)
		return;
	quote = strpbrk(s, ",\"\r\n");
	if (quote)
		fputc('"', c->f);
	for (; *s; s += n) {
		n = utf8_char(s);
		if (!n) {
			fprintf(c->f, "\\x%02X", (unsigned char)*s);
			n = 1;
			continue;
		}
		if (*s == '"')
			fputc('"', c->f);
		fwrite(s, 1, n, c->f);
	}
	if (quote)
		fputc('"', c->f);
}

void csv_int(struct csv *c, long long v)
{
	sep(c);
	fprintf(c->f, "%lld", v);
}

void csv_num(struct csv *c, double v)
{
	sep(c);
	if (!isnan(v))
		fprintf(c->f, "%.9g", v);
}

void csv_kb(struct csv *c, long long v)
{
	sep(c);
	if (v >= 0)
		fprintf(c->f, "%lld", v);
}

void csv_bool(struct csv *c, int v)
{
	sep(c);
	if (v >= 0)
		fputs(v ? "true" : "false", c->f);
}

void csv_end_row(struct csv *c)
{
	if (c->col != c->n_cols)
		c->bad = true;
	c->col = 0;
	fputc('\n', c->f);
}

int csv_finish(struct csv *c)
{
	if (c->bad) {
		errno = EINVAL;
		return -1;
	}
	return ferror(c->f) ? -1 : 0;
}

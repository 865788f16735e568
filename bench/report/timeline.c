/*
 * One cycle's timelines for the HTML report, drawn to scale as inline SVG:
 * the suspend from the request to the machine's suspend, and the resume
 * from the wake to RESUMED.  Every span is a <rect class="span"> with its
 * seconds in data-s and its width exactly data-s times the timeline's
 * px-per-second (data-pps on the <svg>), so a reader (and the browser
 * test) can check the scale; a <title> gives its name and duration.
 */
#define _GNU_SOURCE
#include "timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "devcb.h"
#include "escape.h"
#include "summary.h"

#define WIDTH 900.0	/* px of the time axis */
#define LEFT 110.0	/* px for the row labels */
#define ROW 16.0
#define LANES 6		/* rows for overlapping device callbacks */

struct tl {
	FILE *f;
	double t0, pps;	/* the timeline's origin (s) and scale (px/s) */
	int rows;
	int hidden;	/* callbacks narrower than a pixel, not drawn */
};

void html_text(FILE *f, const char *s)
{
	size_t n;

	for (; s && *s; s += n) {
		unsigned char c = (unsigned char)*s;

		n = utf8_char(s);
		if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '&')
			fputs("&amp;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&#39;", f);
		else if (!n || (c < ' ' && !strchr("\t\n\r", c)) || c == 0x7f)
			fprintf(f, "\\x%02X", c);	/* not a character HTML may hold */
		else
			fwrite(s, 1, n, f);
		n = n ? n : 1;
	}
}

static void span(struct tl *t, int row, const char *cls, const char *name, double b, double e)
{
	double x = LEFT + (b - t->t0) * t->pps, w = (e - b) * t->pps;

	fprintf(t->f, "<rect class=\"span %s\" data-name=\"", cls);
	html_text(t->f, name);
	fprintf(t->f, "\" data-s=\"%.9f\" x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%.1f\">"
		"<title>", e - b, x, row * ROW + 2, w, ROW - 3);
	html_text(t->f, name);
	fprintf(t->f, ": %.3f ms</title></rect>\n", (e - b) * 1000);
	/* a plain label where it fits */
	if (w > 7.0 * strlen(name)) {
		fprintf(t->f, "<text x=\"%.3f\" y=\"%.1f\">", x + 3, row * ROW + ROW - 4);
		html_text(t->f, name);
		fputs("</text>\n", t->f);
	}
	if (row + 1 > t->rows)
		t->rows = row + 1;
}

static void row_label(struct tl *t, int row, const char *label)
{
	fprintf(t->f, "<text class=\"row\" x=\"2\" y=\"%.1f\">%s</text>\n", row * ROW + ROW - 4,
		label);
}

/* How many of the cycle's phases hold phase i: its row. */
static int depth(const struct cycle *c, int i)
{
	const struct phase *p = &c->phases[i];
	int d = 0;

	for (int j = 0; j < c->n_phases; j++) {
		const struct phase *q = &c->phases[j];

		d += j != i && q->end >= 0 && q->begin <= p->begin && q->end >= p->end &&
		     (q->begin < p->begin || q->end > p->end || j < i);
	}
	return d;
}

/* The kernel's phases in [from, to), nested rows from row 'at'. */
static int phases(struct tl *t, const struct cycle *c, double from, double to, int at)
{
	int deepest = -1;

	for (int i = 0; i < c->n_phases; i++) {
		const struct phase *p = &c->phases[i];
		int d;

		if (p->end < 0 || p->begin < from || p->begin >= to ||
		    !strcmp(p->name, "machine_suspend"))
			continue;
		d = depth(c, i);
		span(t, at + d, !strcmp(p->name, "sync_filesystems") ? "phase sync" : "phase",
		     p->name, p->begin, p->end);
		deepest = d > deepest ? d : deepest;
	}
	return at + deepest + 1;
}

/* Device callbacks in [from, to), in lanes so that overlaps stay apart. */
static void callbacks(struct tl *t, const struct cycle *c, double from, double to, int at)
{
	double lane_end[LANES];
	bool any = false;

	for (int k = 0; k < LANES; k++)
		lane_end[k] = -INFINITY;
	for (int i = 0; i < c->cbs.n; i++) {
		const struct dev_cb *cb = &c->cbs.cb[i];
		int k;

		if (cb->end < 0 || cb->begin < from || cb->begin >= to)
			continue;
		if ((cb->end - cb->begin) * t->pps < 1) {
			t->hidden++;
			continue;
		}
		for (k = 0; k < LANES - 1 && lane_end[k] > cb->begin; k++)
			;
		lane_end[k] = cb->end;
		span(t, at + k, "device", cb->dev, cb->begin, cb->end);
		any = true;
	}
	if (any)
		row_label(t, at, "devices");
}

static void axis(struct tl *t, double len)
{
	double y = t->rows * ROW + 4;

	fprintf(t->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LEFT, y,
		LEFT + WIDTH, y);
	fprintf(t->f, "<text x=\"%.1f\" y=\"%.1f\">0</text><text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"end\">%.1f ms</text>\n", LEFT, y + 13, LEFT + WIDTH, y + 13,
		len * 1000);
}

/* The body is drawn first, into a buffer: the height needs its rows. */
static void draw(FILE *f, const char *which, double t0, double len,
		 void (*body)(struct tl *, const void *), const void *ctx)
{
	struct tl t = { .t0 = t0, .pps = WIDTH / len };
	char *buf = NULL;
	size_t n = 0;

	t.f = open_memstream(&buf, &n);
	if (!t.f)
		return;
	body(&t, ctx);
	axis(&t, len);
	fclose(t.f);
	fprintf(f, "<svg class=\"timeline\" data-which=\"%s\" data-pps=\"%.9g\" "
		"xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\">\n%s</svg>\n",
		which, t.pps, LEFT + WIDTH + 10, t.rows * ROW + 24, buf);
	free(buf);
	if (t.hidden)
		fprintf(f, "<p class=\"note\">%s: %d device callbacks shorter than a pixel not drawn</p>\n",
			which, t.hidden);
}

static void suspend_body(struct tl *t, const void *ctx)
{
	const struct cycle *c = ctx;
	double down = cycle_phase_begin(c, "machine_suspend");
	int next;

	row_label(t, 0, "kernel");
	next = phases(t, c, c->req_guest.mono, down, 0);
	callbacks(t, c, c->req_guest.mono, down, next);
}

static void resume_body(struct tl *t, const void *ctx)
{
	const struct cycle_record *rec = ctx;
	const struct cycle *c = &rec->c;
	double up = cycle_phase_end(c, "machine_suspend");
	double at = t->t0;
	int next;

	/* the host-side spans, then the kernel's phases from the kernel span on */
	row_label(t, 0, "resume spans");
	for (int k = 0; k < LAB_SPANS - 1; k++) {
		double s = lab_span(rec, k);

		if (!isnan(s) && s > 0)
			span(t, 0, "resume-span", lab_span_names[k], at, at + s);
		at += isnan(s) ? 0 : s;
	}
	/* the guest's clock from the kernel span's start: x(up) = x(wake span's end) */
	t->t0 += up - (isnan(rec->span_wake_s) ? 0 : rec->span_wake_s);
	row_label(t, 1, "kernel");
	next = phases(t, c, up, INFINITY, 1);
	callbacks(t, c, up, INFINITY, next);
}

/* Wake to RESUMED, or to the kernel's last phase if that ends later. */
static double resume_len(const struct cycle_record *rec, double up)
{
	const struct cycle *c = &rec->c;
	double len = rec->resume_latency_s, wake = isnan(rec->span_wake_s) ? 0 : rec->span_wake_s;

	for (int i = 0; i < c->n_phases; i++)
		if (c->phases[i].begin >= up && c->phases[i].end - up + wake > len)
			len = c->phases[i].end - up + wake;
	return len;
}

void timeline_cycle(FILE *f, const struct cycle_record *rec)
{
	const struct cycle *c = &rec->c;
	double down = cycle_phase_begin(c, "machine_suspend");
	double up = cycle_phase_end(c, "machine_suspend");

	if (down >= 0 && !isnan(c->req_guest.mono) && down > c->req_guest.mono) {
		fprintf(f, "<p class=\"cap\">suspend, the request to the machine's suspend "
			"(guest clock): %.1f ms</p>\n", (down - c->req_guest.mono) * 1000);
		draw(f, "suspend", c->req_guest.mono, down - c->req_guest.mono, suspend_body, c);
	} else
		fputs("<p class=\"note\">suspend: no trace of the machine's suspend</p>\n", f);
	if (up >= 0 && !isnan(rec->resume_latency_s) && rec->resume_latency_s > 0) {
		fprintf(f, "<p class=\"cap\">resume, the wake to RESUMED (host clock; the kernel's "
			"phases from the kernel span on): %.1f ms</p>\n", rec->resume_latency_s * 1000);
		draw(f, "resume", 0, resume_len(rec, up), resume_body, rec);
	} else
		fputs("<p class=\"note\">resume: not measured</p>\n", f);
}

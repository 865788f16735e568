/*
 * report.html: one self-contained page per run (no network, no script):
 * the text report as the terminal has it (provenance and tables, from
 * report_table), what sync costs and what sync off saves, the slowest
 * devices, the chart, and every cycle's timelines (timeline.c).  Everything
 * comes from the one summary (summary.h) and the cycles' records.
 */
#define _GNU_SOURCE
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "timeline.h"

#define MIB 1048576.0

struct html_ctx {
	const struct lab_view *v;
	const char *svg;	/* the chart to inline, or NULL */
};

static const char style[] =
	"body{font:14px sans-serif;margin:1.5em;max-width:1100px}"
	"pre{font-size:12px;background:#f6f6f6;padding:.5em;overflow-x:auto}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
	"text-align:right}th{background:#eee}td.l{text-align:left}"
	"svg.timeline{display:block;margin:2px 0}svg.timeline text{font-size:10px}"
	"svg.timeline text.row{fill:#555}svg.timeline line{stroke:#888}"
	".span{stroke:#fff;stroke-width:.5}.phase{fill:#7aa6da}.sync{fill:#d9534f}"
	".resume-span{fill:#9bc37a}.device{fill:#e6a23c}.note{color:#777;font-size:12px}"
	".cycle{border-top:1px solid #ddd;padding-top:.3em}.cap{margin:.4em 0 0;font-size:12px}";

static void ms(FILE *f, const struct stats *s)
{
	if (s->n)
		fprintf(f, "<td>%.1f</td>", s->median * 1000);
	else
		fputs("<td>-</td>", f);
}

static const struct lab_summary *twin(const struct lab_view *v, const struct lab_summary *cf)
{
	for (int k = 0; k < v->n_sum; k++) {
		const struct lab_summary *o = &v->sum[k];

		if (o->sync != cf->sync && !strcmp(o->state, cf->state) &&
		    o->cf.workload == cf->cf.workload && o->cf.wb == cf->cf.wb &&
		    o->dirty == cf->dirty)
			return o;
	}
	return NULL;
}

/* Per workload: the suspend with and without the sync, and the difference. */
static void sync_cost(FILE *f, const struct lab_view *v)
{
	fputs("<h2 id=\"sync-cost\">What the sync costs, and what sync off saves</h2>\n"
	      "<p>Medians over the OK cycles, in ms.</p>\n<table><tr><th>state</th>"
	      "<th>workload</th><th>writeback</th><th>size MiB</th><th>suspend, sync on</th>"
	      "<th>of which the sync</th><th>suspend, sync off</th><th>sync off saves</th>"
	      "<th>resume, sync on</th><th>resume, sync off</th></tr>\n", f);
	for (int k = 0; k < v->n_sum; k++) {
		const struct lab_summary *on = &v->sum[k], *off = twin(v, on);

		if (!on->sync)
			continue;
		fprintf(f, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td class=\"l\">%s</td>"
			"<td>%.6g</td>", on->state, on->cf.workload->name,
			writeback_name(on->cf.wb), on->dirty / MIB);
		ms(f, &on->suspend);
		ms(f, &on->sync_phase);
		if (off)
			ms(f, &off->suspend);
		else
			fputs("<td>-</td>", f);
		if (off && on->suspend.n && off->suspend.n)
			fprintf(f, "<td>%.1f</td>", (on->suspend.median - off->suspend.median) * 1000);
		else
			fputs("<td>-</td>", f);
		ms(f, &on->resume);
		if (off)
			ms(f, &off->resume);
		else
			fputs("<td>-</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void devices(FILE *f, const struct lab_view *v)
{
	fputs("<h2 id=\"devices\">The slowest devices</h2>\n<p>Per configuration and phase, "
	      "each device's callback time per OK cycle: median and max in ms.</p>\n"
	      "<table><tr><th>state</th><th>sync</th><th>workload</th><th>writeback</th>"
	      "<th>size MiB</th><th>phase</th><th>device</th><th>median</th><th>max</th></tr>\n", f);
	for (int k = 0; k < v->n_sum; k++) {
		const struct lab_summary *cf = &v->sum[k];

		for (int p = 0; p < DEVCB__PHASES; p++)
			for (int i = 0; i < cf->devs.phase[p].n; i++) {
				const struct devsum_dev *d = &cf->devs.phase[p].top[i];

				fprintf(f, "<tr><td class=\"l\">%s</td><td class=\"l\">%s</td>"
					"<td class=\"l\">%s</td><td class=\"l\">%s</td><td>%.6g</td>"
					"<td class=\"l\">%s</td><td class=\"l\">", cf->state,
					cf->sync ? "on" : "off", cf->cf.workload->name,
					writeback_name(cf->cf.wb), cf->dirty / MIB,
					devcb_phase_name(p));
				html_text(f, d->dev);
				fprintf(f, "</td><td>%.3f</td><td>%.3f</td></tr>\n",
					d->s.median * 1000, d->s.max * 1000);
			}
	}
	fputs("</table>\n", f);
}

/* The chart's own SVG, inlined: the page needs no other file. */
static void chart(FILE *f, const char *path)
{
	char *buf = NULL, *p;
	size_t n = 0;
	FILE *in = path ? fopen(path, "re") : NULL;
	FILE *m = in ? open_memstream(&buf, &n) : NULL;
	char chunk[8192];
	size_t k;

	fputs("<h2 id=\"chart\">Latency</h2>\n", f);
	while (m && (k = fread(chunk, 1, sizeof(chunk), in)) > 0)
		fwrite(chunk, 1, k, m);
	if (m)
		fclose(m);
	if (in)
		fclose(in);
	p = buf ? strstr(buf, "<svg") : NULL;
	if (p)
		fputs(p, f);
	else
		fputs("<p class=\"note\">no chart (gnuplot did not render one)</p>\n", f);
	free(buf);
}

static void cycles(FILE *f, const struct lab_view *v)
{
	fputs("<h2 id=\"cycles\">Every cycle</h2>\n<p>Drawn to scale, each timeline on its own "
	      "scale: the suspend from the request to the machine's suspend (the sync in red), "
	      "the resume from the wake to RESUMED: the resume spans (wake, kernel, agent, "
	      "channel), the kernel's phases, and the device callbacks. Hover a span for its "
	      "name and duration.</p>\n", f);
	for (int i = 0; i < v->r->n; i++) {
		const struct cycle_record *rec = &v->r->rec[i];

		fprintf(f, "<div class=\"cycle\" data-cycle=\"%d\"><h3>%s sync %s %s/%s %.6g MiB, "
			"cycle %d: %s</h3>\n", i, rec->state ? rec->state : "?",
			rec->sync ? "on" : "off", rec->workload ? rec->workload->name : "?",
			writeback_name(rec->wb), rec->dirty_target_bytes / MIB, rec->index + 1,
			verdict_name(rec->c.verdict));
		if (rec->c.verdict != VERDICT_OK) {
			fputs("<p class=\"note\">", f);
			html_text(f, rec->c.why);
			fputs("</p>\n", f);
		}
		/* the attempts before, which the host took: not measurements */
		for (int k = 0; k < rec->n_stalls; k++) {
			fprintf(f, "<p class=\"note stalled\">attempt %d: %s, measured again: ",
				rec->stalls[k].attempt, verdict_name(VERDICT_HOST_STALL));
			html_text(f, rec->stalls[k].why);
			fputs("</p>\n", f);
		}
		timeline_cycle(f, rec);
		fputs("</div>\n", f);
	}
}

static int write_html(FILE *f, const void *ctx)
{
	const struct html_ctx *c = ctx;
	const struct lab_view *v = c->v;
	char *text = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);

	if (!m)
		return -1;
	report_table(m, v);
	fclose(m);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>suspend-lab: kernel ", f);
	html_text(f, v->r->kernel_release);
	fprintf(f, ", profile %s</title><style>%s</style></head><body>\n<h1>suspend-lab, "
		"kernel ", v->o->hx.profile ? v->o->hx.profile->name : "?", style);
	html_text(f, v->r->kernel_release);
	fputs("</h1>\n", f);
	sync_cost(f, v);
	chart(f, c->svg);
	devices(f, v);
	fputs("<h2 id=\"report\">The report</h2>\n<pre id=\"text\">", f);
	html_text(f, text);
	fputs("</pre>\n", f);
	free(text);
	cycles(f, v);
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}

int report_html(const char *path, const struct lab_view *v, const char *svg)
{
	struct html_ctx c = { v, svg };

	return outfile_write(path, write_html, &c);
}

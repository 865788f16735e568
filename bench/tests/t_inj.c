/*
 * t_inj: strings from outside never run as code (issue hostile-v3, item 3),
 * one writer at a time.
 *
 * Guards: gp_path() and gp_text() hand gnuplot a name or a title carrying
 * backquotes, $(), quotes, a newline, a tab, <script>, a comma, bytes that
 * are not UTF-8 and 4096 bytes as data: gnuplot writes the file of exactly
 * that name, runs nothing (the canaries the strings try to touch do not
 * exist) and the SVG stays valid UTF-8; html_text() leaves no markup and
 * no invalid byte; csv_str() quotes by RFC 4180; text_line() shows every
 * control byte (a terminal escape) as \xNN; json_text() never drops a
 * string that is not UTF-8 (json_string() would return NULL); host_run_out()
 * passes such a string as one argument and brings back its output whole;
 * host_path_arg() keeps a name starting with '-' from being an option.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csv.h"
#include "escape.h"
#include "hostrun.h"
#include "slurp.h"
#include "tap.h"
#include "timeline.h"

static char dir[] = "/tmp/t_inj.XXXXXX", canary[2][64], hostile[512], big[4200];

static bool canaries_absent(void)
{
	return access(canary[0], F_OK) && access(canary[1], F_OK);
}

/* What a hostile name carries: each shell and gnuplot form, tries to touch
 * a canary; no '/' (it is also a file name). */
static void make_strings(void)
{
	snprintf(canary[0], sizeof(canary[0]), "%s/canary1", dir);
	snprintf(canary[1], sizeof(canary[1]), "%s/canary2", dir);
	snprintf(hostile, sizeof(hostile),
		 "k`touch canary1`$(touch canary2)'q\"x\ty\nz<script>alert(1),c\xff\xfe"
		 "\x01@x \\n");
	/* 4096 bytes: the name again and again, cut on a byte boundary */
	for (size_t o = 0; o < 4096; o += strlen(hostile))
		snprintf(big + o, sizeof(big) - o, "%s", hostile);
	big[4096] = '\0';
}

/* s for a TAP message: one line. */
static const char *shown(const char *s)
{
	static char buf[4][160];
	static int k;
	char *b = buf[k++ % 4];
	size_t o = 0;

	for (; s && *s && o + 5 < sizeof(buf[0]); s++)
		o += snprintf(b + o, sizeof(buf[0]) - o, (unsigned char)*s < ' ' ? "\\x%02X" : "%c",
			      (unsigned char)*s);
	b[o] = '\0';
	return b;
}

/* What a writer put on a FILE, as a string (free it). */
static char *capture(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	fn(m, s);
	fclose(m);
	return buf;
}

static void gnuplot_case(void)
{
	char out[700], gp[700], dat[700], *svg;
	size_t len = 0;
	FILE *f;
	int rc;
	bool valid;

	snprintf(out, sizeof(out), "%s/%s.svg", dir, hostile);
	snprintf(gp, sizeof(gp), "%s/t.gp", dir);
	snprintf(dat, sizeof(dat), "%s/d%s.dat", dir, hostile);
	f = fopen(dat, "we");
	fputs("0 0\n1 1\n", f);
	fclose(f);
	f = fopen(gp, "we");
	fputs("set terminal svg size 600,400 noenhanced\nset output ", f);
	gp_path(f, out);
	fputs("\nD = ", f);
	gp_path(f, dat);
	fputs("\nset title ", f);
	gp_text(f, big);
	fputs("\nplot D using 1:2 with lines title ", f);
	gp_text(f, hostile);
	fputc('\n', f);
	fclose(f);
	if (access("/usr/bin/gnuplot", X_OK) && system("command -v gnuplot >/dev/null")) {
		tap_skip("gnuplot is not installed", "gnuplot and hostile names");
		return;
	}
	/* in dir, where the canaries' relative names point */
	rc = system("cd \"$T_INJ_DIR\" && gnuplot t.gp 2>&1");
	svg = test_slurp(out, &len);
	valid = svg && strlen(svg) == len && utf8_valid(svg);
	tap_ok(rc == 0 && svg && len > 0 && canaries_absent(),
	       "gnuplot, a hostile output name, data name and title: status %d, %zu bytes at"
	       " the exact name, canaries %s", rc, len, canaries_absent() ? "absent" : "CREATED");
	tap_ok(valid && strstr(svg, "k`touch canary1`$(touch canary2)'q") &&
	       strstr(svg, "\\xFF\\xFE\\x01@x \\n"),
	       "the SVG is valid UTF-8 (%s) and shows the title as text, bad bytes as \\xNN: %s",
	       valid ? "yes" : "no", svg && strstr(svg, "\\xFF\\xFE") ? "found" : "missing");
	free(svg);
}

static void html_case(void)
{
	char *h = capture(html_text, big);

	tap_ok(h && !strpbrk(h, "<>\"'") && strstr(h, "&lt;script&gt;alert(1),c") &&
	       strstr(h, "&#39;q&quot;") && strstr(h, "\\xFF\\xFE\\x01") && utf8_valid(h),
	       "html_text: no <>\"' left, \\xNN for bad bytes, valid UTF-8: %.80s", shown(h));
	free(h);
}

static void csv_one(FILE *f, const char *s)
{
	static const char *const cols[] = { "a", "b" };
	struct csv c;

	csv_begin(&c, f, cols, 2);
	csv_str(&c, s);
	csv_str(&c, "plain");
	csv_end_row(&c);
	csv_finish(&c);
}

static void csv_case(void)
{
	char *c = capture(csv_one, "a,\"b\"\r\nc\xff");
	char *d = capture(csv_one, big);

	tap_ok(c && !strcmp(c, "a,b\n\"a,\"\"b\"\"\r\nc\\xFF\",plain\n"),
	       "csv_str: comma, quote, CRLF quoted and doubled, 0xff as \\xFF: %s", shown(c));
	tap_ok(d && utf8_valid(d) && strstr(d, "\"k`touch canary1`$(touch canary2)'q\"\"x") &&
	       strlen(d) > 4096, "csv_str, 4096 hostile bytes: %zu bytes, valid UTF-8: %s",
	       d ? strlen(d) : 0, d && utf8_valid(d) ? "yes" : "no");
	free(c);
	free(d);
}

static void json_case(void)
{
	json_t *j = json_text(big), *a = json_array();
	char *text;

	json_array_append_new(a, json_text(hostile));
	text = json_dumps(a, 0);
	tap_ok(j && json_string_length(j) > 4096 && strstr(json_string_value(j), "\\xFF\\xFE") &&
	       json_string(big) == NULL,
	       "json_text of 4096 bytes not UTF-8: %zu characters kept (json_string(): NULL)",
	       j ? json_string_length(j) : 0);
	tap_ok(text && strstr(text, "<script>") && strstr(text, "\\\\xFF") && json_array_size(a) == 1,
	       "json_text in an array: the element is there: %.90s", text ? text : "(null)");
	free(text);
	json_decref(j);
	json_decref(a);
}

static void hostrun_case(void)
{
	char *argv[] = { "printf", "%s", big, NULL }, *out = NULL, *arg;
	int rc = host_run_out(argv, &out, 8192);

	tap_ok(rc == 0 && out && !strcmp(out, big) && canaries_absent(),
	       "host_run_out: 4096 hostile bytes as one argument come back whole (%zu bytes),"
	       " status %d, canaries %s", out ? strlen(out) : 0, rc,
	       canaries_absent() ? "absent" : "CREATED");
	free(out);
	rc = host_run_out(argv, &out, 10);
	tap_ok(rc == 0 && out && strlen(out) == 10, "host_run_out, cap 10: %zu bytes, status %d",
	       out ? strlen(out) : 0, rc);
	free(out);
	arg = host_path_arg("-rf/cut-1.img");
	tap_ok(arg && !strcmp(arg, "./-rf/cut-1.img"), "host_path_arg(\"-rf/cut-1.img\"): %s", arg);
	free(arg);
}

static void line_case(void)
{
	char *l = capture(text_line, "a\x1b[2J\n\tb\xff\xc3\xa9");

	tap_ok(l && !strcmp(l, "a\\x1B[2J\\x0A\\x09b\\xFF\xc3\xa9"),
	       "text_line: ESC, newline, tab and 0xff as \\xNN, UTF-8 kept: %s", shown(l));
	free(l);
}

static void utf8_case(void)
{
	static const struct { const char *s; bool ok; } t[] = {
		{ "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", true },
		{ "\xc0\xaf", false },		/* overlong '/' */
		{ "\xed\xa0\x80", false },	/* a surrogate */
		{ "\xf4\x90\x80\x80", false },	/* past U+10FFFF */
		{ "\xe2\x82", false },		/* cut short */
	};
	int bad = 0;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		bad += utf8_valid(t[i].s) != t[i].ok;
	tap_ok(!bad, "utf8_valid: %d of 5 cases wrong", bad);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	setenv("T_INJ_DIR", dir, 1);
	make_strings();
	utf8_case();
	gnuplot_case();
	html_case();
	csv_case();
	json_case();
	hostrun_case();
	line_case();
	/* files of ours only: the names this test made */
	for (int i = 0; i < 2; i++)
		unlink(canary[i]);
	{
		char p[700];

		snprintf(p, sizeof(p), "%s/%s.svg", dir, hostile);
		unlink(p);
		snprintf(p, sizeof(p), "%s/d%s.dat", dir, hostile);
		unlink(p);
		snprintf(p, sizeof(p), "%s/t.gp", dir);
		unlink(p);
	}
	rmdir(dir);
	return tap_done();
}

/* A cycle's evidence from the guest: ftrace and kmsg lines, and its phases. */
#define _GNU_SOURCE
#include "cycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The kernel's report of the page cache not on storage, once per suspend
 * right before the system sleeps: "  sh-74  [001] d..1.  12.3:
 * suspend_page_cache: dirty_kb=65536 writeback_kb=0".
 */
static bool parse_skip_event(struct cycle *c, const char *line)
{
	const char *p = strstr(line, ": suspend_page_cache: ");
	long long d, w;

	if (!p || sscanf(p, ": suspend_page_cache: dirty_kb=%lld writeback_kb=%lld",
			 &d, &w) != 2)
		return false;
	c->skip_events++;
	c->skip_dirty_kb = d;
	c->skip_writeback_kb = w;
	return true;
}

/* "  sh-74  [001] .....  12.345678: suspend_resume: sync_filesystems[0] begin" */
bool cycle_parse_trace(struct cycle *c, const char *line)
{
	const char *tag = strstr(line, ": suspend_resume: ");
	const char *p, *act;
	char name[sizeof(c->phases[0].name)];
	size_t len;
	double t;
	bool begin;
	int i;

	if (!tag)
		return parse_skip_event(c, line) || devcb_parse(&c->cbs, line);
	for (p = tag; p > line && p[-1] != ' '; p--)
		;
	if (sscanf(p, "%lf", &t) != 1)
		return false;
	act = tag + strlen(": suspend_resume: ");
	len = strcspn(act, "[ ");
	if (!len || len >= sizeof(name))
		return false;
	memcpy(name, act, len);
	name[len] = '\0';
	if (strstr(act + len, "] begin"))
		begin = true;
	else if (strstr(act + len, "] end"))
		begin = false;
	else
		return false;

	if (begin) {
		if (c->n_phases >= CYCLE_MAX_PHASES)
			return false;
		i = c->n_phases++;
		snprintf(c->phases[i].name, sizeof(c->phases[i].name), "%s", name);
		c->phases[i].begin = t;
		c->phases[i].end = -1;
		return true;
	}
	for (i = c->n_phases - 1; i >= 0; i--)
		if (c->phases[i].end < 0 && !strcmp(c->phases[i].name, name)) {
			c->phases[i].end = t;
			return true;
		}
	return false;
}

/*
 * /dev/kmsg records: "6,208,3354359,-;Filesystems sync: 0.085 seconds" and,
 * with pm_debug_messages on, the page cache report: "7,210,1,-;PM: Page
 * cache not on storage: 65540 kB (dirty: 65536 kB, writeback: 4 kB)".
 */
bool cycle_parse_kmsg(struct cycle *c, const char *line)
{
	const char *text = strchr(line, ';');
	const char *sync = strstr(line, "Filesystems sync: ");
	const char *risk = strstr(line, "PM: Page cache not on storage: ");
	long long t, d, w;
	double s;

	/* the first error of the cycle: why a suspend was given up */
	if (!c->kernel_err[0] && text && line[0] >= '0' && line[0] <= '9' &&
	    atoi(line) % 8 <= 3) {
		int len = (int)strcspn(text + 1, "\n");

		while (len && text[len] == ':')	/* the list that follows is not ours */
			len--;
		snprintf(c->kernel_err, sizeof(c->kernel_err), "%.*s", len, text + 1);
	}
	if (sync && sscanf(sync, "Filesystems sync: %lf seconds", &s) == 1) {
		c->fs_sync_lines++;
		c->fs_sync_s = s;
		return true;
	}
	if (risk && sscanf(risk, "PM: Page cache not on storage: %lld kB (dirty: %lld kB, "
			   "writeback: %lld kB", &t, &d, &w) == 3 && t == d + w) {
		c->skip_lines++;
		c->skip_line_dirty_kb = d;
		c->skip_line_writeback_kb = w;
		return true;
	}
	return false;
}

double cycle_phase_s(const struct cycle *c, const char *name)
{
	double sum = -1;

	for (int i = 0; i < c->n_phases; i++)
		if (!strcmp(c->phases[i].name, name) && c->phases[i].end >= 0)
			sum = (sum < 0 ? 0 : sum) + c->phases[i].end - c->phases[i].begin;
	return sum;
}

double cycle_phase_begin(const struct cycle *c, const char *name)
{
	for (int i = 0; i < c->n_phases; i++)
		if (!strcmp(c->phases[i].name, name))
			return c->phases[i].begin;
	return -1;
}

double cycle_phase_end(const struct cycle *c, const char *name)
{
	for (int i = c->n_phases - 1; i >= 0; i--)
		if (!strcmp(c->phases[i].name, name))
			return c->phases[i].end;
	return -1;
}

int cycle_phase_count(const struct cycle *c, const char *name)
{
	int n = 0;

	for (int i = 0; i < c->n_phases; i++)
		n += !strcmp(c->phases[i].name, name);
	return n;
}

/* Device callbacks from the guest's trace, and where each cycle's went. */
#define _GNU_SOURCE
#include "devcb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cycle.h"

/* The suspend_resume action of each phase, and sleepgraph's name for it. */
static const char *const actions[DEVCB__PHASES] = {
	"dpm_prepare", "dpm_suspend", "dpm_suspend_late", "dpm_suspend_noirq",
	"dpm_resume_noirq", "dpm_resume_early", "dpm_resume", "dpm_complete",
};
static const char *const names[DEVCB__PHASES + 1] = {
	"suspend_prepare", "suspend", "suspend_late", "suspend_noirq",
	"resume_noirq", "resume_early", "resume", "resume_complete", "none",
};

const char *devcb_phase_name(enum devcb_phase p)
{
	return p >= 0 && p <= DEVCB__PHASES ? names[p] : "none";
}

/* The timestamp is the word before "device_pm_callback_" */
static bool stamp(const char *line, const char *tag, double *t)
{
	const char *p = tag;

	while (p > line && p[-1] == ' ')
		p--;
	if (p > line && p[-1] == ':')
		p--;
	while (p > line && p[-1] != ' ')
		p--;
	return sscanf(p, "%lf", t) == 1;
}

static bool device(const char *from, const char *until, char *dev, size_t n)
{
	size_t len = until ? (size_t)(until - from) : 0;

	if (!len || len >= n)
		return false;
	memcpy(dev, from, len);
	dev[len] = '\0';
	return true;
}

bool devcb_parse(struct devcbs *d, const char *line)
{
	static const char start[] = "device_pm_callback_start: ";
	static const char end[] = "device_pm_callback_end: ";
	const char *s = strstr(line, start), *e = strstr(line, end), *p;
	char dev[sizeof(d->cb[0].dev)];
	double t;
	int err;

	if (s && stamp(line, s, &t) && device(s + strlen(start), strstr(s, ", parent: "), dev,
					      sizeof(dev))) {
		struct dev_cb *cb;

		if (d->n == DEVCB_MAX) {
			d->dropped++;
			return true;
		}
		cb = &d->cb[d->n++];
		snprintf(cb->dev, sizeof(cb->dev), "%s", dev);
		cb->begin = t;
		cb->end = -1;
		return true;
	}
	if (!e || !stamp(line, e, &t))
		return false;
	p = strstr(e, ", err=");
	if (!device(e + strlen(end), p, dev, sizeof(dev)) || sscanf(p, ", err=%d", &err) != 1)
		return false;
	for (int i = d->n - 1; i >= 0; i--)
		if (d->cb[i].end < 0 && !strcmp(d->cb[i].dev, dev)) {
			d->cb[i].end = t;
			d->cb[i].err = err;
			return true;
		}
	return false;	/* its start was not seen (or was dropped) */
}

enum devcb_phase devcb_phase_of(const struct cycle *c, const struct dev_cb *cb)
{
	for (int i = 0; i < c->n_phases; i++) {
		const struct phase *ph = &c->phases[i];

		if (cb->begin < ph->begin || (ph->end >= 0 && cb->begin > ph->end))
			continue;
		for (int p = 0; p < DEVCB__PHASES; p++)
			if (!strcmp(ph->name, actions[p]))
				return p;
	}
	return DEVCB_NONE;
}

static int slower(const void *a, const void *b)
{
	const struct devcb_time *x = a, *y = b;

	return x->s < y->s ? 1 : x->s > y->s ? -1 : strcmp(x->dev, y->dev);
}

int devcb_slowest(const struct cycle *c, enum devcb_phase p, struct devcb_time *out, int max)
{
	struct devcb_time *t = malloc((c->cbs.n ? c->cbs.n : 1) * sizeof(*t));
	int n = 0, i, j;

	if (!t)
		return 0;
	for (i = 0; i < c->cbs.n; i++) {
		const struct dev_cb *cb = &c->cbs.cb[i];

		if (cb->end < 0 || devcb_phase_of(c, cb) != p)
			continue;
		for (j = 0; j < n && strcmp(t[j].dev, cb->dev); j++)
			;
		if (j == n)
			t[n++] = (struct devcb_time){ cb->dev, 0 };
		t[j].s += cb->end - cb->begin;
	}
	qsort(t, n, sizeof(*t), slower);
	n = n < max ? n : max;
	memcpy(out, t, n * sizeof(*t));
	free(t);
	return n;
}

int devcb_unended(const struct cycle *c, enum devcb_phase p)
{
	int n = 0;

	for (int i = 0; i < c->cbs.n; i++)
		n += c->cbs.cb[i].end < 0 && devcb_phase_of(c, &c->cbs.cb[i]) == p;
	return n;
}

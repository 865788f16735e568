/* Crash states of a write log: enumeration, names, and the entries each
 * applies.  Pure: the same log and model give the same states anywhere. */
#include "states.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TRIES 64

static const char *const kind_names[CS__KINDS] = { "flush", "prefix", "gap", "drop" };
static const char *const phase_names[CS__PHASES] = { "dataset", "sync", "suspended" };

const char *cs_kind_name(enum cs_kind k)
{
	return k < CS__KINDS ? kind_names[k] : "?";
}

const char *cs_phase_name(enum cs_phase p)
{
	return p < CS__PHASES ? phase_names[p] : "?";
}

enum cs_phase cs_phase_of(const struct cs_marks *m, int pos)
{
	if (m->suspended >= 0 && pos >= m->suspended)
		return CS_SUSPENDED;
	return pos >= m->request ? CS_SYNC : CS_DATASET;
}

void cs_name(const struct cs_state *s, char *buf, size_t n)
{
	switch (s->kind) {
	case CS_FLUSH: snprintf(buf, n, "F%d", s->pos); break;
	case CS_PREFIX: snprintf(buf, n, "P%d", s->pos); break;
	case CS_GAP: snprintf(buf, n, "G%d-%d.%ds%u", s->from, s->pos, s->k, s->seed); break;
	case CS_DROP: snprintf(buf, n, "D%d@%d", s->from, s->pos); break;
	default: snprintf(buf, n, "?");
	}
}

int cs_parse(const char *name, struct cs_state *s)
{
	int end = -1;

	memset(s, 0, sizeof(*s));
	switch (name[0]) {
	case 'F':
		s->kind = CS_FLUSH;
		sscanf(name, "F%d%n", &s->pos, &end);
		break;
	case 'P':
		s->kind = CS_PREFIX;
		sscanf(name, "P%d%n", &s->pos, &end);
		break;
	case 'G':
		s->kind = CS_GAP;
		sscanf(name, "G%d-%d.%ds%u%n", &s->from, &s->pos, &s->k, &s->seed, &end);
		break;
	case 'D':
		s->kind = CS_DROP;
		sscanf(name, "D%d@%d%n", &s->from, &s->pos, &end);
		break;
	default:
		return -1;
	}
	if (end < 0 || name[end] || s->pos < 0 || s->from < 0 || s->k < 0)
		return -1;
	/* only the canonical spelling: "F007" or "P+3" name nothing */
	{
		char again[64];

		cs_name(s, again, sizeof(again));
		return strcmp(again, name) ? -1 : 0;
	}
}

/* splitmix64: small, and the same on every host */
static uint64_t next(uint64_t *st)
{
	uint64_t z = (*st += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static bool barrier_at(const struct lw_log *l, int pos)
{
	return pos >= 1 && pos <= l->n && lw_is_barrier(&l->e[pos - 1]);
}

/* The last barrier at or before pos; 0 if none. */
static int prev_barrier(const struct lw_log *l, int pos)
{
	while (pos > 0 && !barrier_at(l, pos))
		pos--;
	return pos;
}

static bool cached(const struct lw_entry *e)
{
	return lw_is_write(e) || (e->flags & LW_DISCARD);
}

/* The writes of the gap (from, pos]: indices into w, count. */
static int gap_writes(const struct lw_log *l, int from, int pos, int *w)
{
	int m = 0;

	for (int i = from; i < pos; i++)
		if (cached(&l->e[i]))
			w[m++] = i;
	return m;
}

/* How many distinct subsets short of all m writes exist (capped). */
static long long proper_subsets(int m)
{
	return m >= 40 ? (1LL << 40) : (1LL << m) - 1;
}

/*
 * Subset k of m writes: k = 0 is none; each later one is a seeded draw,
 * never all of them and never an earlier one.  used holds k rows of m.
 * Fills order[] with the chosen positions (0..m-1) in a seeded order.
 */
static int subset(int m, int k, uint64_t st, unsigned char *used, int *order)
{
	int c = 0;

	memset(used, 0, (size_t)(k + 1) * m);
	for (int j = 1; j <= k; j++) {
		unsigned char *row = used + (size_t)j * m;
		bool fresh = false;

		for (int t = 0; t < MAX_TRIES && !fresh; t++) {
			int ones = 0;

			for (int b = 0; b < m; b++)
				ones += row[b] = next(&st) & 1;
			fresh = ones && ones < m;
			for (int p = 0; fresh && p < j; p++)
				fresh = memcmp(row, used + (size_t)p * m, m) != 0;
		}
		/* tiny gaps run out of fresh draws: count up to the next unused one */
		for (uint64_t v = 1; !fresh && v < (1ULL << (m < 40 ? m : 40)); v++) {
			for (int b = 0; b < m; b++)
				row[b] = b < 64 && ((v >> b) & 1);
			fresh = true;
			for (int p = 0; fresh && p < j; p++)
				fresh = memcmp(row, used + (size_t)p * m, m) != 0;
		}
	}
	for (int b = 0; b < m; b++)
		if (used[(size_t)k * m + b])
			order[c++] = b;
	for (int i = c - 1; i > 0; i--) {
		int j = next(&st) % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	return c;
}

static uint64_t gap_seed(unsigned seed, int from, int pos)
{
	uint64_t st = ((uint64_t)seed << 32) ^ ((uint64_t)from * 0x100000001b3ULL) ^ (uint64_t)pos;

	next(&st);
	return st;
}

__attribute__((format(printf, 3, 4)))
static int bad(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -1;
}

int cs_entries(const struct lw_log *l, const struct cs_state *s, int **idx,
	       char *why, size_t n)
{
	int *out = malloc((l->n + 1) * sizeof(int)), *w = malloc((l->n + 1) * sizeof(int));
	int c = 0, m;

	*idx = NULL;
	if (!out || !w) {
		free(out);
		free(w);
		return bad(why, n, "out of memory");
	}
	if (s->pos < 0 || s->pos > l->n) {
		free(out);
		free(w);
		return bad(why, n, "position %d is past the log's %d entries", s->pos, l->n);
	}
	switch (s->kind) {
	case CS_FLUSH:
		if (!barrier_at(l, s->pos))
			goto wrong;
		/* fall through */
	case CS_PREFIX:
		for (; c < s->pos; c++)
			out[c] = c;
		break;
	case CS_GAP: {
		unsigned char *used;
		int *order;

		if (s->from != prev_barrier(l, s->pos) ||
		    (s->pos < l->n && !barrier_at(l, s->pos + 1)))
			goto wrong;
		m = gap_writes(l, s->from, s->pos, w);
		if (!m || s->k >= proper_subsets(m) || s->k > 1 << 16)
			goto wrong;
		used = malloc((size_t)(s->k + 1) * m);
		order = malloc(m * sizeof(int));
		if (!used || !order) {
			free(used);
			free(order);
			goto wrong;
		}
		for (; c < s->from; c++)
			out[c] = c;
		m = subset(m, s->k, gap_seed(s->seed, s->from, s->pos), used, order);
		for (int j = 0; j < m; j++)
			out[c++] = w[order[j]];
		free(used);
		free(order);
		break;
	}
	case CS_DROP: {
		int a;

		if (s->from < 1 || s->from > s->pos || !(l->e[s->from - 1].flags & LW_FLUSH))
			goto wrong;
		a = prev_barrier(l, s->from - 1);
		for (int i = 0; i < s->pos; i++)
			if (i < a || i >= s->from - 1 || !cached(&l->e[i]))
				out[c++] = i;
		break;
	}
	default:
		goto wrong;
	}
	free(w);
	*idx = out;
	return c;
wrong:
	free(out);
	free(w);
	{
		char name[64];

		cs_name(s, name, sizeof(name));
		return bad(why, n, "state %s does not fit this log (%d entries)", name, l->n);
	}
}


struct list {
	struct cs_state *s;
	int n, cap;
};

static bool push(struct list *li, struct cs_state st)
{
	if (li->n == li->cap) {
		int cap = li->cap ? li->cap * 2 : 64;
		struct cs_state *ns = realloc(li->s, cap * sizeof(*ns));

		if (!ns)
			return false;
		li->s = ns;
		li->cap = cap;
	}
	li->s[li->n++] = st;
	return true;
}

static int by_position(const void *a, const void *b)
{
	const struct cs_state *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* No-cache states: every write prefix, or a seeded sample that keeps the
 * first and the last. */
static bool prefixes(const struct lw_log *l, const struct cs_marks *m,
		     const struct cs_model *o, struct list *li)
{
	int *c = malloc((l->n + 2) * sizeof(int)), nc = 0, want;
	uint64_t st = ((uint64_t)o->seed << 32) ^ 0x50ULL;
	bool ok = c != NULL;

	for (int p = m->start; ok && p <= l->n; p++)
		if (!barrier_at(l, p))
			c[nc++] = p;
	want = o->prefixes < 0 || o->prefixes > nc ? nc : o->prefixes;
	if (ok && want < nc && want >= 2) {
		/* keep both ends, draw the rest from the middle */
		int mid = nc - 2;

		next(&st);
		for (int i = 0; i < want - 2; i++) {
			int j = i + next(&st) % (mid - i), t = c[1 + i];

			c[1 + i] = c[1 + j];
			c[1 + j] = t;
		}
		c[want - 1] = c[nc - 1];
	}
	for (int i = 0; ok && i < want; i++)
		ok = push(li, (struct cs_state){ .kind = CS_PREFIX, .pos = c[i] });
	free(c);
	return ok;
}

int cs_enumerate(const struct lw_log *l, const struct cs_marks *m,
		 const struct cs_model *o, struct cs_state **out)
{
	struct list li = { 0 };
	int *w = malloc((l->n + 1) * sizeof(int));
	bool ok = w != NULL;

	*out = NULL;
	for (int p = m->start > 1 ? m->start : 1; ok && p <= l->n; p++)
		if (barrier_at(l, p))
			ok = push(&li, (struct cs_state){ .kind = CS_FLUSH, .pos = p });
	ok = ok && prefixes(l, m, o, &li);
	/* a gap ends where the next entry is a barrier, or at the log's end */
	for (int p = m->start > 1 ? m->start : 1; ok && p <= l->n; p++) {
		int from = prev_barrier(l, p), nw;
		long long total;

		if ((p < l->n && !barrier_at(l, p + 1)) || from == p)
			continue;
		nw = gap_writes(l, from, p, w);
		total = proper_subsets(nw);
		for (int k = 0; ok && nw && k < o->gap_states && k < total; k++)
			ok = push(&li, (struct cs_state){ .kind = CS_GAP, .pos = p,
				  .from = from, .k = k, .seed = o->seed });
	}
	for (int f = o->drop_lo + 1; ok && f <= o->drop_hi && f <= l->n; f++)
		if (f >= 1 && (l->e[f - 1].flags & LW_FLUSH) &&
		    gap_writes(l, prev_barrier(l, f - 1), f - 1, w))
			ok = push(&li, (struct cs_state){ .kind = CS_DROP, .pos = o->drop_hi,
				  .from = f });
	free(w);
	if (!ok) {
		free(li.s);
		return -1;
	}
	if (li.n)
		qsort(li.s, li.n, sizeof(*li.s), by_position);
	*out = li.s;
	return li.n;
}

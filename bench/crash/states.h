/*
 * Crash states: the disk as a power cut could have left it, built from a
 * write log (logfmt.h).  Each is named by its log position, so a verdict
 * can be reproduced from the log alone (crash-states replay --state NAME):
 *
 *   F<p>          the crash right after barrier entry p (a flush, or a FUA
 *                 write): what a drive with a volatile write cache
 *                 guarantees, entries 1..p
 *   P<p>          no write cache: entries 1..p, every write that completed
 *   G<a>-<p>.<k>s<seed>
 *                 the crash after entry p, before the next barrier, with
 *                 the cache holding the writes since barrier a: subset k of
 *                 them reached the media, in a seeded order (k = 0: none)
 *   D<f>@<p>      test-only: entries 1..p without the writes that flush f
 *                 ordered before it (a replay that drops a flush), which
 *                 the oracle must catch
 *
 * Positions count entries: p means the first p entries were issued.
 */
#ifndef SLAB_STATES_H
#define SLAB_STATES_H

#include <stdbool.h>
#include <stddef.h>

#include "logfmt.h"

enum cs_kind { CS_FLUSH, CS_PREFIX, CS_GAP, CS_DROP, CS__KINDS };
enum cs_phase { CS_DATASET, CS_SYNC, CS_SUSPENDED, CS__PHASES };

/* Where the cycle's events fell in the log, in entries. */
struct cs_marks {
	int start;		/* the dataset's first request */
	int request;		/* the suspend request */
	int suspended;		/* the guest suspended; -1 if it never did */
	int n;			/* entries in the log */
};

struct cs_state {
	enum cs_kind kind;
	int pos;
	int from;		/* G: barrier a; D: flush f */
	int k;			/* G: subset number */
	unsigned seed;		/* G */
};

/* Which states a log gives. */
struct cs_model {
	int gap_states;		/* G states per gap, the empty subset first; 0: none */
	int prefixes;		/* P states: a seeded sample of this many; -1: all */
	unsigned seed;
	int drop_lo, drop_hi;	/* D states for the flushes in (lo, hi], at hi */
};

const char *cs_kind_name(enum cs_kind k);	/* flush, prefix, gap, drop */
const char *cs_phase_name(enum cs_phase p);	/* dataset, sync, suspended */
/* The phase a crash after entry pos falls in: from the request on it is
 * the sync (and the freeze); at the suspend mark, suspended. */
enum cs_phase cs_phase_of(const struct cs_marks *m, int pos);

void cs_name(const struct cs_state *s, char *buf, size_t n);
/* 0, or -1 if name is not one cs_name() makes. */
int cs_parse(const char *name, struct cs_state *s);

/*
 * Every state of the log from m->start on, ordered by position (then
 * kind): count, or -1 when out of memory.  The caller frees *out.
 */
int cs_enumerate(const struct lw_log *l, const struct cs_marks *m,
		 const struct cs_model *o, struct cs_state **out);
/*
 * The entries (0-based) a state applies, in order: count, or -1 with why
 * when the state does not fit the log (a parsed name from another log).
 * The caller frees *idx.
 */
int cs_entries(const struct lw_log *l, const struct cs_state *s, int **idx,
	       char *why, size_t n);

/* State index i (0-based, over the whole run) belongs to shard k of n. */
static inline bool cs_in_shard(int i, int k, int n)
{
	return i % n == k - 1;
}

#endif

/*
 * Reading a shard file's cycles and states back.  Shards come back from
 * other machines: they are input, so every field a report uses is checked
 * for its type and range before it is believed.
 */
#ifndef SLAB_SHARDREAD_H
#define SLAB_SHARDREAD_H

#include <jansson.h>
#include <stddef.h>

#include "crash.h"

/* The "files" keys of a state, by file verdict (FV_NOT_JUDGED: none). */
extern const char *const cs_fv_keys[FV__COUNT];

/* One of "cycles": 0, or -1 with why naming the cycle, field and value. */
int cs_read_cycle(json_t *c, struct cs_cycle *cy, char *why, size_t n);

/*
 * One of "states", against the run's cycles and state count, from shard
 * k of of: 0, or -1 with why naming the state (its name and "index"), the
 * field and its value.
 */
int cs_read_state(json_t *s, const struct cs_cycle *cy, int n_cy, int total, int k, int of,
		  struct cs_result *r, char *why, size_t n);

/* An integer field from lo to hi (null allowed: *out = -1): 0, or -1
 * with why. */
int cs_json_int(json_t *o, const char *key, long long lo, long long hi, bool null_ok,
		long long *out, char *why, size_t n);

#endif

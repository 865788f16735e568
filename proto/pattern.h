/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deterministic file content for the power-cut oracle, shared by host and
 * guest: byte i of stream `seed` is byte (i % 8) of splitmix64(seed, i / 8),
 * so any byte of any file can be judged without keeping a copy.
 */
#ifndef PATTERN_H
#define PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t pattern_word(uint64_t seed, uint64_t index)
{
	uint64_t z = seed + (index + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fills buf with bytes [off, off + len) of stream seed. */
static inline void pattern_fill(uint64_t seed, uint64_t off, unsigned char *buf,
				size_t len)
{
	for (size_t i = 0; i < len; i++) {
		uint64_t w = pattern_word(seed, (off + i) / 8);

		buf[i] = (unsigned char)(w >> (8 * ((off + i) % 8)));
	}
}

/*
 * Judges the got bytes a file holds at offset off, of the n expected there
 * (got <= n), against stream seed, one aligned 8-byte word at a time: a
 * word counts only if all of it is right, up to the end of the file where
 * the file ends inside it, so a zeroed range never counts the pattern's own
 * zero bytes as survivors.  want is scratch of n bytes.  Returns the good
 * bytes; *first_bad gets the offset (from off) of the first byte not good,
 * or n.  off must be a multiple of 8.
 */
static inline size_t pattern_judge(uint64_t seed, uint64_t off,
				   const unsigned char *buf, size_t got, size_t n,
				   unsigned char *want, size_t *first_bad)
{
	size_t good = 0;

	*first_bad = n;
	pattern_fill(seed, off, want, n);
	for (size_t w = 0; w < n; w += 8) {
		size_t end = w + 8 < n ? w + 8 : n;
		size_t have = got > w ? (got < end ? got : end) - w : 0;
		int match = have && !memcmp(buf + w, want + w, have);

		if (match)
			good += have;
		if ((!match || have < end - w) && *first_bad == n)
			*first_bad = w + (match ? have : 0);
	}
	return good;
}

#endif

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

#endif

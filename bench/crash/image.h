/* A crash state's disk image: the pristine image with the state's
 * entries applied, as a sparse file. */
#ifndef SLAB_IMAGE_H
#define SLAB_IMAGE_H

#include <stddef.h>

#include "states.h"

/* A sparse copy (holes stay holes).  0, or -1 with why. */
int cs_copy_sparse(const char *from, const char *to, char *why, size_t n);
/* out = base + the entries of s, in their order.  0, or -1 with why. */
int cs_build_image(const struct lw_log *l, const struct cs_state *s,
		   const char *base, const char *out, char *why, size_t n);
/* Whether two files hold the same bytes (a hole reads as zeros): 1 same,
 * 0 different (*at = first differing offset), -1 unreadable. */
int cs_same_content(const char *a, const char *b, long long *at);

#endif

/* Whole files for the offline tests to read. */
#ifndef T_SLURP_H
#define T_SLURP_H

#include <stddef.h>

/* path's bytes, NUL-terminated (free() it), their count in *len when len
 * is not NULL; NULL when the file cannot be opened. */
char *test_slurp(const char *path, size_t *len);
/* The same for dir/name. */
char *test_slurp_in(const char *dir, const char *name, size_t *len);

#endif

#define _GNU_SOURCE
#include "slurp.h"

#include <stdio.h>
#include <stdlib.h>

char *test_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re"), *m;
	char *buf = NULL, chunk[8192];
	size_t n = 0, k;

	if (len)
		*len = 0;
	if (!f)
		return NULL;
	m = open_memstream(&buf, &n);
	while (m && (k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, k, m);
	if (m)
		fclose(m);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

char *test_slurp_in(const char *dir, const char *name, size_t *len)
{
	char *path, *buf;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	buf = test_slurp(path, len);
	free(path);
	return buf;
}

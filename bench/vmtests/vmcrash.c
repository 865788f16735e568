#include "vmcrash.h"

#include <string.h>

#include "tap.h"

void vmcrash_tally(const struct cs_run *run, const struct cs_cycle *c, int sync,
		   const char *tag, struct vmcrash_tally *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < run->n; i++) {
		const struct cs_result *r = &run->res[i];

		if (r->sync != sync || r->kind == CS_DROP || !r->judged)
			continue;
		t->n++;
		t->clean += r->mounted && r->fs_clean;
		if (r->pos < c->sync_last_flush)
			continue;
		t->after++;
		t->zero += r->lost_bytes == 0;
		if (r->lost_bytes)
			tap_diag("%s: %s lost %llu bytes", tag, r->name,
				 (unsigned long long)r->lost_bytes);
	}
}

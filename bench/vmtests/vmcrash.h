/* What the crash-state VM tests count over a judged run. */
#ifndef SLAB_VMCRASH_H
#define SLAB_VMCRASH_H

#include "crash.h"

struct vmcrash_tally {
	int n;		/* judged states of the setting, dropped flushes aside */
	int clean;	/* of those: mounted, the checker clean */
	int after;	/* of those: at or after the sync's last flush (c) */
	int zero;	/* of those after it: nothing lost */
};

/* The setting's states; a TAP diagnostic, tagged, for each one after the
 * last flush that lost bytes. */
void vmcrash_tally(const struct cs_run *run, const struct cs_cycle *c, int sync,
		   const char *tag, struct vmcrash_tally *t);

#endif

/* Host commands the lab runs itself (mkfs, e2fsck, debugfs). */
#ifndef SLAB_HOSTRUN_H
#define SLAB_HOSTRUN_H

#include <stdbool.h>

/* Runs argv without a shell; its exit status, or -1 (not run, or killed). */
int host_run(char *const argv[], bool quiet);

#endif

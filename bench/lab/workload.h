/*
 * The lab's workloads: what writes the data before a suspend.  Each is an
 * fio job file on the tools disk (guest/workloads/), sized from the
 * experiment's size and run in one of two writeback modes.
 */
#ifndef SLAB_WORKLOAD_H
#define SLAB_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WORKLOAD_DIR "/opt/tools/workloads"

struct workload {
	const char *name;	/* bigfile, smallfiles, fsync-log, mixed */
	const char *what;	/* one line for --help and the README */
	bool pre;		/* has a <name>.pre shell step (directories) */
	bool timed;		/* bounded by runtime_s, not only by size */
};

extern const struct workload workloads[];
const struct workload *workload_by_name(const char *name);
/* "bigfile, smallfiles, fsync-log, mixed" */
const char *workload_names(void);

/*
 * The guest command that runs w in dir, sized to write about size bytes
 * (a timed workload at a rate that writes about that much in runtime_s);
 * in the background when bg, so the suspend can come while it writes.
 */
void workload_command(const struct workload *w, const char *dir, uint64_t size,
		      int runtime_s, bool bg, char *buf, size_t n);

/* Writeback modes: held keeps dirty data in RAM until the sync; default
 * leaves the kernel's vm.dirty_* as they are. */
enum writeback { WB_HELD, WB_DEFAULT };
const char *writeback_name(enum writeback wb);

#endif

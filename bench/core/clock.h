/* The lab's two clocks: monotonic for deadlines, real time for QEMU's
 * event timestamps and the guest's CLOCK_REALTIME. */
#ifndef SLAB_CLOCK_H
#define SLAB_CLOCK_H

#include <time.h>

static inline double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds, CLOCK_MONOTONIC: deadlines, durations on the host. */
static inline double mono_now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

/* Milliseconds left until a mono_now() deadline; 0 once it passed. */
static inline int ms_left(double deadline)
{
	double left = (deadline - mono_now()) * 1000;

	return left > 0 ? (left > 2e9 ? 2000000000 : (int)left + 1) : 0;
}

#endif

/*
 * t_msg_hostload: HostStall's share of its window (issue 33, item 6).
 *
 * Guards: run-queue wait summed over QEMU's threads counts each period at
 * most once (two threads waiting the same 20 ms are 20 ms), so what the
 * host took is never more than the window: the reported case, 0.751 s of
 * wait in a 0.630 s resume, reads 0.630 s at most, and the message says
 * the wait is wall-clock time with the threads' sum beside it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hostload.h"
#include "tap.h"

int main(void)
{
	/* the reported resume: 0.751 s summed over threads in 0.630 s */
	struct host_window w = { .measured = true, .wall_s = 0.630, .wait_s = 0.751,
				 .others_cpu_s = 2 };
	double wait = 0, sum = 0;
	char why[512];

	tap_ok(hostload_taken(&w) <= w.wall_s + 1e-9,
	       "0.751 s of wait in a 0.630 s window: taken %.3f s", hostload_taken(&w));
	w.stopped_s = 0.4;
	w.late_s = 0.3;
	tap_ok(hostload_taken(&w) <= w.wall_s + 1e-9,
	       "stopped 0.4 + late 0.3 + wait in a 0.630 s window: taken %.3f s",
	       hostload_taken(&w));

	/* the sampler: 3 threads each waiting every 20 ms period, for 0.63 s */
	for (int i = 0; i < 31; i++) {
		double s1 = sum + 3 * 0.020;

		wait = hostload_wait_step(wait, sum, s1, 0.020);
		sum = s1;
	}
	tap_ok(fabs(wait - 0.62) < 1e-9 && sum > 1.8,
	       "3 threads waiting 31 periods of 20 ms: %.3f s of wall-clock wait (sum %.3f s)",
	       wait, sum);
	tap_ok(hostload_wait_step(1, 5, 4, 0.02) == 1,
	       "a thread gone (the sum going down) adds nothing: %.3f",
	       hostload_wait_step(1, 5, 4, 0.02));

	w = (struct host_window){ .measured = true, .wall_s = 0.630, .wait_s = 1.860,
				  .wait_wall_s = 0.620, .wall_known = true, .others_cpu_s = 2 };
	hostload_describe(&w, "resume", why, sizeof(why));
	tap_ok(strstr(why, "took 0.620 s of the 0.630 s resume") &&
	       strstr(why, "0.620 s of wall-clock time, 1.860 s summed over threads"),
	       "message: %s", why);
	/* a cycle's why[] holds 256 bytes: the figures at their largest fit */
	w = (struct host_window){ .measured = true, .wall_s = 9999.999, .stopped_s = 9999.999,
				  .late_s = 9999.999, .wait_s = 99999.999, .wait_wall_s = 9999.999,
				  .wall_known = true, .others_cpu_s = 9999.999 };
	hostload_describe(&w, "suspend", why, sizeof(why));
	tap_ok(strlen(why) < 256, "the longest message is %zu bytes, whole in 256",
	       strlen(why));
	return tap_done();
}

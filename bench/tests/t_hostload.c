/*
 * t_hostload: what the host took from QEMU, the figure behind HostStall.
 *
 * Guards: QEMU's threads waiting for each other (more runnable threads than
 * CPUs, nothing else running) is the emulation's cost, not the host's, so a
 * quiet host does not make a HostStall of it; the same process held back by
 * other tasks' CPU is the host's and is one; the wait counted is never more
 * than the other tasks' CPU time, nor more than the wait itself; a stopped
 * QEMU counts whatever the others did; an unreadable /proc/stat counts the
 * whole wait, as before.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostload.h"
#include "tap.h"

#define SPIN_S 1.5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *spin(void *arg)
{
	double end = *(double *)arg;

	while (now() < end)
		;
	return NULL;
}

/* A process of n spinning threads for SPIN_S (a stand-in for QEMU's). */
static pid_t spinner(int n)
{
	static double end;
	pthread_t th[16];
	pid_t pid = fork();

	if (pid)
		return pid;
	end = now() + SPIN_S;
	for (int i = 1; i < n && i < 16; i++)
		pthread_create(&th[i], NULL, spin, &end);
	spin(&end);
	_exit(0);
}

static void arithmetic(void)
{
	struct host_window w = { .measured = true, .wall_s = 3, .wait_s = 2, .others_cpu_s = 0.05 };

	tap_ok(fabs(hostload_taken(&w) - 0.05) < 1e-9 && !hostload_stalled(&w),
	       "wait 2 s, others' CPU 0.05 s: taken %.3f s, stalled %d", hostload_taken(&w),
	       hostload_stalled(&w));
	w.others_cpu_s = 3;
	tap_ok(fabs(hostload_taken(&w) - 2) < 1e-9 && hostload_stalled(&w),
	       "wait 2 s, others' CPU 3 s: taken %.3f s, stalled %d", hostload_taken(&w),
	       hostload_stalled(&w));
	w.others_cpu_s = INFINITY;
	tap_ok(fabs(hostload_taken(&w) - 2) < 1e-9,
	       "others' CPU unknown: taken %.3f s of a 2 s wait", hostload_taken(&w));
	w = (struct host_window){ .measured = true, .wall_s = 3, .stopped_s = 1.5, .wait_s = 0 };
	tap_ok(hostload_stalled(&w), "stopped 1.5 s of 3 s, no wait: stalled %d",
	       hostload_stalled(&w));
	w.measured = false;
	tap_ok(!hostload_stalled(&w), "unmeasured window: stalled %d", hostload_stalled(&w));
}

/* Samples a spinner of nthreads with nhogs other spinning processes. */
static void live(int nthreads, int nhogs, struct host_window *w)
{
	struct hostload hl;
	pid_t qemu, hog[16];
	double t0;

	qemu = spinner(nthreads);
	hostload_start(&hl, qemu, 0);
	for (int i = 0; i < nhogs && i < 16; i++)
		hog[i] = spinner(1);
	t0 = now();
	usleep(SPIN_S * 1e6 - 100000);
	hostload_window(&hl, t0, now(), w);
	hostload_stop(&hl);
	for (int i = 0; i < nhogs && i < 16; i++)
		waitpid(hog[i], NULL, 0);
	waitpid(qemu, NULL, 0);
}

int main(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int n = ncpu < 1 ? 2 : ncpu > 7 ? 8 : (int)ncpu + 1;
	struct host_window w;

	arithmetic();

	live(n, 0, &w);
	if (w.wait_s < 0.3)
		tap_skip("the threads did not contend", "%d threads on %ld CPUs waited %.3f s", n,
			 ncpu, w.wait_s);
	else if (w.others_cpu_s > w.wait_s / 2)
		tap_skip("the host is not quiet", "other tasks used %.3f s of CPU", w.others_cpu_s);
	else
		tap_ok(!hostload_stalled(&w) && hostload_taken(&w) < w.wait_s / 2,
		       "%d threads on %ld CPUs, nothing else: wait %.3f s, others' CPU %.3f s, taken %.3f s, stalled %d",
		       n, ncpu, w.wait_s, w.others_cpu_s, hostload_taken(&w), hostload_stalled(&w));

	live(n, n, &w);
	tap_ok(w.measured && hostload_stalled(&w) && hostload_taken(&w) <= w.wait_s + 1e-9 &&
	       hostload_taken(&w) <= w.others_cpu_s + 1e-9,
	       "%d threads and %d hogs on %ld CPUs: wait %.3f s, others' CPU %.3f s, taken %.3f s of %.3f s, stalled %d",
	       n, n, ncpu, w.wait_s, w.others_cpu_s, hostload_taken(&w), w.wall_s,
	       hostload_stalled(&w));
	return tap_done();
}

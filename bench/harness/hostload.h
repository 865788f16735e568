/*
 * What the host took from the guest during a cycle.  Under TCG the guest's
 * clock follows the host's, so a QEMU that was stopped, or waited for a
 * CPU, reads as guest time (a 20 s SIGSTOP during the sync reads as a 20 s
 * sync).  A sampler thread follows QEMU's process every 20 ms: its state
 * (stopped), its threads' run-queue wait and CPU time
 * (/proc/PID/task/.../schedstat), and its own lateness (the harness itself
 * held off the CPU).
 */
#ifndef SLAB_HOSTLOAD_H
#define SLAB_HOSTLOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define HOSTLOAD_PERIOD_MS 20
/* A window is not a measurement when the host took this much of it
 * (stopped + late + the wait other tasks explain): at least HOSTLOAD_STALL_MIN_S and
 * HOSTLOAD_STALL_FRAC of the window. */
#define HOSTLOAD_STALL_MIN_S 0.5
#define HOSTLOAD_STALL_FRAC 0.25

struct host_sample {
	double t;			/* host CLOCK_REALTIME */
	/* cumulative; wait_s is summed over QEMU's threads */
	double stopped_s, late_s, wait_s, cpu_s;
	/* the same as wall-clock time: each period's wait counts at most
	 * that period (two threads waiting the same 20 ms are 20 ms) */
	double wait_wall_s;
	double lab_cpu_s, busy_s;	/* QEMU + drive + harness; the host's busy CPU */
};

struct hostload {
	pid_t pid, helper;
	pthread_t th;
	pthread_mutex_t mu;
	bool on, stop;
	struct host_sample *s;
	int n, cap;
};

/* One window's figures; measured false when no sample covers it. */
struct host_window {
	bool measured;
	double wall_s, stopped_s, late_s, wait_s, cpu_s;	/* wait_s: threads' sum */
	double wait_wall_s;		/* the wait as wall-clock time, if wall_known */
	bool wall_known;
	/* CPU time of every task not QEMU's, the drive's or the harness's;
	 * INFINITY when /proc/stat cannot be read (all the wait counts) */
	double others_cpu_s;
};

/* QEMU's pid, and the drive model's (0: none).  0, or -1 (no thread: every
 * window unmeasured). */
int hostload_start(struct hostload *hl, pid_t pid, pid_t helper);
void hostload_stop(struct hostload *hl);
/* [t0, t1] in host CLOCK_REALTIME seconds. */
void hostload_window(struct hostload *hl, double t0, double t1, struct host_window *w);
/* The sampler's step of wait_wall_s: wall plus the threads' summed wait
 * from sum0 to sum1, at most dt (the period's wall-clock length). */
double hostload_wait_step(double wait, double sum0, double sum1, double dt);
/* QEMU's run-queue wait that other tasks explain: min(wait, others' CPU),
 * the wait as wall-clock time when the sampler measured it. */
double hostload_host_wait(const struct host_window *w);
/* What the host took: stopped + late + that wait, at most the window (the
 * parts may overlap: a stopped QEMU's threads wait too). */
double hostload_taken(const struct host_window *w);
/* HostStall's text for w ("suspend", "resume"): every figure, and that
 * the wait is wall-clock time, not a sum over threads. */
void hostload_describe(const struct host_window *w, const char *which, char *buf,
		       size_t n);
/* True when the window is the host's, not the guest's (thresholds above). */
bool hostload_stalled(const struct host_window *w);

#endif

#define _GNU_SOURCE
#include "hostload.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CAP (30 * 60 * 1000 / HOSTLOAD_PERIOD_MS)	/* half an hour */

static double real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 'T' (SIGSTOP) or 't' (a tracer): QEMU is not running at all */
static bool stopped(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	p = strrchr(buf, ')');
	return p && (p[2] == 'T' || p[2] == 't');
}

/* Every thread's CPU time and run-queue wait, summed (0 for pid 0). */
static void schedstat(pid_t pid, double *cpu, double *wait)
{
	char path[300];
	unsigned long long run_ns, wait_ns, r = 0, w = 0;
	struct dirent *e;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = pid > 0 ? opendir(path) : NULL;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
		f = fopen(path, "re");
		if (f && fscanf(f, "%llu %llu", &run_ns, &wait_ns) == 2) {
			r += run_ns;
			w += wait_ns;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	*cpu = r / 1e9;
	*wait = w / 1e9;
}

/* The host's busy CPU time, every CPU summed; NAN if unreadable. */
static double busy(void)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return NAN;
	/* user nice system idle iowait irq softirq steal */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 7 || hz <= 0)
		return NAN;
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / hz;
}

static void take(struct hostload *hl, struct host_sample *s)
{
	double c, w;

	schedstat(hl->pid, &s->cpu_s, &s->wait_s);
	s->lab_cpu_s = s->cpu_s;
	schedstat(hl->helper, &c, &w);
	s->lab_cpu_s += c;
	schedstat(getpid(), &c, &w);
	s->lab_cpu_s += c;
	s->busy_s = busy();
}

double hostload_wait_step(double wait, double sum0, double sum1, double dt)
{
	/* two threads waiting the same 20 ms are 20 ms of the guest's time,
	 * not 40: a period never counts more than itself */
	return wait + fmin(fmax(0, sum1 - sum0), dt);
}

static void *sampler(void *arg)
{
	struct hostload *hl = arg;
	struct host_sample cur = { .t = real_now() };
	double period = HOSTLOAD_PERIOD_MS / 1000.0;

	take(hl, &cur);
	for (;;) {
		struct host_sample next;
		double dt;

		pthread_mutex_lock(&hl->mu);
		if (hl->n < hl->cap)
			hl->s[hl->n++] = cur;
		if (hl->stop) {
			pthread_mutex_unlock(&hl->mu);
			return NULL;
		}
		pthread_mutex_unlock(&hl->mu);
		usleep(HOSTLOAD_PERIOD_MS * 1000);
		next = cur;
		next.t = real_now();
		dt = next.t - cur.t;
		if (stopped(hl->pid))
			next.stopped_s += dt;
		/* far later than asked: the host held this thread back too */
		if (dt > 5 * period)
			next.late_s += dt - period;
		take(hl, &next);
		/* a late period is charged as late already: its wait only up
		 * to the period itself */
		next.wait_wall_s = hostload_wait_step(cur.wait_wall_s, cur.wait_s, next.wait_s,
						      dt - (next.late_s - cur.late_s));
		cur = next;
	}
}

int hostload_start(struct hostload *hl, pid_t pid, pid_t helper)
{
	memset(hl, 0, sizeof(*hl));
	hl->pid = pid;
	hl->helper = helper;
	hl->cap = CAP;
	hl->s = calloc(hl->cap, sizeof(*hl->s));
	if (!hl->s || pid <= 0)
		return -1;
	pthread_mutex_init(&hl->mu, NULL);
	if (pthread_create(&hl->th, NULL, sampler, hl)) {
		pthread_mutex_destroy(&hl->mu);
		return -1;
	}
	hl->on = true;
	return 0;
}

void hostload_stop(struct hostload *hl)
{
	if (hl->on) {
		pthread_mutex_lock(&hl->mu);
		hl->stop = true;
		pthread_mutex_unlock(&hl->mu);
		pthread_join(hl->th, NULL);
		pthread_mutex_destroy(&hl->mu);
	}
	hl->on = false;
	free(hl->s);
	hl->s = NULL;
	hl->n = 0;
}

/* The last sample at or before t (the first one if none is). */
static const struct host_sample *at(const struct hostload *hl, double t, bool after)
{
	int i;

	if (after) {
		for (i = 0; i < hl->n - 1 && hl->s[i].t < t; i++)
			;
		return &hl->s[i];
	}
	for (i = hl->n - 1; i > 0 && hl->s[i].t > t; i--)
		;
	return &hl->s[i];
}

void hostload_window(struct hostload *hl, double t0, double t1, struct host_window *w)
{
	const struct host_sample *a, *b;

	memset(w, 0, sizeof(*w));
	if (!hl->s || isnan(t0) || isnan(t1) || t1 < t0)
		return;
	if (hl->on)
		pthread_mutex_lock(&hl->mu);
	if (hl->n >= 2) {
		/* the samples around the window: what happened in it, and a
		 * period either side */
		a = at(hl, t0, false);
		b = at(hl, t1, true);
		w->measured = b > a;
		w->wall_s = t1 - t0;
		w->stopped_s = b->stopped_s - a->stopped_s;
		w->late_s = b->late_s - a->late_s;
		w->wait_s = b->wait_s - a->wait_s;
		w->wait_wall_s = b->wait_wall_s - a->wait_wall_s;
		w->wall_known = true;
		w->cpu_s = b->cpu_s - a->cpu_s;
		/* ticks against nanoseconds: a small negative is none */
		w->others_cpu_s = isnan(a->busy_s) || isnan(b->busy_s) ? INFINITY :
			fmax(0, (b->busy_s - a->busy_s) - (b->lab_cpu_s - a->lab_cpu_s));
	}
	if (hl->on)
		pthread_mutex_unlock(&hl->mu);
}

double hostload_host_wait(const struct host_window *w)
{
	return fmin(w->wall_known ? w->wait_wall_s : w->wait_s, w->others_cpu_s);
}

double hostload_taken(const struct host_window *w)
{
	/* the samples reach a period past each end, and the parts overlap:
	 * what is charged is never more than the window */
	return fmin(w->stopped_s + w->late_s + hostload_host_wait(w), w->wall_s);
}

void hostload_describe(const struct host_window *w, const char *which, char *buf,
		       size_t n)
{
	/* fits a cycle's why[256] with every figure in the thousands */
	snprintf(buf, n,
		 "the host took %.3f s of the %.3f s %s (QEMU stopped %.3f s, harness late %.3f s, "
		 "QEMU waited for a CPU %.3f s of wall-clock time, %.3f s summed over threads, "
		 "other tasks' CPU explains %.3f s; capped at the window)",
		 hostload_taken(w), w->wall_s, which, w->stopped_s, w->late_s,
		 w->wall_known ? w->wait_wall_s : w->wait_s, w->wait_s, hostload_host_wait(w));
}

bool hostload_stalled(const struct host_window *w)
{
	double taken = hostload_taken(w);

	return w->measured && taken >= HOSTLOAD_STALL_MIN_S &&
	       taken >= HOSTLOAD_STALL_FRAC * w->wall_s;
}

/* One suspend/resume cycle, driven over QMP and the agent (cycle.h). */
#define _GNU_SOURCE
#include "cycle.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "vmsuspend.h"

const struct cycle_timeouts cycle_default_timeouts = {
	.request_ms = 10000,
	.suspend_ms = 120000,
	.wake_ms = 30000,
	.done_ms = 10000,
	.qmp_ms = 5000,
	.first_key_ms = 1000,
	.key_every_ms = 400,
};

/* mono_ns=.. real_ns=.. boot_ns=..: all three, or false */
static bool parse_clocks(const char *rest, struct guest_clocks *g)
{
	long long m, r, b;

	if (!agent_kvs_ll(rest, "mono_ns", &m, "real_ns", &r, "boot_ns", &b, NULL))
		return false;
	g->mono = m / 1e9;
	g->real = r / 1e9;
	g->boot = b / 1e9;
	return true;
}

__attribute__((format(printf, 4, 5)))
static enum verdict fail(struct vm *vm, struct cycle *c, enum verdict v,
			 const char *fmt, ...)
{
	va_list ap;

	/* whatever went wrong, a dead QEMU is the first fact to report */
	if (v != VERDICT_OK && !vm_alive(vm))
		v = VERDICT_QEMU_DIED;
	c->verdict = v;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return v;
}

static enum verdict chan_fail(struct vm *vm, struct cycle *c, enum chan_status s,
			      enum verdict on_timeout, const char *waiting)
{
	enum verdict v = vm_chan_verdict(vm, s);

	if (v == VERDICT_AGENT_TIMEOUT)
		v = on_timeout;
	return fail(vm, c, v, "waiting for %s: %s", waiting, vm->agent.why);
}

/* A line other than the one awaited: trace, log, or the resume report. */
static enum verdict on_line(struct vm *vm, struct cycle *c, enum agent_msg m,
			    char *rest)
{
	long long rc, ret;

	switch (m) {
	case AGENT_MSG_TRACE:
		cycle_parse_trace(c, rest);
		break;
	case AGENT_MSG_KMSG:
		cycle_parse_kmsg(c, rest);
		break;
	case AGENT_MSG_RESUMED:
		if (!isnan(c->resumed_host))
			return fail(vm, c, VERDICT_PROTOCOL, "a second RESUMED");
		c->resumed_host = qmp_now();
		if (!parse_clocks(rest, &c->resumed_guest) ||
		    !agent_kvs_ll(rest, "rc", &rc, "ret_mono_ns", &ret, NULL))
			return fail(vm, c, VERDICT_PROTOCOL, "RESUMED without its keys");
		c->rc = (int)rc;
		c->resumed_ret_mono = ret / 1e9;
		break;
	default:
		return fail(vm, c, VERDICT_PROTOCOL, "unexpected %s during SUSPEND",
			    agent_msg_name(m));
	}
	return VERDICT_OK;
}

/* Waits for one line of the given kind; others go to on_line. */
static enum verdict wait_msg(struct vm *vm, struct cycle *c, enum agent_msg want,
			     int timeout_ms, enum verdict on_timeout, char **rest)
{
	double deadline = mono_now() + timeout_ms / 1000.0;

	for (;;) {
		enum agent_msg m;
		enum chan_status s = chan_recv(&vm->agent, deadline, &m, rest);
		enum verdict v;

		if (s)
			return chan_fail(vm, c, s, on_timeout, agent_msg_name(want));
		if (m == want)
			return VERDICT_OK;
		v = on_line(vm, c, m, *rest);
		if (v)
			return v;
	}
}

/*
 * mem: QEMU's SUSPEND, then system_wakeup.  *early: the agent's RESUMED
 * came first (the kernel gave up on the suspend); it is in *rest, and the
 * cycle goes on to the agent's report, which says why.
 */
static enum verdict wake_mem(struct vm *vm, struct cycle *c,
			     const struct cycle_timeouts *to, bool *early, char **rest)
{
	char why[sizeof(c->why)];
	enum verdict v;
	int r;

	v = vm_await_suspend(vm, to->suspend_ms, &c->suspend_event, rest, why,
			     sizeof(why));
	*early = v == VERDICT_SUSPEND_FAILED;
	if (*early)
		return VERDICT_OK;
	if (v)
		return fail(vm, c, v, "%s", why);
	c->wake_host = qmp_now();
	r = qmp_command(vm->qmp, "system_wakeup", NULL, NULL, to->qmp_ms);
	if (r)
		return fail(vm, c, vm_qmp_verdict(vm, r, VERDICT_WAKE_FAILED),
			    "system_wakeup: %s", qmp_last_error(vm->qmp));
	return VERDICT_OK;
}

static int send_key(struct vm *vm, int timeout_ms)
{
	json_t *args = json_pack("{s:[{s:s,s:s}]}", "keys", "type", "qcode",
				 "data", "shift");
	int r = qmp_command(vm->qmp, "send-key", args, NULL, timeout_ms);

	json_decref(args);
	return r;
}

/* s2idle raises no event: press keys until the agent is back */
static enum verdict wake_freeze(struct vm *vm, struct cycle *c,
				const struct cycle_timeouts *to, char **rest)
{
	double deadline = mono_now() + (to->suspend_ms + to->wake_ms) / 1000.0;
	double next = mono_now() + to->first_key_ms / 1000.0;

	for (;;) {
		enum agent_msg m;
		double until = next < deadline ? next : deadline;
		enum chan_status s = chan_recv(&vm->agent, until, &m, rest);
		enum verdict v;
		int r;

		if (s == CHAN_OK && m == AGENT_MSG_RESUMED)
			return VERDICT_OK;
		if (s == CHAN_OK) {
			v = on_line(vm, c, m, *rest);
			if (v)
				return v;
			continue;
		}
		if (s != CHAN_TIMEOUT || !ms_left(deadline))
			return chan_fail(vm, c, s, VERDICT_RESUME_TIMEOUT, "RESUMED");
		c->wake_host = qmp_now();
		if (c->n_keys < CYCLE_MAX_KEYS)
			c->key_host[c->n_keys++] = c->wake_host;
		r = send_key(vm, to->qmp_ms);
		if (r)
			return fail(vm, c, vm_qmp_verdict(vm, r, VERDICT_WAKE_FAILED),
				    "send-key: %s", qmp_last_error(vm->qmp));
		next = mono_now() + to->key_every_ms / 1000.0;
	}
}

static void take_clock(void *ctx, enum agent_msg m, char *rest)
{
	long long *real = ctx;

	if (m != AGENT_MSG_OUT || !agent_kv_ll(rest, "real_ns", real))
		*real = -1;
}

/*
 * Guest realtime minus host realtime: the guest's clock read between two
 * host readings, placed at their midpoint, to within half the round trip.
 */
static enum verdict clock_offset(struct vm *vm, struct cycle *c, int timeout_ms,
				 double *off, double *err)
{
	long long real = -1;
	int status = -1;
	double t0 = qmp_now(), t1;
	enum chan_status s = chan_request(&vm->agent, "CLOCK", mono_now() + timeout_ms / 1000.0,
					  take_clock, &real, &status);

	t1 = qmp_now();
	if (s)
		return chan_fail(vm, c, s, VERDICT_AGENT_TIMEOUT, "CLOCK");
	if (status || real < 0)
		return fail(vm, c, VERDICT_PROTOCOL, "CLOCK without real_ns");
	*off = real / 1e9 - (t0 + t1) / 2;
	*err = (t1 - t0) / 2;
	return VERDICT_OK;
}

void cycle_init(struct cycle *c, const char *state)
{
	memset(c, 0, sizeof(*c));
	c->verdict = VERDICT_NOT_RUN;
	c->fs_sync_s = -1;
	c->dirty_kb = c->writeback_kb = -1;
	c->req_guest.mono = c->req_guest.real = c->req_guest.boot = NAN;
	c->resumed_guest = c->req_guest;
	c->req_host = c->suspend_event = c->wake_host = c->resumed_host = NAN;
	c->resumed_ret_mono = NAN;
	c->off_pre = c->off_pre_err = c->off_post = c->off_post_err = NAN;
	snprintf(c->state, sizeof(c->state), "%s", state);
}

enum verdict cycle_run(struct vm *vm, const char *state,
		       const struct cycle_timeouts *to, struct cycle *c)
{
	bool mem = !strcmp(state, "mem");
	enum chan_status s;
	enum verdict v;
	long long st;
	char *rest;

	cycle_init(c, state);
	/* stale events would pass for this cycle's */
	while (qmp_take_event(vm->qmp, NULL, NULL))
		;
	v = clock_offset(vm, c, to->request_ms, &c->off_pre, &c->off_pre_err);
	if (v)
		return v;
	s = to->resume_delay_ms ?
	    chan_send(&vm->agent, "SUSPEND %s %d", state, to->resume_delay_ms) :
	    chan_send(&vm->agent, "SUSPEND %s", state);
	if (s)
		return chan_fail(vm, c, s, VERDICT_AGENT_TIMEOUT, "the request");
	v = wait_msg(vm, c, AGENT_MSG_REQUEST, to->request_ms, VERDICT_AGENT_TIMEOUT, &rest);
	if (v)
		return v;
	c->req_host = qmp_now();
	if (!parse_clocks(rest, &c->req_guest) ||
	    !agent_kvs_ll(rest, "dirty_kb", &c->dirty_kb, "writeback_kb",
			  &c->writeback_kb, NULL))
		return fail(vm, c, VERDICT_PROTOCOL, "REQUEST without its keys");

	if (mem) {
		bool early;

		v = wake_mem(vm, c, to, &early, &rest);
		if (!v && !early)
			v = wait_msg(vm, c, AGENT_MSG_RESUMED, to->wake_ms,
				     VERDICT_RESUME_TIMEOUT, &rest);
	} else {
		v = wake_freeze(vm, c, to, &rest);
	}
	if (v || (v = on_line(vm, c, AGENT_MSG_RESUMED, rest)))
		return v;

	/* the trace and log follow; DONE closes the request */
	v = wait_msg(vm, c, AGENT_MSG_DONE, to->done_ms, VERDICT_AGENT_TIMEOUT, &rest);
	if (v)
		return v;
	if (!agent_kv_ll(rest, "status", &st))
		return fail(vm, c, VERDICT_PROTOCOL, "DONE without a status");
	v = clock_offset(vm, c, to->done_ms, &c->off_post, &c->off_post_err);
	if (v)
		return v;
	if (st || c->rc)
		return fail(vm, c, VERDICT_SUSPEND_FAILED, "writing %s: %s%s%s%s", state,
			    strerror(c->rc ? c->rc : (int)st),
			    c->kernel_err[0] ? " (kernel: " : "", c->kernel_err,
			    c->kernel_err[0] ? ")" : "");
	if (cycle_phase_count(c, "machine_suspend") == 0)
		return fail(vm, c, VERDICT_NOT_SUSPENDED, "no machine_suspend phase");
	c->verdict = VERDICT_OK;
	return VERDICT_OK;
}

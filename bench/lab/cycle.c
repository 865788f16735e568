#define _GNU_SOURCE
#include "cycle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct cycle_timeouts cycle_default_timeouts = {
	.suspend_ms = 120000,
	.wake_ms = 30000,
	.first_key_ms = 1000,
	.key_every_ms = 400,
};

/*
 * The kernel's at-risk report, once per suspend right before devices
 * suspend: "  sh-74  [001] .....  12.3: suspend_page_cache: dirty_kb=65536
 * writeback_kb=0".
 */
static bool parse_skip_event(struct cycle *c, const char *line)
{
	const char *p = strstr(line, ": suspend_page_cache: ");
	long long d, w;

	if (!p || sscanf(p, ": suspend_page_cache: dirty_kb=%lld writeback_kb=%lld",
			 &d, &w) != 2)
		return false;
	c->skip_events++;
	c->skip_dirty_kb = d;
	c->skip_writeback_kb = w;
	return true;
}

/* "  sh-74  [001] .....  12.345678: suspend_resume: sync_filesystems[0] begin" */
bool cycle_parse_trace(struct cycle *c, const char *line)
{
	const char *tag = strstr(line, ": suspend_resume: ");
	const char *p, *act;
	char name[sizeof(c->phases[0].name)];
	size_t len;
	double t;
	bool begin;
	int i;

	if (!tag)
		return parse_skip_event(c, line);
	for (p = tag; p > line && p[-1] != ' '; p--)
		;
	if (sscanf(p, "%lf", &t) != 1)
		return false;
	act = tag + strlen(": suspend_resume: ");
	len = strcspn(act, "[ ");
	if (!len || len >= sizeof(name))
		return false;
	memcpy(name, act, len);
	name[len] = '\0';
	if (strstr(act + len, "] begin"))
		begin = true;
	else if (strstr(act + len, "] end"))
		begin = false;
	else
		return false;

	if (begin) {
		if (c->n_phases >= CYCLE_MAX_PHASES)
			return false;
		i = c->n_phases++;
		snprintf(c->phases[i].name, sizeof(c->phases[i].name), "%s", name);
		c->phases[i].begin = t;
		c->phases[i].end = -1;
		return true;
	}
	for (i = c->n_phases - 1; i >= 0; i--)
		if (c->phases[i].end < 0 && !strcmp(c->phases[i].name, name)) {
			c->phases[i].end = t;
			return true;
		}
	return false;
}

/*
 * /dev/kmsg records: "6,208,3354359,-;Filesystems sync: 0.085 seconds" and,
 * with pm_debug_messages on, the at-risk report: "7,210,1,-;PM: Dirty page
 * cache at risk: 65536 kB (writeback: 0 kB)".
 */
bool cycle_parse_kmsg(struct cycle *c, const char *line)
{
	const char *sync = strstr(line, "Filesystems sync: ");
	const char *risk = strstr(line, "PM: Dirty page cache at risk: ");
	long long d, w;
	double s;

	if (sync && sscanf(sync, "Filesystems sync: %lf seconds", &s) == 1) {
		c->fs_sync_lines++;
		c->fs_sync_s = s;
		return true;
	}
	if (risk && sscanf(risk, "PM: Dirty page cache at risk: %lld kB (writeback: %lld kB",
			   &d, &w) == 2) {
		c->skip_lines++;
		c->skip_line_dirty_kb = d;
		c->skip_line_writeback_kb = w;
		return true;
	}
	return false;
}

double cycle_phase_s(const struct cycle *c, const char *name)
{
	double sum = -1;

	for (int i = 0; i < c->n_phases; i++)
		if (!strcmp(c->phases[i].name, name) && c->phases[i].end >= 0)
			sum = (sum < 0 ? 0 : sum) + c->phases[i].end - c->phases[i].begin;
	return sum;
}

double cycle_phase_begin(const struct cycle *c, const char *name)
{
	for (int i = 0; i < c->n_phases; i++)
		if (!strcmp(c->phases[i].name, name))
			return c->phases[i].begin;
	return -1;
}

double cycle_phase_end(const struct cycle *c, const char *name)
{
	for (int i = c->n_phases - 1; i >= 0; i--)
		if (!strcmp(c->phases[i].name, name))
			return c->phases[i].end;
	return -1;
}

int cycle_phase_count(const struct cycle *c, const char *name)
{
	int n = 0;

	for (int i = 0; i < c->n_phases; i++)
		n += !strcmp(c->phases[i].name, name);
	return n;
}

static double ns_to_s(long long ns)
{
	return ns / 1e9;
}

static void on_line(void *ctx, enum agent_msg m, char *rest)
{
	struct cycle *c = ctx;
	long long v;

	switch (m) {
	case AGENT_MSG_TRACE:
		cycle_parse_trace(c, rest);
		break;
	case AGENT_MSG_KMSG:
		cycle_parse_kmsg(c, rest);
		break;
	case AGENT_MSG_RESUMED:
		if (c->resumed_host <= 0)
			c->resumed_host = qmp_now();
		if (agent_kv_ll(rest, "t_ns", &v))
			c->resumed_guest = ns_to_s(v);
		if (agent_kv_ll(rest, "rc", &v))
			c->rc = (int)v;
		break;
	default:
		break;
	}
}

/* Waits for one agent line of the given kind; other kinds go to on_line. */
static int wait_msg(struct vm *vm, struct cycle *c, enum agent_msg want,
		    int timeout_ms, char **rest, char *line, size_t n)
{
	double deadline = qmp_now() + timeout_ms / 1000.0;

	for (;;) {
		int left = (int)((deadline - qmp_now()) * 1000);
		int r = vm_agent_line(vm, line, n, left > 0 ? left : 0);
		enum agent_msg m;

		if (r <= 0)
			return r;
		m = agent_msg_parse(line, rest);
		if (m == want)
			return 1;
		on_line(c, m, *rest);
	}
}

static enum verdict fail(struct vm *vm, struct cycle *c, enum verdict v)
{
	if (!vm_alive(vm))
		v = VERDICT_QEMU_DIED;
	c->verdict = v;
	return v;
}

static enum verdict wake_mem(struct vm *vm, struct cycle *c,
			     const struct cycle_timeouts *to)
{
	struct qmp_event ev;
	int r;

	r = qmp_wait_event(vm->qmp, "SUSPEND", to->suspend_ms, &ev);
	if (r)
		return r == QMP_ERR_TIMEOUT ? VERDICT_NO_SUSPEND_EVENT :
		       VERDICT_QEMU_DIED;
	c->suspend_event = ev.timestamp;
	qmp_event_clear(&ev);
	c->wake_host = qmp_now();
	if (qmp_command(vm->qmp, "system_wakeup", NULL, NULL, 5000))
		return VERDICT_WAKE_FAILED;
	return VERDICT_OK;
}

static int send_key(struct vm *vm)
{
	json_t *args = json_pack("{s:[{s:s,s:s}]}", "keys", "type", "qcode",
				 "data", "shift");
	int r = qmp_command(vm->qmp, "send-key", args, NULL, 5000);

	json_decref(args);
	return r;
}

enum verdict cycle_run(struct vm *vm, const char *state,
		       const struct cycle_timeouts *to, struct cycle *c)
{
	char line[AGENT_LINE_MAX], *rest;
	bool mem = !strcmp(state, "mem");
	long long v;
	double deadline;
	int r, status;
	enum verdict ve;

	memset(c, 0, sizeof(*c));
	c->fs_sync_s = -1;
	snprintf(c->state, sizeof(c->state), "%s", state);
	/* stale events would pass for this cycle's */
	while (qmp_take_event(vm->qmp, NULL, NULL))
		;
	if (vm_agent_send(vm, "SUSPEND %s", state))
		return fail(vm, c, VERDICT_PROTOCOL);
	r = wait_msg(vm, c, AGENT_MSG_REQUEST, 10000, &rest, line, sizeof(line));
	if (r <= 0)
		return fail(vm, c, r ? VERDICT_QEMU_DIED : VERDICT_AGENT_TIMEOUT);
	c->req_host = qmp_now();
	if (agent_kv_ll(rest, "t_ns", &v))
		c->req_guest = ns_to_s(v);
	agent_kv_ll(rest, "dirty_kb", &c->dirty_kb);
	agent_kv_ll(rest, "writeback_kb", &c->writeback_kb);

	if (mem) {
		ve = wake_mem(vm, c, to);
		if (ve)
			return fail(vm, c, ve);
		r = wait_msg(vm, c, AGENT_MSG_RESUMED, to->wake_ms, &rest, line,
			     sizeof(line));
	} else {
		/* s2idle raises no event: press keys until the agent is back */
		r = wait_msg(vm, c, AGENT_MSG_RESUMED, to->first_key_ms, &rest,
			     line, sizeof(line));
		deadline = qmp_now() + (to->suspend_ms + to->wake_ms) / 1000.0;
		while (r == 0 && qmp_now() < deadline) {
			c->wake_host = qmp_now();
			if (send_key(vm))
				return fail(vm, c, VERDICT_WAKE_FAILED);
			r = wait_msg(vm, c, AGENT_MSG_RESUMED, to->key_every_ms,
				     &rest, line, sizeof(line));
		}
	}
	if (r <= 0)
		return fail(vm, c, r ? VERDICT_QEMU_DIED : VERDICT_RESUME_TIMEOUT);
	on_line(c, AGENT_MSG_RESUMED, rest);

	/* the trace and log follow; DONE closes the request */
	for (;;) {
		r = wait_msg(vm, c, AGENT_MSG_DONE, 10000, &rest, line, sizeof(line));
		if (r <= 0)
			return fail(vm, c, r ? VERDICT_QEMU_DIED : VERDICT_AGENT_TIMEOUT);
		if (!agent_kv_ll(rest, "status", &v))
			return fail(vm, c, VERDICT_PROTOCOL);
		status = (int)v;
		break;
	}
	if (status || c->rc)
		return fail(vm, c, VERDICT_SUSPEND_FAILED);
	if (cycle_phase_count(c, "machine_suspend") == 0)
		return fail(vm, c, VERDICT_NOT_SUSPENDED);
	c->verdict = VERDICT_OK;
	return VERDICT_OK;
}

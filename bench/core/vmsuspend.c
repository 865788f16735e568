#define _GNU_SOURCE
#include "vmsuspend.h"

#include <stdio.h>
#include <string.h>

#include "clock.h"

/* How long QMP is waited on before the agent is looked at again. */
#define SLICE_MS 50

/* The last non-empty line of the serial console: what the kernel said. */
static void console_last(struct vm *vm, char *buf, size_t n)
{
	char tail[2048], *end, *line;

	vm_serial_tail(vm, tail, sizeof(tail), 4);
	end = tail + strlen(tail);
	while (end > tail && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		*--end = '\0';
	line = strrchr(tail, '\n');
	snprintf(buf, n, "%s", line ? line + 1 : tail);
}

enum verdict vm_await_suspend(struct vm *vm, int timeout_ms, double *event_ts,
			      char **rest, char *why, size_t n)
{
	double deadline = mono_now() + timeout_ms / 1000.0;
	struct qmp_event ev;
	enum agent_msg tag;
	enum chan_status s;
	char last[160];

	for (;;) {
		int left = ms_left(deadline);
		int q = qmp_wait_event(vm->qmp, "SUSPEND", left < SLICE_MS ? left : SLICE_MS,
				       &ev);

		if (q == QMP_OK) {
			*event_ts = ev.timestamp;
			qmp_event_clear(&ev);
			return VERDICT_OK;
		}
		if (q != QMP_ERR_TIMEOUT) {
			snprintf(why, n, "waiting for SUSPEND: %s", qmp_last_error(vm->qmp));
			return vm_qmp_verdict(vm, q, VERDICT_PROTOCOL);
		}
		if (vm_io_halted(vm, why, n))
			return VERDICT_HOST_IO_ERROR;
		/* the agent speaks before the event only if the suspend ended */
		s = chan_recv(&vm->agent, mono_now(), &tag, rest);
		if (s == CHAN_OK && tag == AGENT_MSG_RESUMED) {
			snprintf(why, n, "the kernel gave up on the suspend (RESUMED before SUSPEND)");
			return VERDICT_SUSPEND_FAILED;
		}
		if (s == CHAN_OK) {
			snprintf(why, n, "%s while waiting for SUSPEND", agent_msg_name(tag));
			return VERDICT_PROTOCOL;
		}
		if (s != CHAN_TIMEOUT) {
			snprintf(why, n, "waiting for SUSPEND: %s", vm->agent.why);
			return vm_chan_verdict(vm, s);
		}
		if (!left) {
			console_last(vm, last, sizeof(last));
			snprintf(why, n, "no SUSPEND event in %d ms (console: %s)", timeout_ms,
				 last);
			return VERDICT_NO_SUSPEND_EVENT;
		}
	}
}

/* QEMU's stop on a drive's I/O error, seen on the monitor. */
#include "vm.h"

#include <stdio.h>
#include <string.h>

static const char *str(json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? s : dflt;
}

bool vm_io_halted(void *ctx, char *why, size_t n)
{
	struct vm *vm = ctx;
	struct qmp_event ev;

	if (!vm->io_halt[0] && vm->qmp)
		qmp_poll_events(vm->qmp, 0);	/* a dead monitor: the pidfd says so */
	/* "report" and "ignore" leave the guest running with its own error */
	while (!vm->io_halt[0] && vm->qmp && qmp_take_event(vm->qmp, "BLOCK_IO_ERROR", &ev)) {
		if (!strcmp(str(ev.data, "action", ""), "stop"))
			snprintf(vm->io_halt, sizeof(vm->io_halt),
				 "QEMU stopped the guest on a %s error of drive %s: %s%s",
				 str(ev.data, "operation", "?"),
				 str(ev.data, "device", str(ev.data, "node-name", "?")),
				 str(ev.data, "reason", "?"),
				 json_is_true(json_object_get(ev.data, "nospace")) ?
				 " (the host filesystem under the image is full)" : "");
		qmp_event_clear(&ev);
	}
	if (vm->io_halt[0])
		snprintf(why, n, "%s", vm->io_halt);
	return vm->io_halt[0];
}

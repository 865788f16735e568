/*
 * t_devcb: per-device attribution from the guest's trace.
 *
 * tests/data/trace-6.1-mem.txt is a 6.1 guest's trace of one mem cycle
 * (suspend-lab's guest, 2026-12-07): every suspend_resume line and the
 * device_pm_callback_start/end lines of seven devices, with the end of
 * atkbd serio0's resume callback taken out, so that it starts and never
 * ends.
 *
 * Guards: each callback is parsed and paired with its own end (names with
 * spaces, "i8042 kbd 00:00", included); the one that never ends is counted
 * as unended in its phase and adds no time; each callback lands in the
 * dpm_* phase around its start; the slowest devices per phase, a device's
 * callbacks in a phase summed; an end without a start is refused; past
 * DEVCB_MAX the callbacks are counted as dropped, not written past the end.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cycle.h"
#include "devcb.h"
#include "tap.h"

#define FIXTURE "tests/data/trace-6.1-mem.txt"

static struct cycle c;

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void recorded(void)
{
	char line[512];
	FILE *f = fopen(FIXTURE, "re");
	int lines = 0, ended = 0;
	struct devcb_time t[DEVCB_TOP];
	int n;

	cycle_init(&c, "mem");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		lines += cycle_parse_trace(&c, line);
	}
	if (f)
		fclose(f);
	for (int i = 0; i < c.cbs.n; i++)
		ended += c.cbs.cb[i].end >= 0;
	tap_ok(lines == 107 && c.cbs.n == 35 && ended == 34 && !c.cbs.dropped,
	       FIXTURE ": %d lines taken, %d callbacks, %d ended, %d dropped", lines, c.cbs.n,
	       ended, c.cbs.dropped);

	n = devcb_slowest(&c, DEVCB_SUSPEND, t, DEVCB_TOP);
	tap_ok(n == 3 && !strcmp(t[0].dev, "virtio-pci 0000:00:03.0") && near(t[0].s, 0.016791) &&
	       !strcmp(t[1].dev, "virtio-pci 0000:00:02.0") && near(t[1].s, 0.009606),
	       "suspend: %d devices, slowest %s %.6f s, then %s %.6f s", n, n ? t[0].dev : "-",
	       n ? t[0].s : NAN, n > 1 ? t[1].dev : "-", n > 1 ? t[1].s : NAN);
	n = devcb_slowest(&c, DEVCB_RESUME, t, DEVCB_TOP);
	tap_ok(n == 3 && !strcmp(t[0].dev, "virtio-pci 0000:00:02.0") && near(t[0].s, 0.010404),
	       "resume: %d devices, slowest %s %.6f s", n, n ? t[0].dev : "-", n ? t[0].s : NAN);
	tap_ok(devcb_unended(&c, DEVCB_RESUME) == 1 && devcb_unended(&c, DEVCB_SUSPEND) == 0 &&
	       devcb_unended(&c, DEVCB_COMPLETE) == 0,
	       "never ended: %d in resume, %d in suspend, %d in resume_complete",
	       devcb_unended(&c, DEVCB_RESUME), devcb_unended(&c, DEVCB_SUSPEND),
	       devcb_unended(&c, DEVCB_COMPLETE));
	n = devcb_slowest(&c, DEVCB_PREPARE, t, DEVCB_TOP);
	tap_ok(n == 3 && !strcmp(t[1].dev, "i8042 kbd 00:00") && near(t[1].s, 0.000008),
	       "suspend_prepare: second %s %.6f s (a driver name with a space)",
	       n > 1 ? t[1].dev : "-", n > 1 ? t[1].s : NAN);
	n = devcb_slowest(&c, DEVCB_COMPLETE, t, DEVCB_TOP);
	tap_ok(n == 3 && !strcmp(t[0].dev, "virtio-pci 0000:00:03.0") && near(t[0].s, 0.00018),
	       "resume_complete: slowest %s %.6f s", n ? t[0].dev : "-", n ? t[0].s : NAN);
	tap_ok(!strcmp(devcb_phase_name(DEVCB_SUSPEND_NOIRQ), "suspend_noirq") &&
	       !strcmp(devcb_phase_name(DEVCB_NONE), "none"),
	       "phase names: %s, %s", devcb_phase_name(DEVCB_SUSPEND_NOIRQ),
	       devcb_phase_name(DEVCB_NONE));
}

static void made_up(void)
{
	struct devcbs d = { 0 };
	char line[200];
	bool orphan;

	orphan = devcb_parse(&d, "x-1 [000] ..... 1.5: device_pm_callback_end: pci 0000:00:01.0, err=0");
	tap_ok(!orphan && d.n == 0, "an end with no start: taken %d, %d callbacks", orphan, d.n);
	tap_ok(!devcb_parse(&d, "x-1 [000] ..... 1.5: device_pm_callback_start: no parent here"),
	       "a start line without its parent field is refused");
	for (int i = 0; i < DEVCB_MAX + 5; i++) {
		snprintf(line, sizeof(line),
			 "x-1 [000] ..... %d.0: device_pm_callback_start: pci dev%d, parent: none, bus[suspend]",
			 i, i);
		devcb_parse(&d, line);
	}
	tap_ok(d.n == DEVCB_MAX && d.dropped == 5, "%d starts: %d kept, %d dropped",
	       DEVCB_MAX + 5, d.n, d.dropped);
}

int main(void)
{
	recorded();
	made_up();
	return tap_done();
}

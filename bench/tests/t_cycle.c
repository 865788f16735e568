/*
 * t_cycle: the parsers that turn the guest's reports into measurements.
 *
 * Guards: trace lines recorded from a 6.1 guest become begin/end phases on
 * the trace clock; nested and repeated phases pair correctly; junk and
 * unrelated events are ignored; the kernel's "Filesystems sync" line is
 * found in /dev/kmsg records and counted; phase sums and lookups; the
 * kernel's at-risk report (the suspend_page_cache event and the debug log
 * line), and not v1's formats.
 */
#include <math.h>
#include <string.h>

#include "cycle.h"
#include "tap.h"

static const char *const mem_trace[] = {
	"           agent-38      [001] .....     3.336051: suspend_resume: suspend_enter[3] begin",
	"           agent-38      [001] .....     3.336656: suspend_resume: sync_filesystems[0] begin",
	"           agent-38      [001] .....     3.421174: suspend_resume: sync_filesystems[0] end",
	"           agent-38      [001] .....     3.427017: suspend_resume: freeze_processes[0] begin",
	"           agent-38      [001] .....     3.432440: suspend_resume: freeze_processes[0] end",
	"           agent-38      [001] .....     3.432500: suspend_resume: suspend_enter[3] end",
	"           agent-38      [001] .....     3.440000: suspend_resume: dpm_suspend[2] begin",
	"           agent-38      [001] .....     3.450000: suspend_resume: dpm_suspend[2] end",
	"           agent-38      [000] d....     3.460000: suspend_resume: machine_suspend[3] begin",
	"           agent-38      [000] d....     3.470000: suspend_resume: machine_suspend[3] end",
	"           agent-38      [001] .N...    14.682971: suspend_resume: thaw_processes[0] begin",
	"           agent-38      [000] .....    14.689586: suspend_resume: thaw_processes[0] end",
};

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

int main(void)
{
	struct cycle c;
	unsigned int i;
	int parsed = 0, phases;

	memset(&c, 0, sizeof(c));
	c.fs_sync_s = -1;
	for (i = 0; i < sizeof(mem_trace) / sizeof(mem_trace[0]); i++)
		parsed += cycle_parse_trace(&c, mem_trace[i]);
	tap_ok(parsed == 12, "every recorded trace line parses (%d/12)", parsed);
	tap_ok(c.n_phases == 6, "six begin/end pairs become six phases (%d)",
	       c.n_phases);
	tap_ok(near(cycle_phase_s(&c, "sync_filesystems"), 3.421174 - 3.336656),
	       "sync_filesystems lasts end - begin (%.6f)",
	       cycle_phase_s(&c, "sync_filesystems"));
	tap_ok(near(cycle_phase_begin(&c, "machine_suspend"), 3.46),
	       "machine_suspend begins at 3.460000");
	tap_ok(cycle_phase_count(&c, "machine_suspend") == 1,
	       "machine_suspend counted once");
	tap_ok(near(cycle_phase_end(&c, "thaw_processes") - cycle_phase_end(&c, "machine_suspend"),
		    14.689586 - 3.47), "kernel resume span: machine_suspend end to thaw end");
	tap_ok(cycle_phase_s(&c, "dpm_resume") < 0 &&
	       cycle_phase_count(&c, "dpm_resume") == 0,
	       "an absent phase reads as not measured");

	/* the outer phase closes after the inner ones: pairing is by name */
	tap_ok(near(cycle_phase_s(&c, "suspend_enter"), 3.4325 - 3.336051),
	       "enclosing suspend_enter pairs with its own end");

	/* repeated spans add up */
	cycle_parse_trace(&c, "  sh-1 [000] ..... 20.000000: suspend_resume: sync_filesystems[0] begin");
	cycle_parse_trace(&c, "  sh-1 [000] ..... 20.500000: suspend_resume: sync_filesystems[0] end");
	tap_ok(near(cycle_phase_s(&c, "sync_filesystems"), 3.421174 - 3.336656 + 0.5),
	       "two sync spans sum");
	tap_ok(cycle_phase_count(&c, "sync_filesystems") == 2, "and count twice");

	/* an end with no begin, other events, junk */
	tap_ok(!cycle_parse_trace(&c, "  sh-1 [000] ..... 21.0: suspend_resume: dpm_resume[16] end"),
	       "an end without a begin is refused");
	tap_ok(!cycle_parse_trace(&c, "  sh-1 [000] ..... 21.0: device_pm_callback_start: x"),
	       "another event is ignored");
	tap_ok(!cycle_parse_trace(&c, "# tracer: nop"), "a header line is ignored");
	tap_ok(!cycle_parse_trace(&c, "  sh-1 [000] ..... 21.0: suspend_resume: dpm_resume[16] middle"),
	       "neither begin nor end is refused");

	/* the kernel's own log line, as /dev/kmsg records */
	tap_ok(!cycle_parse_kmsg(&c, "6,207,3345539,-;PM: suspend entry (deep) ") &&
	       c.fs_sync_lines == 0, "other kmsg records are ignored");
	tap_ok(cycle_parse_kmsg(&c, "6,208,3354359,-;Filesystems sync: 3.090 seconds ") &&
	       near(c.fs_sync_s, 3.09) && c.fs_sync_lines == 1,
	       "\"Filesystems sync: 3.090 seconds\" read as 3.090 s");
	tap_ok(!cycle_parse_kmsg(&c, "6,209,1,-;Filesystems sync: lots seconds") &&
	       c.fs_sync_lines == 1, "a garbled sync line is not counted");

	/* the at-risk report (every suspend): trace event and debug log line */
	phases = c.n_phases;
	tap_ok(cycle_parse_trace(&c, "  agent-38 [001] ..... 5.1: suspend_page_cache: dirty_kb=65540 writeback_kb=12") &&
	       c.skip_events == 1 && c.skip_dirty_kb == 65540 && c.skip_writeback_kb == 12,
	       "suspend_page_cache event read: 65540 kB dirty, 12 kB writeback");
	tap_ok(c.n_phases == phases, "the event is not a phase");
	tap_ok(!cycle_parse_trace(&c, "  agent-38 [001] ..... 5.1: suspend_page_cache: dirty_kb=x") &&
	       c.skip_events == 1, "a garbled event is not counted");
	tap_ok(!cycle_parse_trace(&c, "  agent-38 [001] ..... 5.1: suspend_sync_skipped: dirty_kb=1 writeback_kb=2") &&
	       c.skip_events == 1, "v1's suspend_sync_skipped event is not taken for it");
	tap_ok(cycle_parse_kmsg(&c, "7,210,1,-;PM: Page cache not on storage: 65540 kB (dirty: 65536 kB, writeback: 4 kB)") &&
	       c.skip_lines == 1 && c.skip_line_dirty_kb == 65536 && c.skip_line_writeback_kb == 4,
	       "\"PM: Page cache not on storage\" line read: 65536 kB dirty, 4 kB writeback");
	tap_ok(!cycle_parse_kmsg(&c, "7,211,1,-;PM: Page cache not on storage: lots") &&
	       c.skip_lines == 1, "a garbled page cache line is not counted");
	tap_ok(!cycle_parse_kmsg(&c, "7,212,1,-;PM: Page cache not on storage: 9 kB (dirty: 4 kB, writeback: 4 kB)") &&
	       c.skip_lines == 1, "a total that is not dirty + writeback is not counted");
	tap_ok(!cycle_parse_kmsg(&c, "7,213,1,-;PM: Dirty page cache at risk: 65536 kB (writeback: 4 kB)") &&
	       c.skip_lines == 1, "v2's \"PM: Dirty page cache at risk\" line is not taken for it");
	tap_ok(!cycle_parse_kmsg(&c, "6,212,1,-;PM: Sync skipped: 65536 kB dirty, 0 kB writeback at risk") &&
	       c.skip_lines == 1, "v1's \"PM: Sync skipped\" line is not taken for it");
	tap_ok(c.fs_sync_lines == 1, "the at-risk line is not a \"Filesystems sync\" line");

	/* the kernel's first error: why a suspend was given up */
	tap_ok(!c.kernel_err[0], "no error kept from info and debug records");
	cycle_parse_kmsg(&c, "3,213,1,-;PM: Some devices failed to suspend, or early wake event detected");
	cycle_parse_kmsg(&c, "3,214,1,-;Freezing of tasks failed after 20.005 seconds:");
	tap_ok(!strcmp(c.kernel_err, "PM: Some devices failed to suspend, or early wake event detected"),
	       "the first error record is kept whole, later ones not (%s)", c.kernel_err);
	cycle_init(&c, "mem");
	cycle_parse_kmsg(&c, "11,215,1,-;Freezing of tasks failed after 20.005 seconds"
			 " (1 tasks refusing to freeze, wq_busy=0):");
	tap_ok(!strcmp(c.kernel_err, "Freezing of tasks failed after 20.005 seconds"
			" (1 tasks refusing to freeze, wq_busy=0)"),
	       "an error of facility 1 (level 3) is kept, without the colon of its task list");
	return tap_done();
}

/*
 * t_powercut: the power-cut oracle's arithmetic, without a guest.
 *
 * Guards: the file verdicts (missing, intact, truncated only when every
 * surviving byte is right, corrupted otherwise); the counter slack read
 * from the guest's "cpus=N threshold=T" (two counters, 4 KiB pages, garbage
 * and impossible thresholds refused); and the cross-check that a loss stays
 * within the kernel's at-risk figure plus that slack, and fails one byte
 * beyond it or when the kernel gave no figure.
 */
#include "powercut.h"
#include "tap.h"

static bool within(long long risk_kb, long long slack_kb, uint64_t lost)
{
	struct pc_record r = {
		.kernel_at_risk_kb = risk_kb, .at_risk_slack_kb = slack_kb,
		.bytes_lost = lost,
	};

	return pc_loss_within_risk(&r);
}

int main(void)
{
	tap_ok(pc_judge(100, false, 0, 0) == FV_MISSING, "judge: absent file is missing");
	tap_ok(pc_judge(100, true, 100, 100) == FV_INTACT, "judge: every byte right is intact");
	tap_ok(pc_judge(100, true, 40, 40) == FV_TRUNCATED, "judge: short and right is truncated");
	tap_ok(pc_judge(100, true, 40, 39) == FV_CORRUPTED, "judge: short with a bad byte is corrupted");
	tap_ok(pc_judge(100, true, 100, 99) == FV_CORRUPTED, "judge: full size with a bad byte is corrupted");
	tap_ok(pc_judge(100, true, 0, 0) == FV_TRUNCATED, "judge: empty file is truncated");

	tap_ok(pc_counter_slack_kb("cpus=2 threshold=16") == 256,
	       "slack: 2 CPUs, threshold 16: 256 kB");
	tap_ok(pc_counter_slack_kb("threshold=20 cpus=1") == 160,
	       "slack: keys in any order");
	tap_ok(pc_counter_slack_kb("cpus=2 threshold=0") == 0, "slack: threshold 0 is 0");
	tap_ok(pc_counter_slack_kb("cpus=2") == -1, "slack: no threshold refused");
	tap_ok(pc_counter_slack_kb("cpus=0 threshold=16") == -1, "slack: 0 CPUs refused");
	tap_ok(pc_counter_slack_kb("cpus=2 threshold=126") == -1,
	       "slack: threshold above the kernel's cap of 125 refused");
	tap_ok(pc_counter_slack_kb("cpus=x threshold=16") == -1, "slack: non-numeric refused");
	tap_ok(pc_counter_slack_kb(NULL) == -1, "slack: no output refused");

	tap_ok(within(100, 0, 102400), "bound: loss equal to the figure is within");
	tap_ok(!within(100, 0, 102401), "bound: one byte beyond the figure is not");
	tap_ok(within(100, 64, 167936), "bound: the slack is added");
	tap_ok(!within(100, 64, 167937), "bound: one byte beyond figure + slack is not");
	tap_ok(!within(100, -1, 102401), "bound: unknown slack counts as none");
	tap_ok(!within(-1, 64, 0), "bound: no kernel figure, no bound");
	return tap_done();
}

/* The power-cut oracle's verdicts and arithmetic: pure, no guest needed. */
#include "powercut.h"

#include "agent_proto.h"

static const char *const cut_names[CUT__COUNT] = {
	[CUT_REQUEST] = "request", [CUT_SYNC] = "sync", [CUT_SUSPENDED] = "suspended",
};
static const char *const fv_names[] = {
	[FV_INTACT] = "intact", [FV_MISSING] = "missing",
	[FV_TRUNCATED] = "truncated", [FV_CORRUPTED] = "corrupted",
	[FV_NOT_JUDGED] = "not-judged",
};

const char *cut_name(enum cut_point c)
{
	return c < CUT__COUNT ? cut_names[c] : "?";
}

const char *file_verdict_name(enum file_verdict v)
{
	return v <= FV_NOT_JUDGED ? fv_names[v] : "?";
}

enum file_verdict pc_judge(uint64_t want, bool exists, uint64_t actual,
			   uint64_t good)
{
	if (!exists)
		return FV_MISSING;
	if (actual == want && good == want)
		return FV_INTACT;
	/* a short file whose every byte is right lost only its tail */
	if (actual < want && good == actual)
		return FV_TRUNCATED;
	return FV_CORRUPTED;
}

long long pc_counter_slack_kb(const char *out)
{
	long long cpus, thr;

	if (!out || !agent_kv_ll(out, "cpus", &cpus) ||
	    !agent_kv_ll(out, "threshold", &thr) || cpus < 1 || thr < 0 ||
	    cpus > 8192 || thr > 125)	/* 125: the kernel's cap on a threshold */
		return -1;
	return 2 * cpus * thr * 4;	/* two counters, 4 KiB pages */
}

bool pc_loss_within_risk(const struct pc_record *r)
{
	long long slack = r->at_risk_slack_kb > 0 ? r->at_risk_slack_kb : 0;

	return r->kernel_at_risk_kb >= 0 &&
	       r->bytes_lost <= (uint64_t)(r->kernel_at_risk_kb + slack) * 1024;
}

/* The power-cut oracle's verdicts and arithmetic: pure, no guest needed. */
#include "powercut.h"

#include <stdio.h>
#include <string.h>

#include "agent_proto.h"

static const char *const cut_names[CUT__COUNT] = {
	[CUT_REQUEST] = "request", [CUT_SYNC] = "sync", [CUT_SUSPENDED] = "suspended",
};
static const char *const fv_names[FV__COUNT] = {
	[FV_INTACT] = "intact", [FV_MISSING] = "missing",
	[FV_TRUNCATED] = "truncated", [FV_CORRUPTED] = "corrupted",
	[FV_NOT_REGULAR] = "not-regular", [FV_UNREADABLE] = "unreadable",
	[FV_NOT_JUDGED] = "not-judged",
};

const char *cut_name(enum cut_point c)
{
	return c < CUT__COUNT ? cut_names[c] : "?";
}

const char *file_verdict_name(enum file_verdict v)
{
	return v < FV__COUNT ? fv_names[v] : "?";
}

enum file_verdict pc_judge(struct pc_file *f, const char *type)
{
	if (!strcmp(type, "none")) {
		f->actual = f->good = f->first_bad = 0;
		f->lost = f->size;
		return f->v = FV_MISSING;
	}
	if (strcmp(type, "reg")) {
		f->good = f->first_bad = 0;
		f->lost = f->size;
		return f->v = FV_NOT_REGULAR;
	}
	if (f->good > f->size)
		f->good = f->size;	/* VERIFY never counts past the expected size */
	f->lost = f->size - f->good + (f->actual > f->size ? f->actual - f->size : 0);
	if (f->actual == f->size && f->good == f->size)
		return f->v = FV_INTACT;
	/* a short file whose every byte is right lost only its tail */
	if (f->actual < f->size && f->good == f->actual && f->first_bad == f->actual)
		return f->v = FV_TRUNCATED;
	return f->v = FV_CORRUPTED;
}

void pc_judge_unreadable(struct pc_file *f)
{
	f->actual = f->good = f->first_bad = 0;
	f->lost = f->size;
	f->v = FV_UNREADABLE;
}

void pc_judge_unmountable(struct pc_record *r)
{
	for (int i = 0; i < r->n_files; i++)
		pc_judge_unreadable(&r->files[i]);
}

void pc_tally(struct pc_record *r)
{
	memset(r->n, 0, sizeof(r->n));
	r->bytes_lost = r->dataset_bytes = 0;
	r->fsync_intact = true;
	for (int i = 0; i < r->n_files; i++) {
		const struct pc_file *f = &r->files[i];
		bool readable = f->v != FV_MISSING && f->v != FV_NOT_REGULAR &&
				f->v != FV_UNREADABLE && f->v != FV_NOT_JUDGED;

		r->n[f->v < FV__COUNT ? f->v : FV_NOT_JUDGED]++;
		r->bytes_lost += f->lost;
		r->dataset_bytes += f->size;
		if (f->durable && (!readable || f->first_bad < f->durable))
			r->fsync_intact = false;
	}
}

/* The dataset made this path: a file of the manifest, or a directory
 * above one. */
static bool expected(const struct pc_record *r, const char *path)
{
	size_t len = strlen(path);

	if (!strcmp(path, "lost+found"))
		return true;
	for (int i = 0; i < r->n_files; i++) {
		const char *p = r->files[i].path;

		if (!strcmp(p, path) || (!strncmp(p, path, len) && p[len] == '/'))
			return true;
	}
	return false;
}

bool pc_check_entry(struct pc_record *r, const char *type, const char *path)
{
	(void)type;	/* a wrong type at an expected path is VERIFY's finding */
	if (expected(r, path))
		return false;
	if (r->n_unexpected < PC_MAX_UNEXPECTED)
		snprintf(r->unexpected[r->n_unexpected], sizeof(r->unexpected[0]),
			 "%s", path);
	r->n_unexpected++;
	return true;
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

long long pc_kernel_at_risk_kb(const char *line)
{
	const char *p = line ? strstr(line, "PM: Page cache not on storage: ") : NULL;
	long long t, d, w;

	/* dirty and under writeback alike: a cut loses both */
	if (!p || sscanf(p, "PM: Page cache not on storage: %lld kB (dirty: %lld kB, "
			 "writeback: %lld kB", &t, &d, &w) != 3 || d < 0 || w < 0 || t != d + w)
		return -1;
	return t;
}

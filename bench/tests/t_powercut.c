/*
 * t_powercut: the power-cut oracle, without a guest.
 *
 * Guards, each a blind spot the oracle once had:
 * - a file longer than written is corrupted, and every byte beyond the
 *   expected size counts as lost;
 * - a symlink (or any non-regular file) in a file's place is not-regular
 *   and all of it lost, however right the bytes it points to;
 * - an unmountable filesystem loses the whole dataset, fsync'd data too;
 * - the fsync'd head of an appended file is checked: cut below it and
 *   "fsync'd data intact" is false;
 * - entries the dataset never made (a rename's old name) are flagged;
 * - a zeroed range never counts the pattern's own zero bytes as good
 *   (pattern_judge, the agent's VERIFY);
 * - the counter slack, the loss bound one byte either side, and the
 *   kernel's "Dirty page cache at risk" line parsed (writeback apart) or
 *   refused.
 */
#include <string.h>

#include "pattern.h"
#include "powercut.h"
#include "tap.h"

#define KIB 1024ULL

static struct pc_file file(uint64_t size, uint64_t durable)
{
	struct pc_file f = { .path = "pc/f.bin", .kind = "new", .seed = 42,
			     .size = size, .durable = durable };

	return f;
}

/* VERIFY's findings for a file of size actual whose bytes from bad_from on
 * are wrong (bad_from >= actual: all right). */
static struct pc_file seen(uint64_t size, uint64_t durable, uint64_t actual,
			   uint64_t bad_from)
{
	struct pc_file f = file(size, durable);
	uint64_t ok = actual < size ? actual : size;

	if (bad_from < ok)
		ok = bad_from;
	f.actual = actual;
	f.good = ok;
	f.first_bad = ok;
	return f;
}

/* The same findings, in place. */
static void observe(struct pc_file *f, uint64_t actual, uint64_t bad_from)
{
	struct pc_file s = seen(f->size, f->durable, actual, bad_from);

	f->actual = s.actual;
	f->good = s.good;
	f->first_bad = s.first_bad;
}

static void test_judge(void)
{
	struct pc_file f;

	f = file(100, 0);
	tap_ok(pc_judge(&f, "none") == FV_MISSING && f.lost == 100,
	       "judge: absent file is missing, all lost");
	f = seen(100, 0, 100, 100);
	tap_ok(pc_judge(&f, "reg") == FV_INTACT && f.lost == 0, "judge: every byte right is intact");
	f = seen(100, 0, 40, 100);
	tap_ok(pc_judge(&f, "reg") == FV_TRUNCATED && f.lost == 60,
	       "judge: short and right is truncated, the tail lost");
	f = seen(100, 0, 40, 32);
	tap_ok(pc_judge(&f, "reg") == FV_CORRUPTED && f.lost == 68,
	       "judge: short with bad bytes is corrupted");
	f = seen(100, 0, 100, 96);
	tap_ok(pc_judge(&f, "reg") == FV_CORRUPTED && f.lost == 4,
	       "judge: full size with a bad word is corrupted");
	f = seen(100, 0, 164, 200);
	tap_ok(pc_judge(&f, "reg") == FV_CORRUPTED && f.lost == 64,
	       "judge: 64 bytes longer than written is corrupted, 64 lost (%llu)",
	       (unsigned long long)f.lost);
	f = seen(100, 0, 100, 100);
	tap_ok(pc_judge(&f, "lnk") == FV_NOT_REGULAR && f.lost == 100,
	       "judge: a symlink in its place is not-regular, all lost");
	f = seen(100, 0, 100, 100);
	tap_ok(pc_judge(&f, "dir") == FV_NOT_REGULAR, "judge: a directory in its place too");
}

static void test_record(void)
{
	struct pc_record r = { 0 };
	struct pc_opts o = { .big_bytes = 4 << 20, .seed = 1 };

	pc_plan(&o, 0, &r);
	for (int i = 0; i < r.n_files; i++) {
		struct pc_file *f = &r.files[i];

		observe(f, f->size, f->size);
		pc_judge(f, "reg");
	}
	pc_tally(&r);
	tap_ok(r.bytes_lost == 0 && r.fsync_intact && r.n[FV_INTACT] == r.n_files,
	       "tally: all intact, nothing lost, fsync'd intact");

	for (int i = 0; i < r.n_files; i++)
		if (!strcmp(r.files[i].kind, "append")) {
			struct pc_file *f = &r.files[i];

			tap_ok(f->durable == 256 * KIB, "plan: append.log's first 256 KiB are fsync'd");
			observe(f, 100 * KIB, f->size);
			pc_judge(f, "reg");
		}
	pc_tally(&r);
	tap_ok(!r.fsync_intact, "tally: append.log cut to 100 KiB, fsync'd data NOT intact");

	pc_judge_unmountable(&r);
	pc_tally(&r);
	tap_ok(r.bytes_lost == r.dataset_bytes && r.bytes_lost > 0 && !r.fsync_intact &&
	       r.n[FV_UNREADABLE] == r.n_files,
	       "unmountable: the whole dataset (%llu bytes) lost, fsync'd lost",
	       (unsigned long long)r.dataset_bytes);

	tap_ok(!pc_check_entry(&r, "dir", "pc") && !pc_check_entry(&r, "dir", "pc/newdir") &&
	       !pc_check_entry(&r, "reg", "pc/renamed.bin") &&
	       !pc_check_entry(&r, "dir", "lost+found"),
	       "entries: the dataset's files and directories are expected");
	tap_ok(pc_check_entry(&r, "reg", "pc/tmp.name") && r.n_unexpected == 1 &&
	       !strcmp(r.unexpected[0], "pc/tmp.name"),
	       "entries: the rename's old name is flagged");
	tap_ok(pc_check_entry(&r, "reg", "pc/newdir.bin") && r.n_unexpected == 2,
	       "entries: a name that only starts like a directory is flagged");
}

static void test_pattern(void)
{
	unsigned char buf[4096], want[4096];
	size_t fb, good;

	pattern_fill(7, 0, buf, sizeof(buf));
	good = pattern_judge(7, 0, buf, sizeof(buf), sizeof(buf), want, &fb);
	tap_ok(good == sizeof(buf) && fb == sizeof(buf), "pattern: intact block all good");
	memset(buf + 1024, 0, 1024);
	good = pattern_judge(7, 0, buf, sizeof(buf), sizeof(buf), want, &fb);
	tap_ok(good == sizeof(buf) - 1024 && fb == 1024,
	       "pattern: a zeroed KiB counts 1024 lost, none of the pattern's zero bytes good (good %zu)",
	       good);
	pattern_fill(7, 0, buf, sizeof(buf));
	good = pattern_judge(7, 0, buf, 100, sizeof(buf), want, &fb);
	tap_ok(good == 100 && fb == 100, "pattern: a file ending mid-word keeps its right bytes");
	buf[5] ^= 1;
	good = pattern_judge(7, 0, buf, sizeof(buf), sizeof(buf), want, &fb);
	tap_ok(good == sizeof(buf) - 8 && fb == 0, "pattern: one flipped byte loses its word");
}

static bool within(long long risk_kb, long long slack_kb, uint64_t lost)
{
	struct pc_record r = {
		.kernel_at_risk_kb = risk_kb, .at_risk_slack_kb = slack_kb,
		.bytes_lost = lost,
	};

	return pc_loss_within_risk(&r);
}

static void test_bound(void)
{
	tap_ok(pc_counter_slack_kb("cpus=2 threshold=16") == 256,
	       "slack: 2 CPUs, threshold 16: 256 kB");
	tap_ok(pc_counter_slack_kb("threshold=20 cpus=1") == 160, "slack: keys in any order");
	tap_ok(pc_counter_slack_kb("cpus=2 threshold=0") == 0, "slack: threshold 0 is 0");
	tap_ok(pc_counter_slack_kb("cpus=2") == -1, "slack: no threshold refused");
	tap_ok(pc_counter_slack_kb("cpus=0 threshold=16") == -1, "slack: 0 CPUs refused");
	tap_ok(pc_counter_slack_kb("cpus=2 threshold=126") == -1,
	       "slack: threshold above the kernel's cap of 125 refused");
	tap_ok(pc_counter_slack_kb("cpus=x threshold=16") == -1, "slack: non-numeric refused");
	tap_ok(pc_counter_slack_kb("cpus=+2 threshold=16") == -1, "slack: a signed number refused");
	tap_ok(pc_counter_slack_kb(NULL) == -1, "slack: no output refused");

	tap_ok(within(100, 0, 102400), "bound: loss equal to the figure is within");
	tap_ok(!within(100, 0, 102401), "bound: one byte beyond the figure is not");
	tap_ok(within(100, 64, 167936), "bound: the slack is added");
	tap_ok(!within(100, 64, 167937), "bound: one byte beyond figure + slack is not");
	tap_ok(!within(100, -1, 102401), "bound: unknown slack counts as none");
	tap_ok(!within(-1, 64, 0), "bound: no kernel figure, no bound");

	tap_ok(pc_kernel_at_risk_kb("[ 12.3] PM: Page cache not on storage: 65540 kB (dirty: 65536 kB, writeback: 4 kB)") == 65540,
	       "kernel line: dirty and writeback, both at risk");
	tap_ok(pc_kernel_at_risk_kb("PM: Page cache not on storage: 65536 kB (dirty: 65536 kB, writeback: 4 kB)") == -1,
	       "kernel line: a total that is not dirty + writeback refused");
	tap_ok(pc_kernel_at_risk_kb("PM: Dirty page cache at risk: 65536 kB (writeback: 4 kB)") == -1,
	       "kernel line: v2's line, which left writeback out, refused");
	tap_ok(pc_kernel_at_risk_kb("PM: Syncing filesystems ... done.") == -1,
	       "kernel line: another line refused");
	tap_ok(pc_kernel_at_risk_kb("PM: Page cache not on storage: -5 kB (dirty: -5 kB, writeback: 0 kB)") == -1,
	       "kernel line: a negative figure refused");
}

int main(void)
{
	test_judge();
	test_record();
	test_pattern();
	test_bound();
	return tap_done();
}

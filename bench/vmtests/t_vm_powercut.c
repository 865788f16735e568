/*
 * t_vm_powercut: battery death while suspended, judged byte by byte.
 *
 * Guards: with suspend_sync=1 a cut while suspended loses nothing (10 mem
 * cuts, 2 freeze cuts); with suspend_sync=0 the loss is found and reported,
 * never exceeds what the kernel said was at risk (plus how far the per-CPU
 * vmstat counters may lag, read from the guest), and the fsync'd control
 * file survives; a cut during the sync keeps fsync'd data and a clean
 * filesystem; the filesystem is clean (e2fsck -fn) after every cut; and a
 * tampered manifest or a corrupted image is caught, which proves the oracle
 * can fail.
 *
 * Environment: KERNEL, INITRD, TOOLS_DISK; PC_MEM_CUTS overrides the 10
 * (make check sets 5, check-full 10).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "powercut.h"
#include "tap.h"
#include "vmtest.h"

static struct pc_opts base;
static int idx;

static bool cycle(const char *state, int sync, enum cut_point cut,
		  enum pc_tamper tamper, struct pc_record *r)
{
	struct pc_opts o = base;

	o.state = state;
	o.sync = sync;
	o.cut = cut;
	o.tamper = tamper;
	pc_cycle(&o, idx++, r, NULL);
	return tap_ok(r->verdict == VERDICT_OK && r->cut_by_sigkill && r->judged,
		      "%s sync=%d cut=%s%s: cut by SIGKILL and judged (%s)", state,
		      sync, cut_name(cut), tamper ? " (tampered)" : "",
		      verdict_name(r->verdict));
}

static void healthy(const struct pc_record *r, const char *what)
{
	tap_ok(r->fs_clean, "%s: filesystem clean after the cut", what);
	tap_ok(r->fsync_intact, "%s: fsync'd control file intact", what);
}

int main(void)
{
	char dir[] = "/tmp/t_vm_powercut.XXXXXX";
	const char *n = getenv("PC_MEM_CUTS");
	int mem_cuts = n ? atoi(n) : 10;
	struct pc_record r;
	char what[64];

	base = (struct pc_opts){
		.cut_offset_ms = -1, .cycles = 1, .big_bytes = 4 << 20, .seed = 7,
	};
	if (!vmtest_lab_opts(&base.hx, dir, "power cuts"))
		return tap_done();

	for (int i = 0; i < mem_cuts; i++) {
		snprintf(what, sizeof(what), "mem sync=1 suspended #%d", i + 1);
		if (!cycle("mem", 1, CUT_SUSPENDED, TAMPER_NONE, &r))
			continue;
		tap_ok(r.bytes_lost == 0 && r.n[FV_INTACT] == r.n_files,
		       "%s: 0 of %llu bytes lost, %d/%d files intact", what,
		       (unsigned long long)r.bytes_written, r.n[FV_INTACT], r.n_files);
		healthy(&r, what);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(what, sizeof(what), "freeze sync=1 suspended #%d", i + 1);
		if (!cycle("freeze", 1, CUT_SUSPENDED, TAMPER_NONE, &r))
			continue;
		tap_ok(r.bytes_lost == 0, "%s: 0 bytes lost (%llu)", what,
		       (unsigned long long)r.bytes_lost);
		healthy(&r, what);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(what, sizeof(what), "mem sync=0 suspended #%d", i + 1);
		if (!cycle("mem", 0, CUT_SUSPENDED, TAMPER_NONE, &r))
			continue;
		tap_ok(r.bytes_lost > 0 && r.n[FV_INTACT] < r.n_files,
		       "%s: loss detected, %llu bytes in %d files", what,
		       (unsigned long long)r.bytes_lost, r.n_files - r.n[FV_INTACT]);
		healthy(&r, what);
		if (r.kernel_at_risk_kb >= 0)
			tap_ok(r.at_risk_slack_kb >= 0 && pc_loss_within_risk(&r),
			       "%s: lost %llu bytes <= kernel's at-risk %lld kB + counter slack %lld kB",
			       what, (unsigned long long)r.bytes_lost, r.kernel_at_risk_kb,
			       r.at_risk_slack_kb);
		else
			tap_skip("kernel has no at-risk report", "%s: loss bounded", what);
	}
	for (int i = 0; i < 2; i++) {
		snprintf(what, sizeof(what), "mem sync=1 during sync #%d", i + 1);
		if (!cycle("mem", 1, CUT_SYNC, TAMPER_NONE, &r))
			continue;
		tap_diag("%s: cut %d ms after the request, %llu bytes lost", what,
			 r.cut_offset_ms, (unsigned long long)r.bytes_lost);
		healthy(&r, what);
	}
	if (cycle("mem", 1, CUT_SUSPENDED, TAMPER_MANIFEST, &r))
		tap_ok(r.n[FV_CORRUPTED] + r.n[FV_MISSING] >= 1,
		       "tampered manifest: the oracle reports %d corrupted/missing file(s)",
		       r.n[FV_CORRUPTED] + r.n[FV_MISSING]);
	if (cycle("mem", 1, CUT_SUSPENDED, TAMPER_IMAGE, &r))
		tap_ok(r.n[FV_CORRUPTED] >= 1 && !r.fsync_intact,
		       "corrupted image: the control file is found corrupted (%d corrupted)",
		       r.n[FV_CORRUPTED]);
	rmdir(dir);
	return tap_done();
}

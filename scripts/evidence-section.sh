#!/bin/bash
# Prints the evidence section from the JSON that scripts/evidence.sh made.
# Usage: scripts/evidence-section.sh OUTDIR CYCLES CUTS WB_CYCLES SD_CUTS
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1 cycles=$2 cuts=$3 wbcycles=$4 sdcuts=$5
KVER=${KVER:-6.1}
profiles="nvme sata hdd emmc sd"
fp=$(KVER=$KVER "$top/scripts/fingerprint.sh")
j=$out/emmc/latency.json
{
	echo "Evidence (make evidence; $(jq -r .provenance.date "$j"))"
	echo "kernel $(jq -r .provenance.kernel_release "$j") with this series, QEMU $(jq -r .provenance.qemu_version "$j") (TCG),"
	echo "SeaBIOS/i440fx, state mem (S3)."
	echo
	echo "Realistic writeback: the kernel's own vm.dirty_* settings; each workload"
	echo "writes up to 64 MiB (fsync-log stops after 10 s, mixed runs 10 s), and"
	echo "the suspend is requested at a seeded moment within 10 s of its start;"
	echo "$wbcycles cycles per workload and setting, per profile:"
	echo
	printf '  %-5s %-10s %-4s %5s %7s %7s %7s %7s %7s %7s %6s %4s %5s\n' \
		disk workload sync ok min med p95 max susp "sync" writes fl "m/p"
	for p in emmc sd; do
		jq -rf "$top/scripts/evidence-workloads.jq" --arg p "$p" "$out/default-$p/latency.json"
	done | while IFS=$'\t' read -r p w s ok a b c d su sy wr fl mp; do
		printf '  %-5s %-10s %-4s %5s %7s %7s %7s %7s %7s %7s %6s %4s %5s\n' \
			"$p" "$w" "$s" "$ok" "$a" "$b" "$c" "$d" "$su" "$sy" "$wr" "$fl" "$mp"
	done
	echo
	echo "  ok: cycles OK of all; min..max: kB dirty at the request (p95: nearest"
	echo "  rank), what a cut while suspended loses with the sync off; susp: median"
	echo "  suspend latency, request to S3, ms; sync: median sync phase, ms, and"
	echo "  the device's writes, fl(ushes) and m/p (measured over the physical"
	echo "  model's prediction) during it.  emmc: 20 MiB/s, 2000 IOPS, 10 ms"
	echo "  flushes, volatile cache; sd: 10 MiB/s, 300 IOPS, no cache.  The"
	echo "  sync's own requests come from the drive model's log.  m/p is - where"
	echo "  the model predicts no device time: a few writes inside the throttle's"
	echo "  first tenth of a second and no flush (fsync-log on sd, whose own"
	echo "  fdatasync left the sync little to write); that sync is the guest's CPU"
	echo "  time under TCG.  The same CPU time sits beside one or two 10 ms"
	echo "  flushes on emmc, so m/p of a short sync is above 1.  virtio-blk offers"
	echo "  Linux no FUA, so a FUA write (btrfs's superblock) is a write and a"
	echo "  flush, and the model charges the flush."
	echo
	echo "The upper bound, held writeback (everything written is still dirty at"
	echo "the request), medians of $cycles cycles per point.  Suspend latency,"
	echo "request to S3, in ms; saved = sync on - sync off:"
	echo
	printf '  %-8s %6s %9s %9s %9s %10s\n' profile dirty "sync on" "sync off" saved "sync/floor"
	for p in $profiles; do
		jq -r --arg p "$p" '
			# a configuration whose cycles all failed has no median
			def ms: if . == null then "-" else . * 1000 | round end;
			[ .summary[] | select(.state == "mem") ] as $s
			| [ $s[] | .dirty_target_bytes ] | unique[] as $d
			| ($s[] | select(.sync == 1 and .dirty_target_bytes == $d)) as $on
			| ($s[] | select(.sync == 0 and .dirty_target_bytes == $d)) as $off
			| [ $p, ($d / 1048576 | floor | tostring) + "M",
			    ($on.suspend_latency_s.median | ms),
			    ($off.suspend_latency_s.median | ms),
			    (if $on.suspend_latency_s.median == null or $off.suspend_latency_s.median == null
			     then "-" else ($on.suspend_latency_s.median - $off.suspend_latency_s.median) | ms end),
			    (if $on.sync_over_floor.median == null then "-"
			     else ($on.sync_over_floor.median * 100 | round / 100 | tostring) end) ]
			| @tsv' "$out/$p/latency.json"
	done | while IFS=$'\t' read -r p d on off saved ratio; do
		printf '  %-8s %6s %9s %9s %9s %10s\n' "$p" "$d" "$on" "$off" "$saved" "$ratio"
	done
	echo
	echo "  sync/floor: the sync phase over dirty bytes / fio's sequential write"
	echo "  bandwidth on the same throttled disk (1.0 = the disk's own limit)."
	echo
	echo "Cycles of the two tables above that did not complete, with the lab's"
	echo "verdict and reason:"
	failed=$(for d in default-emmc default-sd $profiles; do
		jq -r --arg d "$d" '.cycles[] | select(.verdict != "OK")
			| "  \($d) \(.workload) sync=\(.sync) \(.dirty_target_bytes / 1048576 | floor)M"
			  + " cycle \(.cycle): \(.verdict) (\(.why))"' "$out/$d/latency.json"
	done)
	echo "${failed:-  none}"
	echo
	echo "Power cuts (SIGKILL of nbdkit and QEMU), then a reboot on the same disk:"
	echo "emmc (volatile cache, flushes) at request, during sync or while"
	echo "suspended, rotating, $cuts per setting; sd (no cache) while suspended,"
	echo "$sdcuts per setting:"
	echo
	printf '  %-4s %-6s %-9s %4s %11s %11s %11s %8s %8s %5s %5s\n' disk setting cut cuts written "at risk" lost "fsync ok" "fs clean" corr unmnt
	for r in emmc:powercut sd:powercut-sd; do
		jq -r --arg d "${r%%:*}" '.summary[] | select(.cut != "all")
			| [ $d, "sync=\(.sync)", .cut, .cuts, .written_bytes, .dirty_at_cut_bytes,
			    .lost_bytes, "\(.fsync_intact)/\(.judged)", "\(.fs_clean)/\(.judged)",
			    .files_corrupted, .unmountable ] | @tsv' "$out/${r#*:}/powercut.json" |
		sort -t$'\t' -k2,2r -s
	done |
	while IFS=$'\t' read -r d s c n w r l f k x u; do
		printf '  %-4s %-6s %-9s %4s %11s %11s %11s %8s %8s %5s %5s\n' "$d" "$s" "$c" "$n" "$w" "$r" "$l" "$f" "$k" "$x" "$u"
	done
	echo
	echo "  sums in bytes; at risk = Dirty in /proc/meminfo at the suspend request;"
	echo "  corr = files found corrupted, unmnt = cuts whose filesystem did not mount"
	echo "  (each loses the whole dataset)."
	for r in emmc:powercut sd:powercut-sd; do
		jq -r --arg d "${r%%:*}" '.summary[] | select(.sync == 0 and .cut == "all")
			| "  \($d), sync off: the kernel reported its at-risk figure in"
			  + " \(.kernel_figures) cuts; the bytes\n  lost stayed within it in"
			  + " \(.loss_within_figure), and within it plus the slack of its"
			  + "\n  per-CPU counters (up to \(.max_slack_kb) kB) in"
			  + " \(.loss_within_figure_and_slack)."' "$out/${r#*:}/powercut.json"
	done
	if [ -n "${EVIDENCE_FS:-}" ]; then
		"$top/scripts/evidence-fs.sh" "$out" $EVIDENCE_FS
	else
		echo
		echo "The other filesystems (xfs, btrfs, f2fs) were not measured on this"
		echo "tree (EVIDENCE_FS empty); the 6.1 evidence has them."
	fi
	echo
	echo "Plot: docs/evidence-$KVER-latency-emmc.svg.  Regenerate: make evidence"
	echo "KVER=$KVER (${EVIDENCE_MIN:-?} min here)."
	echo "fingerprint: $fp"
}


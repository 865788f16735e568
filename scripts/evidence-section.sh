#!/bin/bash
# Prints the evidence section from the JSON that scripts/evidence.sh made.
# Usage: scripts/evidence-section.sh OUTDIR CYCLES CUTS
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1 cycles=$2 cuts=$3
KVER=${KVER:-6.1}
profiles="nvme sata hdd emmc sd"
fp=$(KVER=$KVER "$top/scripts/fingerprint.sh")
j=$out/emmc/latency.json
{
	echo "Evidence (make evidence; $(jq -r .provenance.date "$j"))"
	echo "kernel $(jq -r .provenance.kernel_release "$j") with this series, QEMU $(jq -r .provenance.qemu_version "$j") (TCG),"
	echo "SeaBIOS/i440fx, state mem (S3), medians of $cycles cycles per point."
	echo
	echo "Suspend latency, request to S3, in ms; saved = sync on - sync off:"
	echo
	printf '  %-8s %6s %9s %9s %9s %10s\n' profile dirty "sync on" "sync off" saved "sync/floor"
	for p in $profiles; do
		jq -r --arg p "$p" '
			[ .summary[] | select(.state == "mem") ] as $s
			| [ $s[] | .dirty_target_bytes ] | unique[] as $d
			| ($s[] | select(.sync == 1 and .dirty_target_bytes == $d)) as $on
			| ($s[] | select(.sync == 0 and .dirty_target_bytes == $d)) as $off
			| [ $p, ($d / 1048576 | floor | tostring) + "M",
			    ($on.suspend_latency_s.median * 1000 | round),
			    ($off.suspend_latency_s.median * 1000 | round),
			    (($on.suspend_latency_s.median - $off.suspend_latency_s.median) * 1000 | round),
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
	echo "Power cuts (SIGKILL of QEMU) at request, during sync or while suspended,"
	echo "rotating, eMMC profile, $cuts per setting, then a reboot on the same disk:"
	echo
	printf '  %-6s %-9s %4s %11s %11s %11s %8s %8s %5s %5s\n' setting cut cuts written "at risk" lost "fsync ok" "fs clean" corr unmnt
	jq -r '.summary[] | select(.cut != "all")
		| [ "sync=\(.sync)", .cut, .cuts, .written_bytes, .dirty_at_cut_bytes,
		    .lost_bytes, "\(.fsync_intact)/\(.judged)", "\(.fs_clean)/\(.judged)",
		    .files_corrupted, .unmountable ] | @tsv' "$out/powercut/powercut.json" |
	sort -t$'\t' -k1,1r -s |
	while IFS=$'\t' read -r s c n w r l f k x u; do
		printf '  %-6s %-9s %4s %11s %11s %11s %8s %8s %5s %5s\n' "$s" "$c" "$n" "$w" "$r" "$l" "$f" "$k" "$x" "$u"
	done
	echo
	echo "  sums in bytes; at risk = Dirty in /proc/meminfo at the suspend request;"
	echo "  corr = files found corrupted, unmnt = cuts whose filesystem did not mount"
	echo "  (each loses the whole dataset)."
	jq -r '.summary[] | select(.sync == 0 and .cut == "all")
		| "  With the sync off, the kernel reported its at-risk figure in \(.kernel_figures)"
		  + " cuts;\n  the bytes lost stayed within it in \(.loss_within_figure)"
		  + " of them, and within it plus\n  the slack of its per-CPU counters"
		  + " (up to \(.max_slack_kb) kB) in \(.loss_within_figure_and_slack)."' "$out/powercut/powercut.json"
	echo
	echo "Plot: docs/evidence-$KVER-latency-emmc.svg.  Regenerate: make evidence"
	echo "KVER=$KVER (${EVIDENCE_MIN:-?} min here)."
	echo "fingerprint: $fp"
}


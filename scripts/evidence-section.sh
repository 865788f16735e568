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
	printf '  %-6s %-9s %4s %11s %11s %11s %8s %8s\n' setting cut cuts written "at risk" lost "fsync ok" "fs clean"
	for s in 1 0; do
		for cut in request sync suspended; do
			jq -r --argjson s "$s" --arg cut "$cut" '
				[ .cycles[] | select(.sync == $s and .cut == $cut) ] as $c
				| [ $c[] | select(.verdict == "OK" or .verdict == "FsUnmountable") ] as $j
				| select(($c | length) > 0)
				| [ "sync=\($s)", $cut, ($c | length),
				    ([ $j[].written_bytes ] | add // 0),
				    ([ $j[].dirty_at_cut_kb * 1024 ] | add // 0),
				    ([ $j[].lost_bytes ] | add // 0),
				    "\([ $j[] | select(.fsync_intact) ] | length)/\($j | length)",
				    "\([ $j[] | select(.fs_clean) ] | length)/\($j | length)" ]
				| @tsv' "$out/powercut/powercut.json"
		done
	done | while IFS=$'\t' read -r s c n w r l f k; do
		printf '  %-6s %-9s %4s %11s %11s %11s %8s %8s\n' "$s" "$c" "$n" "$w" "$r" "$l" "$f" "$k"
	done
	echo
	echo "  sums in bytes; at risk = Dirty in /proc/meminfo at the suspend request."
	jq -r '[ .cycles[] | select(.sync == 0 and .kernel_at_risk_kb != null) ] as $k
		| "  With the sync off, the kernel reported its at-risk figure in \($k | length)"
		  + " cuts;\n  the bytes lost stayed within it in"
		  + " \([ $k[] | select(.lost_bytes <= .kernel_at_risk_kb * 1024) ] | length)"
		  + " of them, and within it plus\n  the slack of its per-CPU counters"
		  + " (up to \([ $k[].at_risk_slack_kb // 0 ] | max) kB) in"
		  + " \([ $k[] | select(.loss_within_risk) ] | length)."' "$out/powercut/powercut.json"
	echo
	echo "Plot: docs/evidence-$KVER-latency-emmc.svg.  Regenerate: make evidence"
	echo "KVER=$KVER (${EVIDENCE_MIN:-?} min here)."
	echo "fingerprint: $fp"
}


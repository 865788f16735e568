#!/bin/bash
# The evidence section's part on the filesystems beside ext4, from the JSON
# scripts/evidence.sh made (fs-FS-PROFILE, pc-FS, cs-FS).  It only formats:
# every figure is one of the lab's, power-cut's or crash-states' own.
# Usage: scripts/evidence-fs.sh OUTDIR FS...
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$1
shift
row='  %-5s %-5s %-10s %-4s %5s %7s %7s %7s %7s\n'
echo
echo "The other filesystems, smaller runs: ext4 above, then $*.  Realistic"
echo "writeback as above, one cycle per workload and setting:"
echo
printf "$row" fs disk workload sync ok susp "sync" fl "m/p"
for fs in "$@"; do
	for p in emmc sd; do
		j=$out/fs-$fs-$p/latency.json
		[ -s "$j" ] || { printf '  %-5s %-5s (no results)\n' "$fs" "$p"; continue; }
		jq -rf "$top/scripts/evidence-workloads.jq" --arg p "$p" "$j" |
		while IFS=$'\t' read -r p w s ok a b c d su sy wr fl mp; do
			printf "$row" "$fs" "$p" "$w" "$s" "$ok" "$su" "$sy" "$fl" "$mp"
		done
	done
done
failed=$(for fs in "$@"; do for p in emmc sd; do
	j=$out/fs-$fs-$p/latency.json
	[ -s "$j" ] || continue
	jq -r --arg d "$fs $p" '.cycles[] | select(.verdict != "OK")
		| "  \($d) \(.workload) sync=\(.sync): \(.verdict) (\(.why))"' "$j"
done; done)
echo
echo "  as the first table: susp and sync in ms, fl(ushes) and m/p of the sync."
echo "  Cycles that did not complete:"
echo "${failed:-  none}"
echo
echo "Power cuts while suspended, emmc, then a reboot and the filesystem's own"
echo "checker on the host's copy of the disk:"
echo
prow='  %-5s %-6s %4s %11s %11s %11s %8s %8s %5s %5s\n'
printf "$prow" fs setting cuts "at risk" lost "figure" "fsync ok" "fs clean" corr unmnt
for fs in "$@"; do
	j=$out/pc-$fs/powercut.json
	[ -s "$j" ] || { printf '  %-5s (no results)\n' "$fs"; continue; }
	jq -r --arg fs "$fs" '.summary[] | select(.cut == "suspended")
		| [ $fs, "sync=\(.sync)", .cuts, .dirty_at_cut_bytes, .lost_bytes,
		    (if .sync == 0 then "\(.loss_within_figure_and_slack)/\(.kernel_figures)"
		     else "-" end),
		    "\(.fsync_intact)/\(.judged)", "\(.fs_clean)/\(.judged)",
		    .files_corrupted, .unmountable ] | @tsv' "$j" | sort -t$'\t' -k2,2r -s |
	while IFS=$'\t' read -r f s n r l w i k x u; do
		printf "$prow" "$f" "$s" "$n" "$r" "$l" "$w" "$i" "$k" "$x" "$u"
	done
done
echo
echo "  bytes; figure: cuts whose loss stayed within the kernel's at-risk figure"
echo "  plus its per-CPU slack, of those it reported."
echo
echo "Crash states of one sync=1 suspend cycle per filesystem (emmc; 4 prefixes,"
echo "2 subsets per gap between flushes), judged as above:"
echo
crow='  %-5s %6s %6s %6s %9s %6s %7s %10s %10s\n'
printf "$crow" fs states judged lossy "max lost" fsync damage "last flush" "0 lost at"
for fs in "$@"; do
	j=$out/cs-$fs/crash.json
	[ -s "$j" ] || { printf '  %-5s (no results)\n' "$fs"; continue; }
	jq -r --arg fs "$fs" '(.cycles[0] // {}) as $c | .summary[]
		| select(.sync == 1 and .phase == "all")
		| [ $fs, .states, .judged, .lossy_states, (.lost_bytes.max // 0),
		    .fsync_lost_states, .fs_damaged_states,
		    ($c.sync_last_flush // "-"), ($c.first_all_zero // "-") ] | @tsv' "$j" |
	while IFS=$'\t' read -r f n d l m x k a z; do
		printf "$crow" "$f" "$n" "$d" "$l" "$m" "$x" "$k" "$a" "$z"
	done
done
echo
echo "  fsync: states that lost fsync'd data (0 on a correct filesystem);"
echo "  damage: unmountable or the checker not clean; last flush: the sync's"
echo "  last flush, and the first log position from which every state loses 0."

#!/bin/bash
# t_nomtime_bench: nomtime-bench runs on every filesystem that opts in to
# O_NOMTIME, and the flag saves device requests where the series says (TAP).
#
# Guards the benchmark program itself and the series' request savings:
# per filesystem (ext4, xfs, f2fs), with the flag an overwrite and its
# fsync, or its syncfs, sends fewer device requests than without, and with
# fdatasync (which does not write the inode's times) none more.  Counts,
# not times.  NOMTIME_BENCH_OUT=FILE judges a recorded output instead of
# running (how the judging is tested).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
fss=${NOMTIME_FS:-ext4 xfs f2fs}
echo "TAP version 13"
out=${NOMTIME_BENCH_OUT:-}
if [ -z "$out" ]; then
	out=$(mktemp)
	trap 'rm -f "$out"' EXIT
	# 10 spaced overwrites per setting, one run: the counts are per overwrite
	if ! "$top/bench/obj/nomtime-bench" --fs "$(echo $fss | tr ' ' ,)" --cache wc \
		--count 10 --runs 1 --settle 2 >"$out" 2>&1; then
		tail -5 "$out" | sed 's/^/# /'
		echo "not ok 1 - nomtime-bench --fs $(echo $fss | tr ' ' ,) ran"
		echo "1..1"
		exit 1
	fi
fi
n=0 failed=0
# "  ext4 wc   fsync      5.00 -> 2.00 requests (x2.5),  ..."
for fs in $fss; do
	for sync in fsync fdatasync syncfs; do
		n=$((n + 1))
		line=$(awk -v f="$fs" -v s="$sync" '$1 == f && $2 == "wc" && $3 == s && $5 == "->"' "$out")
		read -r without with < <(echo "$line" | awk '{print $4, $6}')
		if [ -z "$line" ]; then
			echo "not ok $n - $fs $sync: no figure in nomtime-bench's summary"
			failed=1
			continue
		fi
		if [ "$sync" = fdatasync ]; then
			ok=$(awk -v a="$without" -v b="$with" 'BEGIN { print (b <= a) }')
		else
			ok=$(awk -v a="$without" -v b="$with" 'BEGIN { print (b < a) }')
		fi
		if [ "$ok" = 1 ]; then
			echo "ok $n - $fs $sync: $without -> $with requests per overwrite"
		else
			echo "not ok $n - $fs $sync: $without -> $with requests per overwrite"
			failed=1
		fi
	done
done
echo "1..$n"
exit $failed

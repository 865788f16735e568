#!/bin/bash
# t_bisect: every prefix of the tree's series builds (TAP).
#
# Guards bisectability: a distribution may carry only the first patches, and
# git bisect lands anywhere.  Builds incrementally in the default build
# directory, one patch more each time over all series in order
# (patches/series), ending with every series applied.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
KVER=${KVER:-6.1}
mapfile -t patches < <(series_patches "$KVER")
echo "TAP version 13"
failed=0
for i in $(seq 1 ${#patches[@]}); do
	start=$(date +%s)
	log=$(mktemp)
	p=${patches[$i-1]#"$top"/patches/"$KVER"/}
	if KVER=$KVER "$top/scripts/kernel.sh" --upto "$i" >/dev/null 2>"$log"; then
		echo "ok $i - builds with patches 1..$i ($p, $(($(date +%s) - start)) s)"
	else
		tail -20 "$log" | sed 's/^/# /'
		echo "not ok $i - builds with patches 1..$i ($p)"
		failed=1
	fi
	rm -f "$log"
done
echo "1..${#patches[@]}"
exit $failed

#!/bin/bash
# t_bisect: every prefix of the series builds (TAP).
#
# Guards bisectability: a distribution may carry only the first patches, and
# git bisect lands anywhere.  Builds incrementally in the default build
# directory, one patch more each time, ending with the whole series applied.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
mapfile -t patches < <(find "$top/patches/$KVER" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
echo "TAP version 13"
failed=0
for i in $(seq 1 ${#patches[@]}); do
	start=$(date +%s)
	log=$(mktemp)
	if KVER=$KVER "$top/scripts/kernel.sh" --upto "$i" >/dev/null 2>"$log"; then
		echo "ok $i - builds with patches 1..$i ($(basename "${patches[$i-1]}"), $(($(date +%s) - start)) s)"
	else
		tail -20 "$log" | sed 's/^/# /'
		echo "not ok $i - builds with patches 1..$i ($(basename "${patches[$i-1]}"))"
		failed=1
	fi
	rm -f "$log"
done
echo "1..${#patches[@]}"
exit $failed

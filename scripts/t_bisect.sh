#!/bin/bash
# t_bisect: every prefix of the tree's series builds (TAP).
#
# Guards bisectability: a distribution may carry only the first patches, and
# git bisect lands anywhere.  Builds incrementally, one patch more each
# time over all series in order (patches/series), in a variant of its own
# (a copy of the default build).  The last step applies every series
# again, the same files the default and skipsync kernels were built from;
# their times are then put back, so those kernels are not built twice.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
KVER=${KVER:-6.1}
mapfile -t patches < <(series_patches "$KVER")
src=$top/build/src-$KVER
echo "TAP version 13"
failed=0

# Was every series applied when the kernels were built?  Only then are the
# times worth keeping.
mapfile -t applied < <(find "$src/.series" -maxdepth 1 -name '*.patch' 2>/dev/null | sort)
full=$([ ${#applied[@]} -eq ${#patches[@]} ] && echo 1)
for i in "${!patches[@]}"; do
	[ -n "$full" ] && ! cmp -s "${patches[$i]}" "${applied[$i]}" && full=
done

# the times of every file the series touch, as the built kernels saw them
times=$(mktemp -d)
trap 'rm -rf "$times"' EXIT
touched=$(grep -h '^+++ b/' "${patches[@]}" | sed 's|^+++ b/||' | sort -u)
for f in $touched; do
	[ -e "$src/$f" ] && mkdir -p "$times/$(dirname "$f")" && touch -r "$src/$f" "$times/$f"
done
for i in $(seq 1 ${#patches[@]}); do
	start=$(date +%s)
	log=$(mktemp)
	p=${patches[$i-1]#"$top"/patches/"$KVER"/}
	if KVER=$KVER "$top/scripts/kernel.sh" --variant bisect --upto "$i" \
		>/dev/null 2>"$log"; then
		echo "ok $i - builds with patches 1..$i ($p, $(($(date +%s) - start)) s)"
	else
		tail -20 "$log" | sed 's/^/# /'
		echo "not ok $i - builds with patches 1..$i ($p)"
		failed=1
	fi
	rm -f "$log"
done
# every series applied again: the files are what the kernels were built from
if [ $failed -eq 0 ] && [ -n "$full" ]; then
	for f in $touched; do
		[ -e "$times/$f" ] && [ -e "$src/$f" ] && touch -r "$times/$f" "$src/$f"
	done
fi
echo "1..${#patches[@]}"
exit $failed

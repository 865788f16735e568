#!/bin/bash
# t_bisect: every prefix of the tree's series builds (TAP).
#
# Guards bisectability: a distribution may carry only the first patches, and
# git bisect lands anywhere.  The whole series is the default kernel: its
# build is checked to be current.  The shorter prefixes are built longest
# first, in a variant of their own that starts as a copy of the default
# build, one patch taken away at each step.  At the end every series is
# applied again, the same files the default and skipsync kernels were built
# from, and their times are put back, so those kernels are not rebuilt.
#
# Two depths:
#   BISECT_FULL=1 (make check-full): each prefix is a real build: every
#     object whose sources changed is rebuilt, so a patch to a header that
#     nearly everything includes (fs.h) costs a rebuild of its includers,
#     9 to 10 minutes without a cache.
#   default (make check BISECT=1, CI): each prefix compiles every C file
#     the series touch, as that prefix has them, against the prefix's
#     headers, and links vmlinux and the bzImage.  A header the series
#     touch keeps the time of the default build, so its other includers are
#     not rebuilt: what this misses is an untouched file that would not
#     compile against a prefix's header, which only an addition to a
#     header that something else already used could cause.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
KVER=${KVER:-6.1}
mapfile -t patches < <(series_patches "$KVER")
n=${#patches[@]}
src=$top/build/src-$KVER
echo "TAP version 13"
failed=0
t=0

# build() TITLE ARGS...: one kernel.sh run as a test, its time in the title
build() {
	local title=$1 start log
	shift
	start=$(date +%s)
	log=$(mktemp)
	t=$((t + 1))
	if KVER=$KVER "$top/scripts/kernel.sh" "$@" >/dev/null 2>"$log"; then
		echo "ok $t - $title ($(($(date +%s) - start)) s)"
	else
		tail -20 "$log" | sed 's/^/# /'
		echo "not ok $t - $title"
		failed=1
	fi
	rm -f "$log"
}
name() { echo "${patches[$1-1]#"$top"/patches/"$KVER"/}"; }

# 1. the whole series: the default build, brought up to date
build "builds with patches 1..$n ($(name "$n"), the default kernel)"

# the times of every file the series touch, as the default build saw them
times=$(mktemp -d)
trap 'rm -rf "$times"' EXIT
touched=$(grep -h '^+++ b/' "${patches[@]}" | sed 's|^+++ b/||' | sort -u)
for f in $touched; do
	[ -e "$src/$f" ] && mkdir -p "$times/$(dirname "$f")" && touch -r "$src/$f" "$times/$f"
done

# 2. every shorter prefix, longest first, from a fresh copy of the default
rm -rf "$top/build/obj-$KVER-bisect"
for ((i = n - 1; i >= 1; i--)); do
	if [ -z "${BISECT_FULL:-}" ]; then
		# the prefix's sources, then only its C files newer than the objects
		KVER=$KVER "$top/scripts/kernel.sh" --apply-only --upto "$i" >/dev/null 2>&1
		for f in $touched; do
			[ -e "$src/$f" ] || continue
			case $f in
			*.c) touch "$src/$f" ;;
			*) [ -e "$times/$f" ] && touch -r "$times/$f" "$src/$f" ;;
			esac
		done
	fi
	build "builds with patches 1..$i ($(name "$i"))$([ -n "${BISECT_FULL:-}" ] || echo " (its C files, linked)")" \
		--variant bisect --upto "$i"
done

# 3. every series applied again: the files the kernels were built from
build "every series applied again, the default build's times put back" --apply-only
for f in $touched; do
	[ -e "$times/$f" ] && [ -e "$src/$f" ] && touch -r "$times/$f" "$src/$f"
done
echo "1..$t"
exit $failed

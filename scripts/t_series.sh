#!/bin/bash
# t_series: the patch series as a distribution receives it (TAP).
#
# Guards: every patch passes checkpatch --strict with no error, warning or
# check; carries Signed-off-by; the series applies without fuzz to a fresh
# extraction of the tarball; the cover letter is an RFC; and sysctl-docs/
# is exactly the text the series adds to Documentation/.
#
# Usage: KVER=6.1 scripts/t_series.sh   (needs build/src-$KVER for checkpatch)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
series=$top/patches/$KVER
tree=$top/build/src-$KVER
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }

echo "TAP version 13"
mapfile -t patches < <(find "$series" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
cover=$series/0000-cover-letter.patch
[ ${#patches[@]} -gt 0 ]; ok $? "series $KVER has patches (${#patches[@]})"
grep -q '^Subject: \[RFC PATCH 0/' "$cover" 2>/dev/null; ok $? "cover letter is an RFC 0/N"

# checkpatch --strict: 0 errors, 0 warnings, 0 checks, per patch
if [ -x "$tree/scripts/checkpatch.pl" ]; then
	for p in "${patches[@]}"; do
		out=$(cd "$tree" && ./scripts/checkpatch.pl --strict --no-color "$p" 2>&1)
		echo "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks'
		r=$?
		[ $r -eq 0 ] || echo "$out" | diag
		ok $r "checkpatch --strict clean: $(basename "$p")"
	done
else
	skip "checkpatch --strict" "no kernel tree at $tree (run make kernel)"
fi

for p in "${patches[@]}"; do
	from=$(sed -n 's/^From: //p' "$p" | head -1)
	grep -qxF "Signed-off-by: $from" "$p"
	ok $? "Signed-off-by the author: $(basename "$p")"
done

# fresh extraction of just the files the series touches
files=$(grep -h '^+++ b/' "${patches[@]}" | sed 's|^+++ b/||' | sort -u)
tarball=/usr/src/linux-source-$KVER.tar.xz
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
if [ -f "$tarball" ]; then
	# shellcheck disable=SC2086
	tar -xJf "$tarball" -C "$fresh" --strip-components=1 \
		$(for f in $files; do echo "linux-source-$KVER/$f"; done)
	for f in $files; do
		[ -f "$fresh/$f" ] && install -D -m 644 "$fresh/$f" "$fresh/.pristine/$f"
	done
	r=0
	for p in "${patches[@]}"; do
		out=$(patch -d "$fresh" -p1 --batch --fuzz=0 --no-backup-if-mismatch < "$p" 2>&1) || { r=1; echo "$out" | diag; }
		echo "$out" | grep -qi 'fuzz\|offset' && echo "$out" | diag
	done
	ok $r "series applies to a fresh extraction of $tarball"
else
	skip "series applies to a fresh extraction" "$tarball missing"
fi

# sysctl-docs/ holds exactly the documentation units (rst sections, ABI
# entries) that the series adds or changes
units() { awk -v mode="$1" -f "$top/scripts/doc-units.awk" "$2"; }
changed() { awk 'BEGIN { RS = "%%\n" } NR == FNR { seen[$0] = 1; next } !($0 in seen) { printf "%s%%%%\n", $0 }' "$1" "$2"; }
for spec in "kernel.rst:rst:Documentation/admin-guide/sysctl/kernel.rst" \
	    "sysfs-power:abi:Documentation/ABI/testing/sysfs-power"; do
	IFS=: read -r doc mode path <<< "$spec"
	if [ -f "$fresh/$path" ] && [ -f "$fresh/.pristine/$path" ]; then
		d=$(diff <(units "$mode" "$top/sysctl-docs/$doc") \
			 <(changed <(units "$mode" "$fresh/.pristine/$path") <(units "$mode" "$fresh/$path")) 2>&1)
		r=$?
		[ $r -eq 0 ] || echo "$d" | diag
		ok $r "sysctl-docs/$doc equals what the series adds or changes in $path"
	else
		skip "sysctl-docs/$doc equals the series' text" "no fresh extraction"
	fi
done

echo "1..$n"
[ $failed -eq 0 ]

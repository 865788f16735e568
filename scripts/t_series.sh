#!/bin/bash
# t_series: the patch series as a distribution receives them (TAP).
#
# Guards, for every series of the tree (patches/series): every patch passes
# checkpatch --strict with no error, warning or check; carries
# Signed-off-by; the series apply in order without fuzz to a fresh
# extraction of the tarball; each cover letter is an RFC; and each docs
# mirror (a folder with a MIRROR file) is exactly the text its series adds
# to Documentation/.  A series signed under any name (RFC 2047 or quoted
# From:) still passes.
#
# Usage: KVER=6.1 scripts/t_series.sh   (needs build/src-$KVER for checkpatch)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
KVER=${KVER:-6.1}
tree=$top/build/src-$KVER
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }

echo "TAP version 13"
mapfile -t names < <(for s in $(series_names); do [ -d "$top/patches/$KVER/$s" ] && echo "$s"; done)
[ ${#names[@]} -gt 0 ]; ok $? "tree $KVER has series (${names[*]})"
mapfile -t all < <(series_patches "$KVER")

for s in "${names[@]}"; do
	mapfile -t patches < <(series_patches "$KVER" "$s")
	[ ${#patches[@]} -gt 0 ]; ok $? "$s: has patches (${#patches[@]})"
	grep -qE "^Subject: \[RFC PATCH( v[0-9]+)? 0/${#patches[@]}\]" "$top/patches/$KVER/$s/0000-cover-letter.patch" 2>/dev/null
	ok $? "$s: cover letter is an RFC 0/${#patches[@]}"
	for p in "${patches[@]}"; do
		grep -qE "^Subject: \[RFC PATCH( v[0-9]+)? [0-9]+/${#patches[@]}\]" "$p"
		ok $? "$s: $(basename "$p") is numbered within ${#patches[@]}"
	done
done

# checkpatch --strict: 0 errors, 0 warnings, 0 checks, per patch
if [ -x "$tree/scripts/checkpatch.pl" ]; then
	for p in "${all[@]}"; do
		out=$(cd "$tree" && ./scripts/checkpatch.pl --strict --no-color "$p" 2>&1)
		echo "$out" | grep -q '^total: 0 errors, 0 warnings, 0 checks'
		r=$?
		[ $r -eq 0 ] || echo "$out" | diag
		ok $r "checkpatch --strict clean: ${p#"$top"/patches/}"
	done
else
	skip "checkpatch --strict" "no kernel tree at $tree (run make kernel)"
fi

# author FILE: its From: field as a name, unfolded and decoded (RFC 2047,
# a quoted name unquoted): what a signed series' Signed-off-by carries
author() {
	sed '/^$/q' "$1" | perl -CO -MEncode -0777 -ne '
		s/\n([ \t])/$1/g;
		/^From: (.*)$/m or exit 1;
		my $f = decode("MIME-Header", $1);
		$f =~ s/^"((?:[^"\\]|\\.)*)"/(my $q = $1) =~ s{\\(.)}{$1}g; $q/e;
		print "$f\n"'
}
for p in "${all[@]}"; do
	from=$(author "$p")
	grep -qxF "Signed-off-by: $from" "$p"
	ok $? "Signed-off-by the author ($from): ${p#"$top"/patches/}"
done

# A fresh extraction of just the files the series touch, snapshotted
# before the first series and after each one.
mapfile -t mirrors < <(find "$top" -maxdepth 2 -name MIRROR -path "$top/*/MIRROR" | sort)
files=$( (grep -h '^+++ b/' "${all[@]}" | sed 's|^+++ b/||'
	  for m in "${mirrors[@]}"; do awk '!/^#/ && NF == 3 { print $3 }' "$m"; done) | sort -u)
tarball=/usr/src/linux-source-$KVER.tar.xz
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
snap() { for f in $files; do [ -f "$fresh/$f" ] && install -D -m 644 "$fresh/$f" "$fresh/.snap/$1/$f"; done; }
if [ -f "$tarball" ]; then
	# shellcheck disable=SC2086
	tar -xJf "$tarball" -C "$fresh" --strip-components=1 --wildcards \
		$(for f in $files; do echo "linux-source-$KVER/$f"; done) 2>/dev/null
	snap pristine
	r=0
	for s in "${names[@]}"; do
		for p in $(series_patches "$KVER" "$s"); do
			out=$(patch -d "$fresh" -p1 --batch --fuzz=0 --no-backup-if-mismatch < "$p" 2>&1) || { r=1; echo "$out" | diag; }
			echo "$out" | grep -qi 'fuzz\|offset' && { r=1; echo "$out" | diag; }
		done
		snap "$s"
	done
	ok $r "the series apply in order, without fuzz or offset, to a fresh extraction of $tarball"
else
	skip "the series apply to a fresh extraction" "$tarball missing"
fi

# Each mirror holds exactly the documentation units (rst sections, ABI
# entries) that its series adds or changes.
units() { awk -v mode="$1" -f "$top/scripts/doc-units.awk" "$2"; }
# FILENAME, not NR == FNR: the old file may be empty (/dev/null)
changed() { awk 'BEGIN { RS = "%%\n" } FILENAME == ARGV[1] { seen[$0] = 1; next } !($0 in seen) { printf "%s%%%%\n", $0 }' "$1" "$2"; }
for m in "${mirrors[@]}"; do
	dir=$(dirname "$m")
	s=$(sed -n 's/^# series: *//p' "$m")
	before=pristine
	for x in "${names[@]}"; do [ "$x" = "$s" ] && break; before=$x; done
	while read -r doc mode path; do
		label="${dir#"$top"/}/$doc equals what $s adds or changes in $path"
		if [ ! -d "$top/patches/$KVER/$s" ]; then
			skip "$label" "no $s series for $KVER"
		elif [ -f "$fresh/.snap/$s/$path" ]; then
			# a file the series creates had no units before it
			old=$fresh/.snap/$before/$path
			[ -f "$old" ] || old=/dev/null
			d=$(diff <(units "$mode" "$dir/$doc") \
				 <(changed <(units "$mode" "$old") <(units "$mode" "$fresh/.snap/$s/$path"))) 2>&1
			r=$?
			[ $r -eq 0 ] || echo "$d" | diag
			ok $r "$label"
		else
			skip "$label" "no fresh extraction"
		fi
	done < <(grep -v '^#' "$m" | awk 'NF == 3')
done

# scripts/sign-series.sh: scripts/t_sign_series.sh (its own group)

echo "1..$n"
[ $failed -eq 0 ]

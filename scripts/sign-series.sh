#!/bin/bash
# Regenerates every series of the given trees under your own git identity
# (git config user.name and user.email): each patch's author, its From:
# and its Signed-off-by: become yours, and so does each cover letter's
# From:.  Everything else is kept: the code, the order, the subjects, the
# To: and Cc: lists, the commit messages and the cover letters' text.  The
# committed patches carry a placeholder identity; run this before posting.
#
# Usage: scripts/sign-series.sh [KVER...]   (default: every tree)
# It works on a scratch git tree of the files the series touch, from
# /usr/src/linux-source-KVER.tar.xz, and replaces patches/KVER/*/ only when
# every series of the tree came out with the same diffs as before.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"

die() { echo "sign-series: $*" >&2; exit 1; }

name=$(git config user.name || true)
email=$(git config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "no git identity: set it with git config --global user.name and user.email"
me="$name <$email>"

# The diffs of a patch file, without the index lines: what must not change.
diffs() { sed -n '/^diff --git /,/^-- $/p' "$1" | grep -v '^index '; }

# header(FILE): its mail header; body(FILE): what follows it
header() { sed '/^$/q' "$1" | sed '$d'; }
body() { sed '1,/^$/d' "$1"; }

# splice OLD NEW: NEW keeps OLD's To: and Cc: block; a cover letter also
# OLD's Subject: and text, before NEW's shortlog and diffstat.
splice() {
	local old=$1 new=$2 tmp=$2.tmp who
	{
		if grep -q '^\*\*\* BLURB HERE \*\*\*$' "$new"; then
			header "$new" | awk -v subj="$(header "$old" |
				awk '/^Subject: /{s=1} s&&!/^Subject: /&&!/^ /{s=0} s')" \
				'/^Subject: /{print subj; skip=1; next} skip&&/^ /{next} {skip=0; print}'
			header "$old" | sed -n '/^To: /,$p'
			echo
			who=$(sed -n 's/^From: \(.*\) <.*/\1/p' "$old" | head -1)
			body "$old" | awk -v w="$who" 'index($0, w " (") == 1 && /\([0-9]+\):$/ {exit} {print}'
			body "$new" | sed '0,/^\*\*\* BLURB HERE \*\*\*$/d' | sed '1{/^$/d}'
		else
			header "$new"
			header "$old" | sed -n '/^To: /,$p'
			echo
			body "$new"
		fi
	} > "$tmp"
	mv "$tmp" "$new"
}

sign_tree() {
	local k=$1 scratch s p base cover n prefix subject out new
	local tarball=/usr/src/linux-source-$k.tar.xz
	[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-$k)"
	mapfile -t all < <(series_patches "$k")
	[ ${#all[@]} -gt 0 ] || die "no series for tree $k"
	scratch=$(mktemp -d)
	trap 'rm -rf "$scratch"' RETURN
	# shellcheck disable=SC2046
	tar -xJf "$tarball" -C "$scratch" --strip-components=1 --wildcards \
		$(grep -h '^--- a/' "${all[@]}" | sed 's|^--- a/||' | sort -u |
		  sed "s|^|linux-source-$k/|") 2>/dev/null || true
	git -C "$scratch" init -q
	git -C "$scratch" add -f -A .
	git -C "$scratch" -c user.name=base -c user.email=base@localhost commit -q -m base
	for s in $(series_names); do
		[ -d "$top/patches/$k/$s" ] || continue
		mapfile -t ps < <(series_patches "$k" "$s")
		cover=$top/patches/$k/$s/0000-cover-letter.patch
		base=$(git -C "$scratch" rev-parse HEAD)
		for p in "${ps[@]}"; do
			old=$(sed -n 's/^From: //p' "$p" | head -1)
			git -C "$scratch" -c user.name="$name" -c user.email="$email" \
				am -q --committer-date-is-author-date "$p" ||
				die "$(basename "$p") does not apply to a fresh $k"
			git -C "$scratch" log -1 --format=%B |
				sed "s|^Signed-off-by: $old\$|Signed-off-by: $me|" > "$scratch/.msg"
			grep -qxF "Signed-off-by: $me" "$scratch/.msg" ||
				echo "Signed-off-by: $me" >> "$scratch/.msg"
			git -C "$scratch" -c user.name="$name" -c user.email="$email" \
				commit -q --amend --reset-author -F "$scratch/.msg"
		done
		n=${#ps[@]}
		subject=$(sed -n 's/^Subject: //p' "${ps[0]}" | head -1)
		prefix=$(echo "$subject" | sed -E 's/^\[([^]]*) [0-9]+\/[0-9]+\].*/\1/')
		out=$scratch/.out-$s
		git -C "$scratch" -c user.name="$name" -c user.email="$email" \
			-c core.abbrev=12 format-patch -q --cover-letter \
			--subject-prefix="$prefix" -o "$out" "$base..HEAD"
		# each file keeps its To: and Cc: block; the cover its text
		for new in "$out"/0*.patch; do
			p=$top/patches/$k/$s/$(basename "$new")
			[ -f "$p" ] || die "$(basename "$new"): no such patch before signing"
			splice "$p" "$new"
			[ "$(basename "$p")" = 0000-cover-letter.patch ] ||
				cmp -s <(diffs "$p") <(diffs "$new") ||
				die "$(basename "$p"): the diff changed in the round trip"
		done
		[ "$(find "$out" -name '0*.patch' | wc -l)" -eq $((n + 1)) ] ||
			die "$k/$s: $n patches went in, another number came out"
	done
	for s in $(series_names); do
		[ -d "$scratch/.out-$s" ] || continue
		cp "$scratch/.out-$s"/0*.patch "$top/patches/$k/$s/"
		echo "sign-series: $k/$s: $(find "$scratch/.out-$s" -name '0*.patch' | wc -l) files signed by $me"
	done
}

trees=("$@")
[ ${#trees[@]} -gt 0 ] || mapfile -t trees < <(find "$top/patches" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
for k in "${trees[@]}"; do
	sign_tree "$k"
done

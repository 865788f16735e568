#!/bin/bash
# Regenerates every series of the given trees under your own git identity
# (git config user.name and user.email): each patch's author, its From:
# and its last Signed-off-by: (the poster's) become yours, and so does each
# cover letter's From:.  Everything else is kept: the code, the order, the
# subjects, the dates, the To: and Cc: lists, the commit messages and the
# cover letters' text.  The committed patches carry a placeholder identity;
# run this before posting.  Signing again, as anyone, gives exactly the
# series that signing once as the last identity gives.
#
# Usage: scripts/sign-series.sh [KVER...]   (default: every tree)
# It works on a scratch git tree of the files the series touch, from
# /usr/src/linux-source-KVER.tar.xz, and replaces patches/KVER/*/ only when
# every series of the tree came out with the same diffs as before.
# The name never reaches sed or a shell: git takes it from the environment,
# awk from ENVIRON.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"

die() { echo "sign-series: $*" >&2; exit 1; }

name=$(git config user.name || true)
email=$(git config user.email || true)
[ -n "$name" ] && [ -n "$email" ] ||
	die "no git identity: set it with git config --global user.name and user.email"
# git's identity for every commit and for format-patch's cover letter
export GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email
export GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email
# "Name <email>" as git writes it (it trims some characters off a name)
ident=$(git var GIT_COMMITTER_IDENT) || die "git refuses the identity in git config"
me=${ident% * *}

# every tree named must have series: one line naming the trees, exit 2
trees=("$@")
[ ${#trees[@]} -gt 0 ] || mapfile -t trees < <(series_trees)
for k in "${trees[@]}"; do
	series_trees | grep -qxF -- "$k" || {
		echo "sign-series: no series for '$k' (trees: $(series_trees | paste -sd ' '))" >&2
		exit 2
	}
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# The diffs of a patch file, without the index lines: what must not change.
diffs() { sed -n '/^diff --git /,/^-- $/p' "$1" | grep -v '^index '; }

# header(FILE): its mail header; body(FILE): what follows it;
# field(FILE, NAME): one header field with its continuation lines
header() { sed '/^$/q' "$1" | sed '$d'; }
body() { sed '1,/^$/d' "$1"; }
field() {
	header "$1" | F="$2: " awk 'index($0, ENVIRON["F"]) == 1 { s = 1; print; next }
		s && /^[ \t]/ { print; next } { s = 0 }'
}

# cover_text(OLD, N): the cover letter's own text, without the shortlog
# and diffstat that format-patch wrote after it; the shortlog starts at
# the last line "NAME (N):" (not indented), whatever NAME was.
cover_text() {
	body "$1" | N=" ($2):" awk '{ l[NR] = $0 }
		/^[^ \t]/ && substr($0, length($0) - length(ENVIRON["N"]) + 1) == ENVIRON["N"] { cut = NR }
		END { if (!cut) exit 1; for (i = 1; i < cut; i++) print l[i] }'
}

# splice OLD NEW FROM N: NEW keeps OLD's To: and Cc: block; a cover letter
# also OLD's Subject: and text, before NEW's shortlog and diffstat, and
# takes FROM (the From: field format-patch wrote into the patches: RFC
# 2047 when the name needs it, where the cover letter's own is raw 8-bit).
splice() {
	local old=$1 new=$2 from=$3 n=$4 tmp=$2.tmp
	if grep -q '^\*\*\* BLURB HERE \*\*\*$' "$new"; then
		# a file, not $(...): the blank line before the shortlog stays
		cover_text "$old" "$n" > "$new.text" ||
			die "$old: no shortlog \"... ($n):\" after the text; cannot tell the text from it"
		{
			header "$new" | FROM="$from" SUBJ="$(field "$old" Subject)" awk '
				/^From: / { print ENVIRON["FROM"]; skip = 1; next }
				/^Subject: / { print ENVIRON["SUBJ"]; skip = 1; next }
				skip && /^[ \t]/ { next } { skip = 0; print }'
			header "$old" | sed -n '/^To: /,$p'
			echo
			cat "$new.text"
			body "$new" | sed '0,/^\*\*\* BLURB HERE \*\*\*$/d' | sed '1{/^$/d}'
		} > "$tmp"
	else
		{
			header "$new"
			header "$old" | sed -n '/^To: /,$p'
			echo
			body "$new"
		} > "$tmp"
	fi
	mv "$tmp" "$new"
}

# sob MSG: the message with its last Signed-off-by: (the poster's) made
# yours, or yours added when it has none
sob() {
	ME="Signed-off-by: $me" awk '{ l[NR] = $0 } /^Signed-off-by: / { last = NR }
		END {
			n = NR; while (n > 0 && l[n] == "") n--
			if (last) l[last] = ENVIRON["ME"]
			for (i = 1; i <= n; i++) print l[i]
			if (!last) print ENVIRON["ME"]
		}' "$1"
}

sign_tree() {
	local k=$1 scratch s p base cover n prefix subject out new date from
	local tarball=/usr/src/linux-source-$k.tar.xz
	[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-$k)"
	mapfile -t all < <(series_patches "$k")
	[ ${#all[@]} -gt 0 ] || die "no series for tree $k"
	scratch=$work/$k
	mkdir -p "$scratch"
	# shellcheck disable=SC2046
	tar -xJf "$tarball" -C "$scratch" --strip-components=1 --wildcards \
		$(grep -h '^--- a/' "${all[@]}" | sed 's|^--- a/||' | sort -u |
		  sed "s|^|linux-source-$k/|") 2>/dev/null || true
	git -C "$scratch" init -q
	git -C "$scratch" add -f -A .
	# a fixed base commit: the same series gives the same commit ids
	GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost GIT_COMMITTER_NAME=base \
	GIT_COMMITTER_EMAIL=base@localhost GIT_AUTHOR_DATE='@0 +0000' \
	GIT_COMMITTER_DATE='@0 +0000' git -C "$scratch" -c commit.gpgsign=false \
		commit -q -m base
	for s in $(series_names); do
		[ -d "$top/patches/$k/$s" ] || continue
		mapfile -t ps < <(series_patches "$k" "$s")
		cover=$top/patches/$k/$s/0000-cover-letter.patch
		[ -f "$cover" ] || die "$k/$s: no cover letter"
		base=$(git -C "$scratch" rev-parse HEAD)
		for p in "${ps[@]}"; do
			git -C "$scratch" am -q --committer-date-is-author-date "$p" ||
				die "$(basename "$p") does not apply to a fresh $k"
			# the patch's own date stays: only the identity changes
			date=$(git -C "$scratch" log -1 --format=%ad --date=raw)
			git -C "$scratch" log -1 --format=%B > "$scratch/.msg0"
			sob "$scratch/.msg0" > "$scratch/.msg"
			GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
				git -C "$scratch" -c commit.gpgsign=false commit -q --amend --reset-author \
				--cleanup=verbatim -F "$scratch/.msg"
		done
		n=${#ps[@]}
		subject=$(sed -n 's/^Subject: //p' "${ps[0]}" | head -1)
		prefix=$(echo "$subject" | sed -E 's/^\[([^]]*) [0-9]+\/[0-9]+\].*/\1/')
		out=$scratch/.out-$s
		# the cover letter keeps its date (format-patch takes the committer's)
		date=$(sed -n 's/^Date: //p' "$cover" | head -1)
		GIT_COMMITTER_DATE=$date git -C "$scratch" -c core.abbrev=12 \
			format-patch -q --cover-letter --subject-prefix="$prefix" \
			-o "$out" "$base..HEAD"
		from=$(field "$(find "$out" -name '0001-*.patch')" From)
		# each file keeps its To: and Cc: block; the cover its text
		for new in "$out"/0*.patch; do
			p=$top/patches/$k/$s/$(basename "$new")
			[ -f "$p" ] || die "$(basename "$new"): no such patch before signing"
			splice "$p" "$new" "$from" "$n"
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
	rm -rf "$scratch"
}

for k in "${trees[@]}"; do
	sign_tree "$k"
done

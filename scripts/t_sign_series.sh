#!/bin/bash
# t_sign_series: scripts/sign-series.sh run again, as hostile names (TAP).
#
# Guards (issue 33, item 5), on copies of the tree's series (never
# patches/ itself):
#   - signing again as the same name changes nothing, byte for byte
#     ("J. Smith" twice left two shortlogs, diffstats and signatures);
#   - signing as A, then B, gives byte for byte what signing once as B
#     gives, for names with & | / \ ' " and non-ASCII (the old UTF-8
#     Signed-off-by stayed under an RFC 2047 From:; a | broke sed);
#   - every From:, the cover letter's too, is what git format-patch
#     writes for the name (RFC 2047 when needed, never raw 8-bit), and
#     the last Signed-off-by of each patch is the name, once;
#   - a run that fails leaves no scratch folder behind.
#
# Usage: KVER=6.1 scripts/t_sign_series.sh   (needs the tree's tarball)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
diag() { sed 's/^/# /'; }

echo "TAP version 13"
if [ ! -f "/usr/src/linux-source-$KVER.tar.xz" ]; then
	skip "sign-series run again" "/usr/src/linux-source-$KVER.tar.xz missing"
	echo "1..$n"
	exit 0
fi

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir "$t/tmp"
export GIT_CONFIG_NOSYSTEM=1
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL \
	GIT_AUTHOR_DATE GIT_COMMITTER_DATE

# copy NAME: a copy of the scripts and of this tree's series
copy() {
	mkdir -p "$t/$1/patches"
	cp -r "$top/scripts" "$t/$1/"
	cp -r "$top/patches/$KVER" "$top/patches/series" "$t/$1/patches/"
}
# gitconfig COPY NAME: COPY's git identity is NAME (git writes the file:
# the name is data)
gitconfig() {
	rm -f "$t/$1.gitconfig"
	git config --file "$t/$1.gitconfig" user.name "$2"
	git config --file "$t/$1.gitconfig" user.email "signer@example.net"
}
# sign COPY NAME: signs the copy as NAME, from $t (where the hostile
# name's $(touch x) would land); the output goes to $t/COPY.out
sign() {
	gitconfig "$1" "$2"
	(cd "$t" && GIT_CONFIG_GLOBAL=$t/$1.gitconfig TMPDIR=$t/tmp \
		"$t/$1/scripts/sign-series.sh" "$KVER") > "$t/$1.out" 2>&1
}
# same A B: the two copies' series are equal, byte for byte
same() { diff -r "$t/$1/patches/$KVER" "$t/$2/patches/$KVER" > "$t/diff" 2>&1; }
# from NAME: the From: field git format-patch writes for NAME
from() {
	local r=$t/fp
	# a file: format-patch leaves out an empty commit
	rm -rf "$r" && git init -q "$r" && echo x > "$r/x" && git -C "$r" add x &&
	GIT_AUTHOR_NAME=$1 GIT_AUTHOR_EMAIL=signer@example.net GIT_COMMITTER_NAME=$1 \
	GIT_COMMITTER_EMAIL=signer@example.net git -C "$r" -c commit.gpgsign=false \
		commit -q -m x &&
	git -C "$r" format-patch -q --stdout -1 | sed '/^$/q' |
		awk '/^From: / { s = 1; print; next } s && /^[ \t]/ { print; next } { s = 0 }'
}
# check COPY NAME: every From: is format-patch's for NAME, the header is
# 7-bit, and each patch's last Signed-off-by is NAME, the only one of NAME
check() {
	local p want bad=
	want=$(from "$2")
	for p in "$t/$1/patches/$KVER"/*/0*.patch; do
		[ "$(sed '/^$/q' "$p" | awk '/^From: / { s = 1; print; next }
			s && /^[ \t]/ { print; next } { s = 0 }')" = "$want" ] ||
			bad="$bad ${p##*/}:From"
		! sed '/^$/q' "$p" | LC_ALL=C grep -q '[^ -~]' || bad="$bad ${p##*/}:8-bit-header"
		case $p in */0000-*) continue ;; esac
		[ "$(grep '^Signed-off-by: ' "$p" | tail -1)" = "Signed-off-by: $2 <signer@example.net>" ] ||
			bad="$bad ${p##*/}:last-Signed-off-by"
		[ "$(grep -cxF "Signed-off-by: $2 <signer@example.net>" "$p")" -eq 1 ] ||
			bad="$bad ${p##*/}:Signed-off-by-count"
	done
	echo "$bad"
}

smith='J. Smith'
zoe='Zoë "Z" Ünal'
# every character the old sed and awk -v mangled, and non-ASCII; the $()
# and backquotes stay literal on purpose
# shellcheck disable=SC2016
hostile='Tom & Jerry | O'\''Brien/A\B "Q" Ünal $(touch x) `id`'

copy once
sign once "$hostile"; r=$?
[ $r -ne 0 ] && diag < "$t/once.out"
ok $r "sign once as a hostile name: exit $r"
bad=$(check once "$hostile")
[ -z "$bad" ]; ok $? "hostile name: From: as format-patch writes it, 7-bit headers, one last Signed-off-by (bad:${bad:- none})"

copy chain
sign chain "$smith"; r1=$?
cp -r "$t/chain" "$t/smith1"
sign chain "$smith"; r2=$?
same smith1 chain; r=$?
[ $r -eq 0 ] || head -20 "$t/diff" | diag
ok $((r1 | r2 | r)) "J. Smith twice equals J. Smith once (exits $r1 $r2; $(wc -l < "$t/diff") diff lines)"
shortlogs=$(grep -c '^J\. Smith ([0-9]*):$' "$t/chain/patches/$KVER/suspend-sync/0000-cover-letter.patch")
[ "$shortlogs" -eq 1 ]; ok $? "J. Smith twice: 1 shortlog in the cover letter ($shortlogs)"
bad=$(check chain "$smith")
[ -z "$bad" ]; ok $? "J. Smith: From: quoted as format-patch writes it, one last Signed-off-by (bad:${bad:- none})"

sign chain "$zoe"; r=$?
bad=$(check chain "$zoe")
[ $r -eq 0 ] && [ -z "$bad" ]; ok $? "J. Smith then $zoe: RFC 2047 From: everywhere, the cover letter's too (exit $r; bad:${bad:- none})"

sign chain "$hostile"; r=$?
same once chain; r2=$?
[ $r2 -eq 0 ] || head -20 "$t/diff" | diag
ok $((r | r2)) "J. Smith, J. Smith, $zoe, then the hostile name equals the hostile name once (exit $r; $(wc -l < "$t/diff") diff lines)"
[ ! -e "$t/x" ]; ok $? "the name's \$(touch x) ran nowhere: $t/x $([ -e "$t/x" ] && echo exists || echo absent)"

# a run that fails (a patch that no longer applies) leaves nothing behind
copy broken
p=$(find "$t/broken/patches/$KVER" -name '0001-*.patch' | sort | head -1)
sed -i 's/^-\(.\)/-\1XX/' "$p"
find "$t/tmp" -mindepth 1 -delete
sign broken "$smith"; r=$?
left=$(find "$t/tmp" -mindepth 1 -maxdepth 1 | wc -l)
[ $r -ne 0 ] && [ "$left" -eq 0 ]
ok $? "a failed run (exit $r: $(tail -1 "$t/broken.out")) leaves $left scratch folders"

# a tree without series: one line, exit 2
copy badtree
gitconfig badtree "$smith"
out=$(GIT_CONFIG_GLOBAL=$t/badtree.gitconfig "$t/badtree/scripts/sign-series.sh" 5.10 2>&1)
r=$?
[ $r -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ]
ok $? "sign-series 5.10: exit $r, \"$out\""

echo "1..$n"
[ $failed -eq 0 ]

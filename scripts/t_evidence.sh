#!/bin/bash
# t_evidence: the evidence the cover letter and README carry was produced by
# the current series and lab (TAP).
#
# Guards against stale numbers: the section's fingerprint must equal
# scripts/fingerprint.sh over today's files, in both places, and the plot
# it names must exist.  Regenerate with `make evidence`.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
want=$(KVER=$KVER "$top/scripts/fingerprint.sh")
n=0 failed=0
echo "TAP version 13"
files="patches/$KVER/suspend-sync/0000-cover-letter.patch"
# The README shows the default tree's evidence (see scripts/evidence.sh).
[ "$KVER" = 6.1 ] && files="$files README.md"
for f in $files; do
	n=$((n + 1))
	have=$(awk '/^\[evidence: begin\]/,/^\[evidence: end\]/' "$top/$f" | sed -n 's/^fingerprint: //p')
	if [ "$have" = "$want" ]; then
		echo "ok $n - $f carries evidence of the current series and lab"
	else
		echo "# $f: fingerprint '${have:-none}', current $want; run make evidence"
		echo "not ok $n - $f carries evidence of the current series and lab"
		failed=1
	fi
done
n=$((n + 1))
plot=$top/docs/evidence-$KVER-latency-emmc.svg
if [ -s "$plot" ] && grep -q '<svg' "$plot"; then
	echo "ok $n - the evidence plot ${plot#"$top"/} exists"
else
	echo "not ok $n - the evidence plot ${plot#"$top"/} exists"
	failed=1
fi
echo "1..$n"
exit $failed

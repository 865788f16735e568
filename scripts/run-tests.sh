#!/bin/bash
# Runs test programs that speak TAP, shows their output, and ends with
# "N passed, N failed, N skipped".  Each group's own line ends with the time
# it took.  A group fails as a whole, counted once, when it exits non-zero
# without reporting a failure, or when one of its TAP streams (each starts
# "TAP version") has its plan ("1..N") missing, repeated, or disagreeing
# with the tests it reported.
# Usage: scripts/run-tests.sh NAME=COMMAND...
set -uo pipefail
pass=0 fail=0 skip=0 total_start=$(date +%s)

# The first TAP stream of a group's output whose plan is wrong, as
# "stream N: ..."; nothing when every stream is whole.
tap_plans() {
	awk 'function check() {
		if (!streams) return
		if (plans != 1 || planned != n)
			bad = bad ? bad : sprintf("stream %d: plan given %d time(s), 1..%d, %d tests reported", streams, plans, planned, n)
	     }
	     /^TAP version/ { check(); streams++; n = plans = planned = 0; next }
	     /^(not )?ok [0-9]+/ { n++ }
	     /^1\.\.[0-9]+/ { plans++; planned = substr($1, 4) + 0 }
	     END { check(); if (!streams) bad = "no TAP output"; print bad }' "$1"
}

for spec in "$@"; do
	name=${spec%%=*} cmd=${spec#*=}
	echo "# ---- $name: $cmd"
	out=$(mktemp)
	start=$(date +%s)
	bash -c "$cmd" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	p=$(grep -cE '^ok [0-9]+' "$out" | tr -d ' ')
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$out" | tr -d ' ')
	f=$(grep -cE '^not ok [0-9]+' "$out" | tr -d ' ')
	bad=$(tap_plans "$out")
	rm -f "$out"
	if [ -n "$bad" ]; then
		echo "not ok - $name: $bad"
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited $rc without reporting a failure"
		f=1
	fi
	pass=$((pass + p - s)) skip=$((skip + s)) fail=$((fail + f))
	echo "# ---- $name: $((p - s)) passed, $f failed, $s skipped, ${secs} s"
done
echo "# total time $(($(date +%s) - total_start)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

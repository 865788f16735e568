#!/bin/bash
# Runs test programs that speak TAP, shows their output, and ends with
# "N passed, N failed, N skipped".  A program that exits non-zero without
# reporting a failure counts as one failure.
# Usage: scripts/run-tests.sh NAME=COMMAND...
set -uo pipefail
pass=0 fail=0 skip=0
for spec in "$@"; do
	name=${spec%%=*} cmd=${spec#*=}
	echo "# ---- $name: $cmd"
	out=$(mktemp)
	bash -c "$cmd" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	p=$(grep -cE '^ok [0-9]+' "$out" | tr -d ' ')
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$out" | tr -d ' ')
	f=$(grep -cE '^not ok [0-9]+' "$out" | tr -d ' ')
	rm -f "$out"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited $rc without reporting a failure"
		f=1
	fi
	pass=$((pass + p - s)) skip=$((skip + s)) fail=$((fail + f))
	echo "# ---- $name: $((p - s)) passed, $f failed, $s skipped"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]

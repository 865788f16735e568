#!/bin/bash
# t_runtests: the test runner itself (TAP).
#
# Guards that scripts/run-tests.sh cannot report a group as green when it
# is not: a plan that disagrees with the tests reported, a missing or
# repeated plan, no TAP at all, or a non-zero exit without a failure each
# fail the group once; a whole group passes; skips are counted apart; the
# last line is "N passed, N failed, N skipped" and the exit status follows.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi
}

# the runner with its output as TAP diagnostics, or only its last line
runner() { "$top/scripts/run-tests.sh" "$@" 2>&1 | sed 's/^/# | /'; }
last() { "$top/scripts/run-tests.sh" "$@" 2>/dev/null | tail -1; }

# expect TOTALS DESCRIPTION GROUP...: the runner's last line for the groups
expect() {
	local want=$1 desc=$2
	shift 2
	[ "$(last "$@")" = "$want" ]
	ok $? "$desc"
}

echo "TAP version 13"
whole="whole=printf 'TAP version 13\\nok 1 - a\\nok 2 - b # SKIP why\\n1..2\\n'"
short="short=printf 'TAP version 13\\nok 1 - a\\n1..3\\n'"
expect "1 passed, 0 failed, 1 skipped" "a whole group: its passes and skips counted, no failure" "$whole"
expect "1 passed, 1 failed, 0 skipped" "a plan of 3 with 1 test reported fails the group once" "$short"
expect "1 passed, 1 failed, 0 skipped" "a missing plan fails the group" \
	"noplan=printf 'TAP version 13\\nok 1 - a\\n'"
expect "1 passed, 1 failed, 0 skipped" "a repeated plan fails the group" \
	"twice=printf 'TAP version 13\\nok 1 - a\\n1..1\\n1..1\\n'"
expect "0 passed, 1 failed, 0 skipped" "no TAP output fails the group" "none=echo hello"
expect "1 passed, 1 failed, 0 skipped" "a non-zero exit without a reported failure fails the group" \
	"exit3=printf 'TAP version 13\\nok 1 - a\\n1..1\\n'; exit 3"
expect "2 passed, 1 failed, 0 skipped" "the second of two TAP streams is checked too" \
	"two=printf 'TAP version 13\\nok 1 - a\\n1..1\\nTAP version 13\\nok 1 - b\\n1..2\\n'"

"$top/scripts/run-tests.sh" "$whole" >/dev/null 2>&1 &&
	! "$top/scripts/run-tests.sh" "$whole" "$short" >/dev/null 2>&1
ok $? "the exit status: 0 when all pass, non-zero when one group fails"

out=$(runner "$whole")
grep -q '^# | # ---- whole: 1 passed, 0 failed, 1 skipped, [0-9]* s$' <<<"$out"
ok $? "each group's line ends with its time"
echo "1..$n"
exit $failed

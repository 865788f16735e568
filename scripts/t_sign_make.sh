#!/bin/bash
# t_sign_make: the Makefile's own checks of KVER and KERNEL, and make -n (TAP).
#
# Guards (issue 33, item 8), on a copy of the Makefile in a scratch tree
# whose scripts only leave a mark (so nothing real builds even when a
# check is broken):
#   - a KVER without patches/KVER/ is refused by every target that takes
#     KVER, before anything runs: one line naming the trees, non-zero
#     ("make run KVER=5.10" reached apt-get);
#   - KERNEL= that is no file is refused by every target that boots it,
#     at once: one line, non-zero ("make check KERNEL=/nope" built first);
#   - make -n check prints the suite's command and runs nothing (the
#     recipe named $(MAKE), which make -n executes).
#
# Usage: scripts/t_sign_make.sh   (MAKEFILE= another Makefile to test)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mk=${MAKEFILE:-$top/Makefile}
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
diag() { sed 's/^/# /'; }
# the caller's make flags (make check's -s, a jobserver) stay out
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES KVER KERNEL

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
s=$t/top
mark=$t/ran
mkdir -p "$s/scripts" "$s/bench" "$s/guest/tests" "$s/guest/agent" "$s/proto" \
	"$s/patches/6.1" "$s/patches/6.12"
cp "$mk" "$s/Makefile"
printf 'suspend-sync\n' > "$s/patches/series"
for f in deps.sh kernel.sh run-tests.sh sign-series.sh evidence.sh; do
	printf '#!/bin/sh\necho "%s $*" >> "%s"\nexit 1\n' "$f" "$mark" > "$s/scripts/$f"
	chmod +x "$s/scripts/$f"
done
printf 'all asan clean:\n\t@echo "bench $@" >> "%s"\n' "$mark" > "$s/bench/Makefile"
for f in guest/init guest/mkinitramfs.sh guest/mktools.sh guest/tests/gtap.c \
		guest/tests/gtap.h proto/agent_proto.c proto/agent_proto.h proto/pattern.h; do
	: > "$s/$f"
done
marks() { if [ -f "$mark" ]; then paste -sd ';' "$mark" | cut -c1-60; else echo none; fi; }

echo "TAP version 13"

# refused(WHAT, ARGS...): make ARGS exits non-zero within 5 s with one
# line that contains WHAT, and nothing ran; prints the measured facts
refused() {
	local what=$1 out r ms lines start
	shift
	rm -f "$mark"
	start=$(date +%s%N)
	out=$(cd "$s" && timeout 60 make "$@" 2>&1)
	r=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	lines=$(printf '%s\n' "$out" | wc -l)
	echo "exit $r, $ms ms, $lines line(s), ran: $(marks): $(printf '%s' "$out" | head -1)"
	[ $r -ne 0 ] && [ "$lines" -eq 1 ] && [ $ms -lt 5000 ] && [ ! -f "$mark" ] &&
		printf '%s' "$out" | grep -qF -- "$what"
}

# every target that takes KVER
for g in run check check-full deps kernel kernel-skipsync guest tools bench \
		powercut powercut-bench crash crash-bench evidence nomtime-bench \
		sign-series all; do
	m=$(refused 'no series for 5.10' "$g" KVER=5.10)
	r=$?
	echo "$m" | grep -q '6\.1 6\.12' || r=1
	ok $r "make $g KVER=5.10 refused naming the trees: $m"
done
m=$(refused 'KVER is empty' run KVER=)
ok $? "make run KVER= refused: $m"

# every target that boots KERNEL
for g in check check-full run powercut powercut-bench crash crash-bench \
		evidence nomtime-bench; do
	m=$(refused 'KERNEL=/nope' "$g" KERNEL=/nope)
	ok $? "make $g KERNEL=/nope refused at once: $m"
done
m=$(refused 'a folder' check KERNEL=/tmp)
ok $? "make check KERNEL=/tmp (a folder) refused: $m"

# make -n check (and check-full, through its sub-make): the suite's
# command printed, nothing started
for g in check check-full; do
	rm -f "$mark"
	out=$(cd "$s" && timeout 60 make -n "$g" 2>&1)
	r=$?
	[ $r -eq 0 ] && [ ! -f "$mark" ] && printf '%s' "$out" | grep -q 'scripts/run-tests.sh'
	r2=$?
	[ $r2 -eq 0 ] || printf '%s\n' "$out" | tail -5 | diag
	ok $r2 "make -n $g: exit $r, printed run-tests.sh: $(printf '%s' "$out" | grep -c 'scripts/run-tests.sh') time(s), ran: $(marks)"
done

# and a tree that is valid still gets through to its first step
rm -f "$mark"
(cd "$s" && timeout 60 make deps KVER=6.12 > /dev/null 2>&1)
grep -qx 'deps.sh all' "$mark" 2>/dev/null
ok $? "make deps KVER=6.12 runs deps.sh: ran: $(marks)"

echo "1..$n"
[ $failed -eq 0 ]

#!/bin/bash
# The test command's budget: a fresh clone's `make check`, then the same
# clone's second run (warm), each timed phase by phase: extraction, each
# kernel build, each test group, and the total.  A benchmark, not a test.
#
# Usage: scripts/bench-check.sh [--cold-ccache] [MAKE ARGS...]
#   --cold-ccache   an empty ccache for the fresh run, as on a new machine
#                   (default: this machine's cache, as CI here sees it)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cold=
if [ "${1:-}" = --cold-ccache ]; then
	cold=1
	shift
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
clone=$scratch/suspend-sync
git clone -q "$top" "$clone" || { echo "bench-check: cannot clone $top" >&2; exit 1; }
[ -n "$cold" ] && export CCACHE_DIR=$scratch/ccache

run() {
	local log=$scratch/$1.log start
	start=$(date +%s)
	(cd "$clone" && make check "${@:2}") > "$log" 2>&1
	echo "$? $(($(date +%s) - start))"
}

read -r rc1 t1 < <(run fresh "$@")
read -r rc2 t2 < <(run warm "$@")

# "phase seconds" lines from a run's log
phases() {
	awk '/kernel.sh: extracted / { printf "extract-%s %s\n", $3, $(NF - 1) }
	     /^# build / { sub(/^# build /, ""); sub(/:/, ""); printf "build-%s-%s %s\n", $1, $2, $3 }
	     /^# ---- .*: [0-9]+ passed/ { printf "%s %s\n", $3, $(NF - 1) }' "$1" |
	sed 's/:$//'
}
phases "$scratch/fresh.log" > "$scratch/p1"
phases "$scratch/warm.log" > "$scratch/p2"
printf '%-28s %10s %10s\n' phase "fresh (s)" "warm (s)"
join -a1 -a2 -e- -o 0,1.2,2.2 <(sort "$scratch/p1") <(sort "$scratch/p2") |
	while read -r p a b; do printf '%-28s %10s %10s\n' "$p" "$a" "$b"; done
printf '%-28s %10s %10s\n' total "$t1" "$t2"
printf '%-28s %10s %10s\n' "exit status" "$rc1" "$rc2"
echo "bench-check: ccache $([ -n "$cold" ] && echo cold || echo "as on this machine"); $(tail -1 "$scratch/fresh.log")"

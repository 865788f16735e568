#!/bin/bash
# t_kernel: the kernels make check boots are what a clean build would give
# (TAP).
#
# Guards the incremental variant: the skipsync build starts as a copy of the
# default build, so its .config must still equal the one a fresh
# configuration (tinyconfig + fragments) makes, and differ from the
# default's by CONFIG_SUSPEND_SKIP_SYNC alone.  The same for the default.
#
# Usage: KVER=6.1 scripts/t_kernel.sh   (after make kernel kernel-skipsync)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=1; fi; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "TAP version 13"
for spec in default: skipsync:guest/skipsync.config; do
	v=${spec%%:*} extra=${spec#*:}
	obj=$top/build/obj-$KVER-$v
	KVER=$KVER "$top/scripts/kernel.sh" --variant "$v" ${extra:+--extra-config "$top/$extra"} \
		--config-only "$scratch/$v" >/dev/null 2>"$scratch/log"
	d=$(diff "$scratch/$v/.config" "$obj/.config" 2>&1)
	r=$?
	[ $r -eq 0 ] || { echo "$d" | head -20 | sed 's/^/# /'; sed 's/^/# /' "$scratch/log"; }
	ok $r "$KVER $v: .config equals a clean configuration's"
done
d=$(diff "$top/build/obj-$KVER-default/.config" "$top/build/obj-$KVER-skipsync/.config" |
	grep '^[<>]' | grep -v 'SUSPEND_SKIP_SYNC' || true)
[ -z "$d" ]
r=$?
[ $r -eq 0 ] || echo "$d" | head -20 | sed 's/^/# /'
ok $r "$KVER skipsync differs from default by CONFIG_SUSPEND_SKIP_SYNC alone"
echo "1..$n"
exit $failed

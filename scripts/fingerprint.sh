#!/bin/bash
# Prints one sha256 over what produces the evidence: the diffs of the tree's
# series, the lab's library and programs, the agent, the guest and the
# evidence scripts.  Tests are not in it: fixing a test leaves the numbers valid.
# Usage: KVER=6.1 scripts/fingerprint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
KVER=${KVER:-6.1}
{
	ls patches/"$KVER"/*/000[1-9]-*.patch
	git ls-files -co --exclude-standard bench/core bench/harness bench/lab \
		bench/powercut bench/report bench/cli bench/Makefile proto \
		guest/agent guest/init guest/kernel.config guest/mkinitramfs.sh \
		guest/mktools.sh guest/workloads bench/nbdkit scripts/evidence.sh \
		scripts/evidence-section.sh scripts/evidence-workloads.jq scripts/evidence-fs.sh \
		bench/crash
} | grep -v '/t_[^/]*$' | LC_ALL=C sort -u | while read -r f; do
	[ -f "$f" ] || continue
	case $f in
	# a patch's code, not its message or identity (scripts/sign-series.sh)
	patches/*) h=$(sed -n '/^diff --git /,/^-- $/p' "$f" | sha256sum | cut -d' ' -f1) ;;
	*) h=$(sha256sum < "$f" | cut -d' ' -f1) ;;
	esac
	printf '%s %s\n' "$h" "$f"
done | sha256sum | cut -d' ' -f1

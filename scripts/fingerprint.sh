#!/bin/bash
# Prints one sha256 over the series and the lab: the code that produces the
# evidence.  A change to any of these files makes the evidence stale.
# Usage: KVER=6.1 scripts/fingerprint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
KVER=${KVER:-6.1}
{
	ls patches/"$KVER"/*/000[1-9]-*.patch
	git ls-files -co --exclude-standard bench proto guest | grep -E '\.(c|h|sh|config)$|/Makefile$|^guest/init$'
	echo scripts/evidence.sh; echo scripts/evidence-section.sh
} | LC_ALL=C sort -u | while read -r f; do
	printf '%s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$f"
done | sha256sum | cut -d' ' -f1

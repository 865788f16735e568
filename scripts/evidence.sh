#!/bin/bash
# The series' evidence: one fixed experiment on the patched kernel, turned
# into a short section (table + plot) that the cover letter and the README
# carry.  Every number comes from the lab's JSON; the section ends with a
# fingerprint of the series and the lab (scripts/fingerprint.sh) that
# `make check` recomputes, so stale numbers cannot ship silently.
#
# Usage: KVER=6.1 scripts/evidence.sh KERNEL INITRD TOOLS_DISK
# Each tree's cover letter gets its own section; the README shows 6.1's.
#   EVIDENCE_CYCLES (default 3), EVIDENCE_CUTS (default 10) size the run;
#   EVIDENCE_WB_CYCLES (default 3) the cycles per workload and setting in
#   the kernel's default writeback, EVIDENCE_SD_CUTS (default 3) the sd cuts.
#   EVIDENCE_FS (default "xfs btrfs f2fs"; ext4 is the rest) the other
#   filesystems, EVIDENCE_FS_CYCLES (default 1) their cycles per workload
#   and setting, EVIDENCE_FS_CUTS (default 1) their cuts per setting.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
kernel=$1 initrd=$2 tools=$3
KVER=${KVER:-6.1}
cycles=${EVIDENCE_CYCLES:-3}
cuts=${EVIDENCE_CUTS:-10}
wbcycles=${EVIDENCE_WB_CYCLES:-3}
sdcuts=${EVIDENCE_SD_CUTS:-3}
fss=${EVIDENCE_FS-xfs btrfs f2fs}
fscycles=${EVIDENCE_FS_CYCLES:-1}
fscuts=${EVIDENCE_FS_CUTS:-1}
README_KVER=6.1	# the tree whose evidence the README shows
out=$top/results/evidence-$KVER
profiles="nvme sata hdd emmc sd"
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)

# The lab exits 1 when a cycle failed, after writing its report: such a
# cycle is a finding the section lists, not a reason to stop.
lab() {
	local dir=$1 rc=0
	shift
	"$top/bench/obj/suspend-lab" --kernel "$kernel" --initrd "$initrd" \
		--tools-disk "$tools" --out "$dir" --quiet "$@" >/dev/null || rc=$?
	if [ "$rc" -ne 0 ] && { [ "$rc" -ne 1 ] || [ ! -s "$dir/latency.json" ]; }; then
		echo "evidence.sh: suspend-lab failed (exit $rc) for $dir" >&2
		exit 1
	fi
}

# 1. realistic writeback: every workload under the kernel's own vm.dirty_*,
# the request at a seeded moment, on the profiles with and without a cache
for p in emmc sd; do
	echo "evidence: default writeback, every workload, profile $p" >&2
	lab "$out/default-$p" --state mem --sync both --workload all \
		--writeback default --dirty 64M --cycles "$wbcycles" --profile "$p"
done

# 2. the upper bound: held writeback, a dirty sweep, every disk profile
for p in $profiles; do
	echo "evidence: latency, profile $p" >&2
	lab "$out/$p" --state mem --sync both --dirty 0,64M,256M --cycles "$cycles" \
		--profile "$p"
done
mkdir -p "$top/docs"
cp "$out/emmc/latency.svg" "$top/docs/evidence-$KVER-latency-emmc.svg"

# 3. power cuts: both settings, cut points mixed, eMMC; while suspended, sd
echo "evidence: $cuts power cuts per setting" >&2
"$top/bench/obj/power-cut" --kernel "$kernel" --initrd "$initrd" \
	--tools-disk "$tools" --out "$out/powercut" --cycles "$cuts" --cut mix \
	--size 8M --quiet >/dev/null || true
"$top/bench/obj/power-cut" --kernel "$kernel" --initrd "$initrd" \
	--tools-disk "$tools" --out "$out/powercut-sd" --cycles "$sdcuts" --cut suspended \
	--profile sd --size 8M --quiet >/dev/null || true

# 4. the other filesystems, smaller: the default-writeback sweep on emmc
# and sd, cuts while suspended on emmc, the crash states of one sync=1 cycle
for fs in $fss; do
	for p in emmc sd; do
		echo "evidence: $fs, default writeback, every workload, profile $p" >&2
		lab "$out/fs-$fs-$p" --fs "$fs" --state mem --sync both --workload all \
			--writeback default --dirty 64M --cycles "$fscycles" --profile "$p"
	done
	echo "evidence: $fs, $fscuts power cuts per setting while suspended" >&2
	"$top/bench/obj/power-cut" --kernel "$kernel" --initrd "$initrd" \
		--tools-disk "$tools" --out "$out/pc-$fs" --fs "$fs" --cycles "$fscuts" \
		--cut suspended --size 8M --quiet >/dev/null || true
	echo "evidence: $fs, the crash states of one sync=1 cycle" >&2
	"$top/bench/obj/crash-states" all --kernel "$kernel" --initrd "$initrd" \
		--tools-disk "$tools" --out "$out/cs-$fs" --fs "$fs" --sync 1 --cycles 1 \
		--prefixes 4 --gap-states 2 --per-boot 24 --quiet >/dev/null || true
	rm -rf "$out/cs-$fs/crash-rec"	# the images: the report is what stays
done

# 5. the section
KVER=$KVER EVIDENCE_MIN=$(( ($(date +%s) - start) / 60 )) EVIDENCE_FS="$fss" \
	"$top/scripts/evidence-section.sh" "$out" "$cycles" "$cuts" "$wbcycles" "$sdcuts" > "$out/EVIDENCE.txt"

# 6. into the tree's cover letter and, for the default tree, the README
targets="$top/patches/$KVER/suspend-sync/0000-cover-letter.patch"
[ "$KVER" = "$README_KVER" ] && targets="$targets $top/README.md"
for f in $targets; do
	if ! grep -q '^\[evidence: begin\]' "$f" || ! grep -q '^\[evidence: end\]' "$f"; then
		echo "evidence.sh: $f has no [evidence: begin]/[evidence: end] markers" >&2
		exit 1
	fi
	awk -v sec="$out/EVIDENCE.txt" '
		/^\[evidence: begin\]/ { print; while ((getline l < sec) > 0) print l; skip = 1; next }
		/^\[evidence: end\]/ { skip = 0 }
		!skip { print }' "$f" > "$f.tmp"
	mv "$f.tmp" "$f"
done
cat "$out/EVIDENCE.txt"

#!/bin/bash
# Build a patched guest kernel: extract, apply the series, configure, build.
# Incremental: re-extracts only when the tarball changes, re-applies only a
# changed series (reverting the old one first), reconfigures only when the
# fragment changes.  Prints the bzImage path on its last line.
#
# Usage: scripts/kernel.sh [--variant NAME] [--extra-config FILE]
#   KVER=6.1 (default)   selects /usr/src/linux-source-$KVER.tar.xz and patches/$KVER
#   --variant NAME       separate build directory (e.g. skipsync) for the same source
#   --extra-config FILE  another fragment merged after guest/kernel.config
#   --upto N             apply only the first N patches (bisection builds)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
KVER=${KVER:-6.1}
variant=default
extra=
upto=
while [ $# -gt 0 ]; do
	case "$1" in
	--variant) variant=${2:?}; shift 2 ;;
	--extra-config) extra=$(realpath "${2:?}"); shift 2 ;;
	--upto) upto=${2:?}; shift 2 ;;
	*) echo "kernel.sh: unknown option '$1' (valid: --variant NAME, --extra-config FILE, --upto N)" >&2; exit 2 ;;
	esac
done

die() { echo "kernel.sh: $*" >&2; exit 1; }
log() { echo "kernel.sh: $*" >&2; }

tarball=/usr/src/linux-source-$KVER.tar.xz
series=$top/patches/$KVER
frag=$top/guest/kernel.config
src=$top/build/src-$KVER
obj=$top/build/obj-$KVER-$variant
[ -d "$series" ] || die "no series for KVER=$KVER (no $series)"
KVER=$KVER "$top/scripts/deps.sh" build
[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-$KVER)"

# 1. Extract, unless the same tarball is already extracted.
stamp=$(stat -c '%s %Y' "$tarball")
if [ ! -f "$src/.extracted" ] || [ "$(cat "$src/.extracted")" != "$stamp" ]; then
	log "extracting $tarball"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	mkdir -p "$src.tmp/.series"
	echo "$stamp" > "$src.tmp/.extracted"
	mv "$src.tmp" "$src"
fi

# 2. Apply the series; revert a previously applied, different one first.
mapfile -t want < <(find "$series" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | sort)
[ ${#want[@]} -gt 0 ] || die "no patches in $series"
if [ -n "$upto" ]; then
	[[ "$upto" =~ ^[0-9]+$ ]] && [ "$upto" -ge 1 ] && [ "$upto" -le ${#want[@]} ] ||
		die "--upto: '$upto' is out of range (valid: 1 to ${#want[@]})"
	want=("${want[@]:0:$upto}")
fi
same=1
mapfile -t have < <(find "$src/.series" -maxdepth 1 -name '*.patch' | sort)
if [ ${#have[@]} -ne ${#want[@]} ]; then
	same=0
else
	for i in "${!want[@]}"; do
		cmp -s "${want[$i]}" "${have[$i]}" || same=0
	done
fi
if [ $same -eq 0 ]; then
	for ((i = ${#have[@]} - 1; i >= 0; i--)); do
		log "reverting $(basename "${have[$i]}")"
		patch -d "$src" -p1 -R -s --batch --fuzz=0 --no-backup-if-mismatch < "${have[$i]}" ||
			die "cannot revert $(basename "${have[$i]}"); remove $src to re-extract"
		rm -f "${have[$i]}"
	done
	for p in "${want[@]}"; do
		log "applying $(basename "$p")"
		if ! out=$(patch -d "$src" -p1 --dry-run --batch --fuzz=0 < "$p" 2>&1); then
			echo "$out" >&2
			die "$(basename "$p") does not apply to $src (every hunk must apply, without fuzz)"
		fi
		patch -d "$src" -p1 -s --batch --fuzz=0 --no-backup-if-mismatch < "$p"
		cp "$p" "$src/.series/"
	done
fi

# 3. Configure when the fragments changed.
mkdir -p "$obj"
fsum=$(cat "$frag" ${extra:+"$extra"} | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragment.sha256" 2>/dev/null)" != "$fsum" ]; then
	log "configuring $obj (tinyconfig + $(basename "$frag")${extra:+ + $(basename "$extra")})"
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$frag" ${extra:+"$extra"} >/dev/null)
	make -s -C "$src" O="$obj" olddefconfig >/dev/null
	bad=$(cat "$frag" ${extra:+"$extra"} | grep -E '^CONFIG_[A-Z0-9_]+=' | while read -r line; do
		grep -qxF "$line" "$obj/.config" || echo "$line"
	done)
	[ -z "$bad" ] || die "options dropped by Kconfig (missing dependency?): $(echo $bad)"
	echo "$fsum" > "$obj/.fragment.sha256"
fi

# 4. Build.
log "building bzImage in $obj"
start=$(date +%s)
# grep finds nothing to print when make -s has nothing to do: only make's
# status counts (pipefail).
make -C "$src" O="$obj" -j"$(nproc)" bzImage 2>&1 |
	{ grep --line-buffered -v -E '^make(\[[0-9]+\])?: (Entering|Leaving)' >&2 || true; }
log "bzImage ready after $(($(date +%s) - start)) s"
echo "$obj/arch/x86/boot/bzImage"

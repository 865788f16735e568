#!/bin/bash
# Build a patched guest kernel: extract, apply the series, configure, build.
# Incremental: re-extracts only when the tarball changes, re-applies only
# from the first changed patch (reverting the old ones from there first),
# reconfigures only when the fragments change.  A variant (--variant)
# starts as a copy of the default build, so Kbuild's per-symbol
# dependencies rebuild only what its extra options touch.  Prints the
# bzImage path on its last line.
#
# Usage: scripts/kernel.sh [--variant NAME] [--extra-config FILE] [--upto N]
#   KVER=6.1 (default)   selects /usr/src/linux-source-$KVER.tar.xz and
#                        the series under patches/$KVER (see patches/series)
#   --variant NAME       separate build directory (e.g. skipsync) for the same source
#   --extra-config FILE  another fragment merged after guest/kernel.config
#   --upto N             apply only the first N patches (bisection builds)
#   --config-only DIR    write the .config a clean build would use into DIR
#                        and build nothing (the variant check)
#   --apply-only         extract and apply the series, build nothing
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/series.sh"
KVER=${KVER:-6.1}
variant=default
extra=
upto=
config_only=
apply_only=
while [ $# -gt 0 ]; do
	case "$1" in
	--variant) variant=${2:?}; shift 2 ;;
	--extra-config) extra=$(realpath "${2:?}"); shift 2 ;;
	--upto) upto=${2:?}; shift 2 ;;
	--config-only) config_only=$(realpath -m "${2:?}"); shift 2 ;;
	--apply-only) apply_only=1; shift ;;
	*) echo "kernel.sh: unknown option '$1' (valid: --variant NAME, --extra-config FILE, --upto N, --config-only DIR, --apply-only)" >&2; exit 2 ;;
	esac
done

die() { echo "kernel.sh: $*" >&2; exit 1; }
log() { echo "kernel.sh: $*" >&2; }

tarball=/usr/src/linux-source-$KVER.tar.xz
frag=$top/guest/kernel.config
src=$top/build/src-$KVER
obj=$top/build/obj-$KVER-$variant
base=$top/build/obj-$KVER-default
[ -d "$top/patches/$KVER" ] || die "no series for KVER=$KVER (no $top/patches/$KVER)"
KVER=$KVER "$top/scripts/deps.sh" build
[ -f "$tarball" ] || die "$tarball missing (apt-get install linux-source-$KVER)"

# One build of a tree at a time: the source tree is shared by its variants.
mkdir -p "$top/build"
exec 9>"$top/build/.lock-$KVER"
flock 9

# ccache makes a rebuild in a fresh clone cost seconds; the compiler
# command must be the same in every make call, or Kbuild rebuilds all.
# CCACHE_BASEDIR makes the cached paths relative, so another clone (CI's)
# hits the same cache.
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
export CCACHE_BASEDIR=$top/build

fragments() { cat "$frag" ${extra:+"$extra"}; }

# tinyconfig + the fragments, as every build of ours is configured
configure() {
	make -s -C "$src" O="$1" CC="$cc" tinyconfig >/dev/null
	(cd "$1" && "$src/scripts/kconfig/merge_config.sh" -m -O "$1" "$1/.config" "$frag" ${extra:+"$extra"} >/dev/null)
	make -s -C "$src" O="$1" CC="$cc" olddefconfig >/dev/null
}

# 1. Extract, unless the same tarball is already extracted.
stamp=$(stat -c '%s %Y' "$tarball")
if [ ! -f "$src/.extracted" ] || [ "$(cat "$src/.extracted")" != "$stamp" ]; then
	log "extracting $tarball"
	t0=$(date +%s)
	rm -rf "$src" "$src.tmp" "$top/build/obj-$KVER-"*
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	mkdir -p "$src.tmp/.series"
	echo "$stamp" > "$src.tmp/.extracted"
	mv "$src.tmp" "$src"
	log "extracted $KVER in $(($(date +%s) - t0)) s"
fi

# 2. Apply the series; revert a previously applied, different one first.
# Applied copies are named by position, so two series' 0001-... never meet.
mapfile -t want < <(series_patches "$KVER")
[ ${#want[@]} -gt 0 ] || die "no patches under $top/patches/$KVER"
if [ -n "$upto" ]; then
	[[ "$upto" =~ ^[0-9]+$ ]] && [ "$upto" -ge 1 ] && [ "$upto" -le ${#want[@]} ] ||
		die "--upto: '$upto' is out of range (valid: 1 to ${#want[@]})"
	want=("${want[@]:0:$upto}")
fi
# Only the patches from the first difference on are reverted and applied:
# the files of the common prefix keep their times, and are not rebuilt.
mapfile -t have < <(find "$src/.series" -maxdepth 1 -name '*.patch' | sort)
keep=0
while [ $keep -lt ${#have[@]} ] && [ $keep -lt ${#want[@]} ] &&
	cmp -s "${want[$keep]}" "${have[$keep]}"; do
	keep=$((keep + 1))
done
for ((i = ${#have[@]} - 1; i >= keep; i--)); do
	log "reverting $(basename "${have[$i]}")"
	patch -d "$src" -p1 -R -s --batch --fuzz=0 --no-backup-if-mismatch < "${have[$i]}" ||
		die "cannot revert $(basename "${have[$i]}"); remove $src to re-extract"
	rm -f "${have[$i]}"
done
for ((i = keep; i < ${#want[@]}; i++)); do
	p=${want[$i]}
	name=$(basename "$(dirname "$p")")/$(basename "$p")
	log "applying $name"
	if ! out=$(patch -d "$src" -p1 --dry-run --batch --fuzz=0 < "$p" 2>&1); then
		echo "$out" >&2
		die "$name does not apply to $src (every hunk must apply, without fuzz)"
	fi
	patch -d "$src" -p1 -s --batch --fuzz=0 --no-backup-if-mismatch < "$p"
	cp "$p" "$src/.series/$(printf '%03d' "$i")-$(basename "$p")"
done

[ -z "$apply_only" ] || exit 0
if [ -n "$config_only" ]; then
	rm -rf "$config_only"
	mkdir -p "$config_only"
	configure "$config_only"
	exit 0
fi

# 3. A variant starts from the default build: same objects, then only
# what its extra symbols reach is rebuilt.
copied=
if [ "$variant" != default ] && [ ! -f "$obj/.config" ] && [ -f "$base/vmlinux" ]; then
	log "copying $base to $obj"
	rm -rf "$obj.tmp"
	cp -a "$base" "$obj.tmp"
	rm -f "$obj.tmp/.fragment.sha256"
	mv "$obj.tmp" "$obj"
	copied=$(mktemp "$top/build/.copied.XXXXXX")	# when: outside the copy
fi

# 4. Configure when the fragments changed.
mkdir -p "$obj"
fsum=$(fragments | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.fragment.sha256" 2>/dev/null)" != "$fsum" ]; then
	log "configuring $obj (tinyconfig + $(basename "$frag")${extra:+ + $(basename "$extra")})"
	configure "$obj"
	bad=$(fragments | grep -E '^CONFIG_[A-Z0-9_]+=' | while read -r line; do
		grep -qxF "$line" "$obj/.config" || echo "$line"
	done)
	[ -z "$bad" ] || die "options dropped by Kconfig (missing dependency?): $(echo $bad)"
	echo "$fsum" > "$obj/.fragment.sha256"
fi

# 4b. objtool's own build records absolute paths, so in the copy it is
# built again, and every object names objtool as a prerequisite: build it
# now (syncconfig runs first and marks each changed symbol in
# include/config/) and date the copied outputs as objtool, then the marks
# of the changed symbols later still: only what uses them is rebuilt.
if [ -n "$copied" ] && [ -x "$base/tools/objtool/objtool" ]; then
	make -s -C "$src" O="$obj" CC="$cc" tools/objtool >/dev/null
	find "$obj" \( -path "$obj/tools" -o -path "$obj/include/config" \) -prune -o \
		-type f ! -name .config -print0 | xargs -0 touch -r "$obj/tools/objtool/objtool"
	find "$obj/include/config" -newer "$copied" -type f -exec touch {} +
	# sources changed since the default build (a bisection step reverts
	# patches before the copy) must stay newer than the redated outputs
	find "$src" -path "$src/.series" -prune -o -type f -newer "$base/vmlinux" -print0 |
		xargs -0 -r touch
fi
[ -n "$copied" ] && rm -f "$copied"

# 5. Build.
log "building bzImage in $obj"
start=$(date +%s)
# grep finds nothing to print when make -s has nothing to do: only make's
# status counts (pipefail).
make -C "$src" O="$obj" CC="$cc" -j"$(nproc)" bzImage 2>&1 |
	{ grep --line-buffered -v -E '^make(\[[0-9]+\])?: (Entering|Leaving)' >&2 || true; }
log "bzImage ready after $(($(date +%s) - start)) s"
echo "$obj/arch/x86/boot/bzImage"

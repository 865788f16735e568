#!/bin/sh
# Install the Debian packages the project needs, only those missing.
# Usage: scripts/deps.sh [build|lab|all]   (default: all)
set -eu

build="gcc make bc flex bison libelf-dev libssl-dev cpio xz-utils patch perl
       busybox-static libc6-dev e2fsprogs ccache"
# nbdkit: the drive model; nbdkit-plugin-dev: the headers of its filter
# xfsprogs, btrfs-progs, f2fs-tools: the lab's filesystems (harness/fskind.c)
# chromium: the report page's test renders it headless (t_report_html)
lab="qemu-system-x86 ovmf fio libjansson-dev pkg-config gnuplot-nox jq
     nbdkit nbdkit-plugin-dev xfsprogs btrfs-progs f2fs-tools chromium"

case "${1:-all}" in
build) want="$build" ;;
lab) want="$lab" ;;
all) want="$build $lab" ;;
*) echo "deps.sh: unknown set '$1' (valid: build, lab, all)" >&2; exit 2 ;;
esac
# The kernel source tarballs come from linux-source-<KVER>; KVER may list
# several trees ("6.1 6.12").
for k in ${KVER:-}; do
	want="$want linux-source-$k"
done

missing=
for p in $want; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$s" in *" installed") ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing Debian packages:$missing" >&2
	echo "deps.sh: run as root: apt-get install$missing" >&2
	exit 1
fi
echo "deps.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null

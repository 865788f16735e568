#!/bin/sh
# Packs the guest initramfs: static busybox, /init, and our static binaries.
# Usage: guest/mkinitramfs.sh OUT.cpio.gz BINARY...
set -eu
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
bb=/bin/busybox
ldd "$bb" >/dev/null 2>&1 && { echo "mkinitramfs: $bb is not static (apt-get install busybox-static)" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/etc"
cp "$bb" "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$here/init" "$root/init"
chmod 755 "$root/init"
for b in "$@"; do
	cp "$b" "$root/bin/"
done
# uid 1000 exists for the unprivileged-writer tests
printf 'root:x:0:0:root:/:/bin/sh\nuser:x:1000:1000:user:/:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nuser:x:1000:\n' > "$root/etc/group"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -9 > "$out.tmp"
mv "$out.tmp" "$out"

#!/bin/sh
# Builds the read-only tools disk: Debian's fio with every shared library it
# loads, too large for the initramfs.  The guest mounts it at /opt/tools and
# runs /opt/tools/bin/fio (a wrapper that uses the disk's own loader).
# Usage: guest/mktools.sh OUT.img
set -eu
out=$1
fio=$(command -v fio) || { echo "mktools: fio missing (apt-get install fio)" >&2; exit 1; }
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/lib"
cp "$fio" "$root/lib/fio.bin"
ldd "$fio" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }' | while read -r lib; do
	cp -L "$lib" "$root/lib/"
done
loader=$(ls "$root/lib" | grep '^ld-linux' | head -1)
[ -n "$loader" ] || { echo "mktools: no dynamic loader found for $fio" >&2; exit 1; }
cat > "$root/bin/fio" <<EOS
#!/bin/sh
exec /opt/tools/lib/$loader --library-path /opt/tools/lib /opt/tools/lib/fio.bin "\$@"
EOS
chmod 755 "$root/bin/fio"
# the lab's workloads (fio job files), at /opt/tools/workloads
mkdir -p "$root/workloads"
cp "$(dirname "$0")"/workloads/* "$root/workloads/"
touch "$root/.sstools"
kb=$(du -sk "$root" | cut -f1)
rm -f "$out.tmp"
mkfs.ext4 -q -F -L sstools -d "$root" "$out.tmp" $((kb * 12 / 10 + 8192))k >/dev/null
mv "$out.tmp" "$out"

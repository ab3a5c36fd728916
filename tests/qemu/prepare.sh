#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prepare everything the QEMU guest tests need, once; later runs reuse the cache and return fast.
#
#   tests/qemu/prepare.sh [CACHE_DIR]
#
# CACHE_DIR defaults to $BAM_QEMU_CACHE, else ./build/qemu-cache. On the host this installs
# (apt-get, as root) qemu-system-x86, busybox-static, kmod and the Debian kernel's headers.
# The kernel image itself is never installed: its .deb is unpacked into the cache. Afterwards
# the cache holds:
#   kver                      the guest kernel release, e.g. 6.1.0-56-amd64
#   kdir                      its headers directory, for building bam.ko
#   vmlinuz                   the guest kernel
#   vmlinux                   the same, uncompressed (booted through PVH: 7 s faster under TCG)
#   modules/*.ko, modules/load.list   guest modules (nvme, vfio-pci, uio_pci_generic, deps),
#                             decompressed, load.list in dependency order
set -euo pipefail

cache=${1:-${BAM_QEMU_CACHE:-build/qemu-cache}}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# Modules the guest loads at boot, in this order, each after its dependencies.
guest_modules=(nvme_core nvme vfio vfio_iommu_type1 vfio_pci uio uio_pci_generic)

log() { echo "prepare: $*" >&2; }
die() { echo "prepare: error: $*" >&2; exit 1; }

apt_updated=0
apt_install() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" -eq 0 ] || die "need root to install: ${missing[*]}"
    if [ $apt_updated -eq 0 ]; then
        apt-get update -q >&2
        apt_updated=1
    fi
    log "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

apt_install qemu-system-x86 busybox-static kmod xz-utils zstd

# The kernel Debian's linux-image-amd64 points at now.
resolve_kver() {
    apt-cache depends linux-image-amd64 2>/dev/null |
        sed -n 's/^ *Depends: linux-image-\([0-9][^ ]*-amd64\)$/\1/p' | head -n1
}
kver=$(resolve_kver)
if [ -z "$kver" ]; then
    [ "$(id -u)" -eq 0 ] && { apt-get update -q >&2; apt_updated=1; kver=$(resolve_kver); }
fi
[ -n "$kver" ] || die "cannot resolve the kernel behind linux-image-amd64 (apt-cache depends)"

# The stamp names the kernel and the module list, so changing either prepares again.
stamp="$cache/.prepared-$kver-$(echo "${guest_modules[*]}" | md5sum | cut -c1-8)"
if [ -f "$stamp" ] && [ -f "$cache/vmlinuz" ] && [ -d "/usr/src/linux-headers-$kver" ]; then
    log "cache $cache is ready for $kver"
    exit 0
fi
log "preparing $cache for kernel $kver"

apt_install "linux-headers-$kver"

# Unpack the kernel image package into the cache (no host install).
root="$cache/linux-image-$kver"
if [ ! -f "$root/boot/vmlinuz-$kver" ]; then
    debdir="$cache/debs"
    mkdir -p "$debdir"
    if ! ls "$debdir"/linux-image-"$kver"_*.deb >/dev/null 2>&1; then
        download() { (cd "$debdir" && apt-get download -q -o APT::Sandbox::User=root "linux-image-$kver" >&2); }
        download || { [ $apt_updated -eq 0 ] && [ "$(id -u)" -eq 0 ] && apt-get update -q >&2 && download; } ||
            die "apt-get download linux-image-$kver failed"
    fi
    rm -rf "$root.tmp"
    dpkg-deb -x "$(ls "$debdir"/linux-image-"$kver"_*.deb | head -n1)" "$root.tmp"
    rm -rf "$root"
    mv "$root.tmp" "$root"
fi
[ -f "$root/boot/vmlinuz-$kver" ] || die "no boot/vmlinuz-$kver in the package"
depmod -b "$root" "$kver"

# Guest modules and their dependencies, in load order, decompressed.
moddir="$cache/modules"
rm -rf "$moddir"
mkdir -p "$moddir"
: >"$moddir/load.list"
for m in "${guest_modules[@]}"; do
    modprobe -d "$root" -S "$kver" --show-depends "$m" | while read -r kind path _; do
        [ "$kind" = insmod ] || continue # builtin modules need nothing
        name=$(basename "$path")
        case "$name" in
        *.ko.xz) out=${name%.xz}; xz -dc "$path" >"$moddir/$out" ;;
        *.ko.zst) out=${name%.zst}; zstd -qdc "$path" >"$moddir/$out" ;;
        *.ko) out=$name; cp "$path" "$moddir/$out" ;;
        *) die "unexpected module file $path" ;;
        esac
        grep -qx "$out" "$moddir/load.list" || echo "$out" >>"$moddir/load.list"
    done
done

cp "$root/boot/vmlinuz-$kver" "$cache/vmlinuz"
# The bzImage decompresses itself in ~7 s under TCG. Unpack the ELF vmlinux inside it once;
# QEMU boots that directly through PVH (CONFIG_PVH) and the guest starts in under a second.
python3 - "$cache/vmlinuz" "$cache/vmlinux" <<'PY' || { log "no vmlinux extracted; booting vmlinuz"; rm -f "$cache/vmlinux"; }
import gzip, lzma, sys
data = open(sys.argv[1], "rb").read()
for magic, unpack in ((b"\xfd7zXZ\x00", lambda b: lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(b)),
                      (b"\x1f\x8b\x08", lambda b: gzip.GzipFile(fileobj=__import__("io").BytesIO(b)).read1(1 << 30))):
    at = data.find(magic)
    if at >= 0:
        elf = unpack(data[at:])
        if elf[:4] == b"\x7fELF":
            open(sys.argv[2], "wb").write(elf)
            sys.exit(0)
sys.exit(1)
PY
echo "$kver" >"$cache/kver"
echo "/usr/src/linux-headers-$kver" >"$cache/kdir"
# Only vmlinuz and modules/ are used from here on: drop the 400 MB tree and the package.
rm -rf "$root" "$cache/debs"
rm -f "$cache"/.prepared-*
touch "$stamp"
log "ready: kernel $kver, $(wc -l <"$moddir/load.list") guest modules, headers in $(cat "$cache/kdir")"

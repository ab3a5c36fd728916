#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build bam.ko for the guest kernel that prepare.sh cached, out of the source tree.
#
#   tests/qemu/build-kmod.sh CACHE_DIR KMOD_SRC_DIR OUT_DIR
#
# Kbuild writes its objects next to the sources, so the sources are copied to OUT_DIR first.
# Any compiler or modpost warning fails the build. Leaves OUT_DIR/bam.ko.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 CACHE_DIR KMOD_SRC_DIR OUT_DIR" >&2; exit 2; }
cache=$1 src=$2 out=$3
[ -f "$cache/kdir" ] || { echo "build-kmod: no $cache/kdir: run prepare.sh first" >&2; exit 1; }
kdir=$(cat "$cache/kdir")

rm -rf "$out"
mkdir -p "$out/uapi"
cp "$src"/Kbuild "$src"/Makefile "$src"/*.c "$src"/*.h "$out/"
cp "$src"/uapi/*.h "$out/uapi/"

make -C "$kdir" M="$out" BAM_WERROR=1 ${NVIDIA_SRC_DIR:+NVIDIA_SRC_DIR=$NVIDIA_SRC_DIR} modules 2>&1 |
    tee "$out/build.log"
if grep -qi "warning" "$out/build.log"; then
    echo "build-kmod: the build printed warnings (above)" >&2
    exit 1
fi
[ -f "$out/bam.ko" ] || { echo "build-kmod: no bam.ko" >&2; exit 1; }
echo "build-kmod: built $out/bam.ko against $kdir"

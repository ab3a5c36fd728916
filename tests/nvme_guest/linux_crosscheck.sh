#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# An independent check of bam's user-space drivers, run in the QEMU guest (busybox sh): data
# written through bam must be what Linux's own nvme driver reads back, and data Linux wrote must
# be what bam reads — for each binding (vfio, uio, kmod) and both block sizes (512 B, 4 KiB).
# bam-nvme shuts the controller down cleanly (CC.SHN) before the controller goes back to nvme.
set -eu
BDF=0000:00:01.0
SYS=/sys/bus/pci/devices/$BDF
echo 64 > /proc/sys/vm/nr_hugepages
insmod /bam/bam.ko

fail() { echo "crosscheck: FAILED: $*"; exit 1; }

# bind DRIVER: hand the controller to DRIVER and wait until it is bound.
bind() {
    echo "$1" > "$SYS/driver_override"
    if [ -e "$SYS/driver" ]; then echo "$BDF" > "$SYS/driver/unbind"; fi
    echo "$BDF" > /sys/bus/pci/drivers_probe
    for _ in $(seq 200); do
        if [ -e "$SYS/driver" ] && [ "$(basename "$(readlink "$SYS/driver")")" = "$1" ]; then return 0; fi
        sleep 0.05
    done
    fail "$BDF did not bind to $1"
}

# blockdev NSID: the block device of namespace NSID once nvme has probed it.
blockdev() {
    for _ in $(seq 200); do
        for d in "$SYS"/nvme/nvme*/nvme*n"$1"; do
            if [ -e "$d" ] && [ -b "/dev/$(basename "$d")" ]; then echo "/dev/$(basename "$d")"; return 0; fi
        done
        sleep 0.05
    done
    fail "no block device for namespace $1 of $BDF"
}

# bam_args BINDING: bam-nvme's target options for BINDING (the controller bound for it first).
bam_args() {
    case $1 in
    vfio) bind vfio-pci; echo "--vfio $BDF" ;;
    uio) bind uio_pci_generic; echo "--uio $BDF" ;;
    kmod) bind bam; for _ in $(seq 100); do [ -e /dev/bam0 ] && break; sleep 0.05; done; echo "--kmod /dev/bam0" ;;
    esac
}

checks=0
for binding in vfio uio kmod; do
    for ns in 1 2; do
        if [ "$ns" = 1 ]; then bs=512; else bs=4096; fi
        blocks=$((1048576 / bs))      # 1 MiB at a time
        lba_bam=$((blocks * 2))       # where bam writes and Linux reads
        lba_linux=$((blocks * 4))     # where Linux writes and bam reads

        # bam writes, Linux reads.
        dd if=/dev/urandom of=/tmp/bam.bin bs=4096 count=256 2>/dev/null
        args=$(bam_args $binding)
        # shellcheck disable=SC2086
        bam-nvme write $args --nsid "$ns" --lba "$lba_bam" --in /tmp/bam.bin
        bind nvme
        dev=$(blockdev "$ns")
        dd if="$dev" of=/tmp/linux.bin bs="$bs" skip="$lba_bam" count="$blocks" 2>/dev/null
        cmp /tmp/bam.bin /tmp/linux.bin || fail "$binding, namespace $ns: Linux read back other data than bam wrote"

        # Linux writes, bam reads.
        dd if=/dev/urandom of=/tmp/linux.bin bs=4096 count=256 2>/dev/null
        dd if=/tmp/linux.bin of="$dev" bs="$bs" seek="$lba_linux" conv=fsync 2>/dev/null
        args=$(bam_args $binding)
        # shellcheck disable=SC2086
        bam-nvme read $args --nsid "$ns" --lba "$lba_linux" --blocks "$blocks" --out /tmp/bam.bin
        cmp /tmp/linux.bin /tmp/bam.bin || fail "$binding, namespace $ns: bam read other data than Linux wrote"
        bind nvme
        echo "crosscheck: $binding, namespace $ns ($bs B blocks): both directions match"
        checks=$((checks + 2))
    done
done

# bam-nvme itself: identify, a pattern written and then read by 2 threads on 2 queue pairs, every
# read checked.
args=$(bam_args vfio)
# shellcheck disable=SC2086
bam-nvme identify $args | tee /tmp/identify.txt
grep -q "^serial *bam0$" /tmp/identify.txt || fail "bam-nvme identify: serial is not bam0"
grep -q "^namespace 2 *4096 blocks of 4096 bytes" /tmp/identify.txt || fail "bam-nvme identify: namespace 2"
# shellcheck disable=SC2086
bam-nvme write $args --lba 0 --blocks 8192 --pattern 9
# shellcheck disable=SC2086
bam-nvme bench $args --queues 2 --threads 2 --depth 8 --span 8192 --verify 9 --seconds 1
checks=$((checks + 2))
bind nvme
echo "crosscheck: $checks passed, 0 failed"

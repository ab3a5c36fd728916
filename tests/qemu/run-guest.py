#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Boot a small Linux guest under QEMU (TCG) with emulated NVMe controllers, run one command in
it, and exit with that command's exit status.

    run-guest.py [options] -- COMMAND [ARGS...]

The guest is Debian's kernel plus a busybox initramfs built on the fly (see prepare.sh for the
cache). Files given with --file land in /bam, which is also the command's working directory and
first on its PATH. The guest's serial console is streamed to stdout as it comes.

NVMe controllers (default: one, with one 64 MiB namespace of 512-byte blocks):
    --nvme [KEY=VAL,...]   add a controller; KEY=VALs go to `-device nvme` (max_ioqpairs, mdts...)
    --ns [size=64M,][block=512,][KEY=VAL,...]
                           add a namespace to the last --nvme; other KEY=VALs go to `-device nvme-ns`
Controller i sits at PCI address 0000:00:0(i+1).0 and has serial number bam<i>.
Exit status: the guest command's; 124 when the guest timed out; 125 when it ended without
reporting a status (a kernel panic, say); 2 for bad arguments.
"""
import argparse
import os
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

EXIT_MARKER = "@@BAM_GUEST_EXIT@@"

INIT_SCRIPT = r"""#!/bin/busybox sh
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
up() { cut -d' ' -f1 /proc/uptime; }
echo "bam-guest: kernel $(uname -r) up after $(up) s"
for m in $(cat /modules/load.list); do
    insmod /modules/$m || echo "bam-guest: insmod $m failed"
done
cd /bam
export PATH=/bam:/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp
t0=$(up)
echo "bam-guest: running $(cat /bam/.cmd)"
sh /bam/.cmd
rc=$?
t1=$(up)
if [ $rc -ne 0 ]; then
    echo "bam-guest: exit status $rc; last kernel messages:"
    dmesg | tail -n 40
fi
echo "%s $rc $t0 $t1"
poweroff -f
""" % EXIT_MARKER


def log(msg):
    print(f"run-guest: {msg}", flush=True)


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B") or "0"
    if text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def parse_kv(text):
    out = {}
    for item in filter(None, (text or "").split(",")):
        key, sep, val = item.partition("=")
        if not sep:
            raise ValueError(f"expected KEY=VAL, got {item!r}")
        out[key.strip()] = val.strip()
    return out


class Cpio:
    """A newc-format cpio archive written by hand, so nothing needs root or a cpio binary."""

    def __init__(self, path):
        self.f = open(path, "wb")
        self.ino = 1

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        name_b = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0]
        self.ino += 1
        self.f.write(b"070701" + b"".join(b"%08X" % v for v in fields) + name_b)
        self.f.write(b"\0" * (-(110 + len(name_b)) % 4))
        self.f.write(data)
        self.f.write(b"\0" * (-len(data) % 4))

    def dir(self, name):
        self._entry(name, stat.S_IFDIR | 0o755)

    def file(self, name, data, mode=0o644):
        self._entry(name, stat.S_IFREG | mode, data)

    def chardev(self, name, major, minor):
        self._entry(name, stat.S_IFCHR | 0o600, rdev=(major, minor))

    def close(self):
        self._entry("TRAILER!!!", 0)
        self.f.close()


def module_closure(moddir, wanted):
    """Modules to load for the names in wanted, with their dependencies, in load.list order."""
    order = open(os.path.join(moddir, "load.list")).read().split()
    if wanted == "all":
        return order
    if wanted == "none":
        return []
    norm = lambda n: n.replace("-", "_").removesuffix(".ko")
    by_name = {norm(f): f for f in order}
    picked, todo = set(), [norm(n) for n in wanted.split(",") if n]
    while todo:
        name = todo.pop()
        if name in picked:
            continue
        if name not in by_name:
            raise ValueError(f"module {name} is not in the cache (see prepare.sh guest_modules)")
        picked.add(name)
        deps = subprocess.run(["modinfo", "-F", "depends", os.path.join(moddir, by_name[name])],
                              capture_output=True, text=True, check=True).stdout.strip()
        todo += [norm(d) for d in deps.split(",") if d]
    return [f for f in order if norm(f) in picked]


def build_initramfs(path, cache, modules, files, command):
    busybox = shutil.which("busybox") or "/bin/busybox"
    cpio = Cpio(path)
    for d in ["bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc", "sys", "tmp",
              "modules", "bam"]:
        cpio.dir(d)
    cpio.chardev("dev/console", 5, 1)
    cpio.file("bin/busybox", open(busybox, "rb").read(), 0o755)
    cpio.file("init", INIT_SCRIPT.encode(), 0o755)
    moddir = os.path.join(cache, "modules")
    for m in modules:
        cpio.file(f"modules/{m}", open(os.path.join(moddir, m), "rb").read())
    cpio.file("modules/load.list", ("\n".join(modules) + "\n").encode())
    seen = set()
    for f in files:
        name = os.path.basename(f)
        if name in seen:
            raise ValueError(f"two --file arguments are both named {name}")
        seen.add(name)
        mode = 0o755 if os.access(f, os.X_OK) else 0o644
        cpio.file(f"bam/{name}", open(f, "rb").read(), mode)
    cpio.file("bam/.cmd", (shlex.join(command) + "\n").encode())
    cpio.close()


def nvme_args(controllers, workdir):
    args = []
    for i, (ctrl_opts, namespaces) in enumerate(controllers):
        dev = {"id": f"nvme{i}", "serial": f"bam{i}", "addr": f"0x{i + 1:x}"}
        dev.update(ctrl_opts)
        args += ["-device", "nvme," + ",".join(f"{k}={v}" for k, v in dev.items())]
        for j, ns in enumerate(namespaces or [{}]):
            ns = dict(ns)
            size = parse_size(ns.pop("size", "64M"))
            block = ns.pop("block", "512")
            img = os.path.join(workdir, f"nvme{i}n{j + 1}.img")
            with open(img, "wb") as f:
                f.truncate(size)  # sparse
            drive = f"nvme{i}n{j + 1}"
            args += ["-drive", f"file={img},if=none,id={drive},format=raw,cache=unsafe"]
            nsdev = {"drive": drive, "bus": f"nvme{i}", "nsid": str(j + 1),
                     "logical_block_size": block, "physical_block_size": block}
            nsdev.update(ns)
            args += ["-device", "nvme-ns," + ",".join(f"{k}={v}" for k, v in nsdev.items())]
    return args


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", default=os.environ.get("BAM_QEMU_CACHE", "build/qemu-cache"),
                    help="directory prepare.sh filled (default $BAM_QEMU_CACHE or build/qemu-cache)")
    ap.add_argument("--file", action="append", default=[], help="file to put in /bam (repeatable)")
    ap.add_argument("--nvme", action="append", nargs="?", const="", default=None,
                    help="add an NVMe controller, with -device nvme options KEY=VAL,...")
    ap.add_argument("--ns", action="append", default=[], metavar="OPTS",
                    help="add a namespace to the last controller: size=64M,block=512,...")
    ap.add_argument("--modules", default="all",
                    help="guest modules to load at boot: all, none, or a comma list (deps added)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds before QEMU is killed")
    ap.add_argument("--memory", default="1G")
    ap.add_argument("--smp", default="2")
    ap.add_argument("--append", default="", help="extra kernel command line")
    ap.add_argument("--qemu-arg", action="append", default=[], help="extra QEMU argument")
    ap.add_argument("--qemu", default="qemu-system-x86_64")
    ap.add_argument("--verbose", action="store_true", help="boot without 'quiet'")
    ap.add_argument("command", nargs=argparse.REMAINDER)

    # --ns belongs to the --nvme before it, so walk the arguments in order.
    argv = sys.argv[1:]
    controllers, current = [], None
    rest = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest += argv[i:]
            break
        if a.startswith("--nvme"):
            val = a.split("=", 1)[1] if "=" in a else None
            if val is None and i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                val = argv[i + 1]
                i += 1
            current = [parse_kv(val), []]
            controllers.append(current)
        elif a.startswith("--ns"):
            val = a.split("=", 1)[1] if "=" in a else (argv[i + 1] if i + 1 < len(argv) else "")
            i += 0 if "=" in a else 1
            if current is None:
                current = [{}, []]
                controllers.append(current)
            current[1].append(parse_kv(val))
        else:
            rest.append(a)
        i += 1
    args = ap.parse_args(rest)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no guest command given (put it after --)")
    controllers = controllers or [[{}, []]]

    cache = os.path.abspath(args.cache)
    # The uncompressed ELF boots through PVH, skipping ~7 s of decompression under TCG.
    kernel = next((os.path.join(cache, k) for k in ("vmlinux", "vmlinuz")
                   if os.path.exists(os.path.join(cache, k))), None)
    if not kernel:
        log(f"no kernel in {cache}: run tests/qemu/prepare.sh {cache} first")
        return 2
    for f in args.file:
        if not os.path.isfile(f):
            log(f"--file {f}: no such file")
            return 2

    with tempfile.TemporaryDirectory(prefix="bam-qemu-") as work:
        initrd = os.path.join(work, "initramfs.cpio")
        modules = module_closure(os.path.join(cache, "modules"), args.modules)
        build_initramfs(initrd, cache, modules, args.file, command)
        # no_timer_check: under TCG on a loaded host the guest's IO-APIC timer check can miss
        # its window, and with interrupt remapping (intel-iommu) the kernel then panics at boot
        # ("timer doesn't work through Interrupt-remapped IO-APIC"); the check proves nothing here.
        append = "console=ttyS0 rdinit=/init panic=-1 intel_iommu=on iommu=pt no_timer_check"
        append += "" if args.verbose else " quiet"
        append += f" {args.append}" if args.append else ""
        cmd = [args.qemu, "-machine", "q35", "-accel", "tcg,thread=multi", "-cpu", "max",
               "-smp", args.smp, "-m", args.memory, "-nographic", "-no-reboot", "-nodefaults",
               "-serial", "stdio", "-kernel", kernel, "-initrd", initrd, "-append", append,
               "-device", "intel-iommu"]
        cmd += nvme_args(controllers, work) + args.qemu_arg
        log(" ".join(shlex.quote(c) for c in cmd))

        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        marker = []

        def pump():
            for raw in proc.stdout:
                line = raw.decode(errors="replace").rstrip("\r\n").replace("\r", "")
                if line.startswith(EXIT_MARKER):
                    marker.append(line.split()[1:])
                print(line, flush=True)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            proc.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            reader.join(5)
            log(f"TIMEOUT: the guest did not finish within {args.timeout:.0f} s; QEMU killed")
            return 124
        reader.join(5)
        wall = time.monotonic() - start

    if not marker:
        log(f"FAILED: the guest ended without reporting a status (QEMU exit {proc.returncode}, "
            f"{wall:.1f} s); see the console output above")
        return 125
    rc, t0, t1 = int(marker[-1][0]), float(marker[-1][1]), float(marker[-1][2])
    log(f"guest command exited with {rc}; wall {wall:.1f} s, guest boot {t0:.1f} s, "
        f"command {t1 - t0:.1f} s")
    return min(rc, 255)


if __name__ == "__main__":
    sys.exit(main())

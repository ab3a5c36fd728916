// SPDX-License-Identifier: Apache-2.0
// bam-nvme: drive a real NVMe controller from user space through bam's drivers.
//
//   bam-nvme identify --vfio 0000:01:00.0
//   bam-nvme write --uio 0000:01:00.0 --lba 0 --blocks 64 --pattern 7
//   bam-nvme read  --kmod /dev/bam0 --lba 0 --blocks 64 --pattern 7
//   bam-nvme bench --vfio 0000:01:00.0 --op read --threads 4 --depth 32 --seconds 10
//
// The controller must first be bound to vfio-pci, uio_pci_generic or bam.ko (docs/real-nvme.md).
// Writes destroy data on the drive.
#include "apps/bam-nvme/commands.hpp"

#include <bam/error.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <optional>

namespace {

using namespace bam::nvme_tool;

void add_transfer(CLI::App& cmd, transfer_flags& f, bool writing) {
  cmd.add_option("--nsid", f.nsid, "namespace id")->capture_default_str();
  cmd.add_option("--lba", f.lba, "first logical block")->capture_default_str();
  cmd.add_option("--blocks", f.blocks, writing ? "blocks to write (default: the input file's size)" : "blocks to read")
      ->required(!writing);
  cmd.add_option(
      writing ? "--in" : "--out", f.file,
      writing ? "file to write (padded with zeros to whole blocks)" : "file to store the data in (default: hex dump)");
  cmd.add_option("--pattern", f.pattern,
                 writing ? "write bam-nvme's pattern for this seed instead of a file"
                         : "check the data against the pattern for this seed (exit 1 on a difference)");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bam-nvme: identify, read, write and benchmark an NVMe controller through bam's user-space drivers"};
  app.require_subcommand(1);
  app.fallthrough();  // target options may follow the command name
  target_flags target;
  auto* vfio = app.add_option("--vfio", target.vfio, "PCI address of a controller bound to vfio-pci");
  auto* uio = app.add_option("--uio", target.uio, "PCI address of a controller bound to uio_pci_generic");
  auto* kmod = app.add_option("--kmod", target.kmod, "the bam kernel module's device, e.g. /dev/bam0");
  vfio->excludes(uio)->excludes(kmod);
  uio->excludes(kmod);
  app.add_flag("--no-iommu", target.no_iommu, "vfio: VFIO's no-IOMMU mode (unconfined DMA; a warning is printed)");
  app.add_flag("--small-pages", target.small_pages, "DMA memory in 4 KiB pages instead of 2 MiB hugepages");
  app.add_option("--queues", target.queues, "I/O queue pairs to ask for")->capture_default_str();
  app.add_option("--queue-depth", target.depth, "entries per I/O queue")->capture_default_str();
  app.add_option("--timeout-ms", target.timeout_ms, "limit for each command")->capture_default_str();

  auto* identify_cmd = app.add_subcommand("identify", "bring the controller up and describe it and its namespaces");
  transfer_flags read_flags;
  auto* read_cmd = app.add_subcommand("read", "read blocks (hex dump, file, or pattern check)");
  add_transfer(*read_cmd, read_flags, false);
  transfer_flags write_flags;
  auto* write_cmd = app.add_subcommand("write", "write a file or a pattern (destroys data)");
  add_transfer(*write_cmd, write_flags, true);
  bench_flags bench_f;
  auto* bench_cmd = app.add_subcommand("bench", "random reads or writes from host threads; IOPS and bandwidth");
  bench_cmd->add_option("--nsid", bench_f.nsid, "namespace id")->capture_default_str();
  bench_cmd->add_option("--op", bench_f.op, "read or write (write destroys data)")->capture_default_str();
  bench_cmd->add_option("--blocks", bench_f.blocks_per_io, "blocks per I/O")->capture_default_str();
  bench_cmd->add_option("--threads", bench_f.threads, "host threads (spread over the queue pairs)")
      ->capture_default_str();
  bench_cmd->add_option("--depth", bench_f.per_thread_depth, "I/Os each thread keeps in flight")->capture_default_str();
  bench_cmd->add_option("--seconds", bench_f.seconds, "duration")->capture_default_str();
  bench_cmd->add_option("--span", bench_f.span, "use LBAs below this (default: the whole namespace)");
  bench_cmd->add_option("--verify", bench_f.verify, "reads: check against this pattern; writes: write it");
  bench_cmd->add_option("--seed", bench_f.seed, "seed of the random LBA sequence")->capture_default_str();

  CLI11_PARSE(app, argc, argv);
  try {
    session s(target);
    if (identify_cmd->parsed()) return identify(s);
    if (read_cmd->parsed()) return read(s, read_flags);
    if (write_cmd->parsed()) return write(s, write_flags);
    if (bench_cmd->parsed()) return bench(s, bench_f);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bam-nvme: %s\n", e.what());
    return 1;
  }
  return 2;
}

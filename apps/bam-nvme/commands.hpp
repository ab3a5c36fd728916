// SPDX-License-Identifier: Apache-2.0
// bam-nvme's commands over one real controller: identify, read, write, bench.
#pragma once

#include <bam/host/controller.hpp>
#include <bam/host/drivers/block_io.hpp>
#include <bam/host/nvme_binding.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace bam::nvme_tool {

/// Which controller, through which binding, and how to bring it up.
struct target_flags {
  std::string vfio;           ///< PCI address bound to vfio-pci
  std::string uio;            ///< PCI address bound to uio_pci_generic
  std::string kmod;           ///< /dev/bamN
  bool no_iommu = false;      ///< vfio no-IOMMU mode
  bool small_pages = false;   ///< 4 KiB DMA pages instead of 2 MiB hugepages
  std::uint32_t queues = 4;   ///< I/O queue pairs to ask for
  std::uint32_t depth = 256;  ///< entries per I/O queue
  std::uint32_t timeout_ms = 10'000;
};

/// An opened, enabled controller; shut down cleanly (CC.SHN) on destruction.
class session {
 public:
  /// @throw bam::error subclasses from the binding and the bring-up
  explicit session(const target_flags& flags);
  [[nodiscard]] host::nvme_binding& binding() { return binding_; }
  [[nodiscard]] host::controller& controller() { return controller_; }
  [[nodiscard]] std::uint32_t requested_queues() const { return flags_.queues; }
  /// block_io on I/O queue pair `queue`, with the session's timeout.
  [[nodiscard]] host::block_io io(std::size_t queue = 0);

 private:
  target_flags flags_;
  host::nvme_binding binding_;
  host::controller controller_;
};

struct transfer_flags {
  std::uint32_t nsid = 1;
  std::uint64_t lba = 0;
  std::uint64_t blocks = 0;              ///< 0: as many as the input file holds (write)
  std::string file;                      ///< read: output file; write: input file
  std::optional<std::uint64_t> pattern;  ///< write: this pattern; read: verify against it
};

struct bench_flags {
  std::uint32_t nsid = 1;
  std::string op = "read";  ///< read or write
  std::uint32_t blocks_per_io = 8;
  std::uint32_t threads = 1;
  std::uint32_t per_thread_depth = 16;  ///< commands each thread keeps in flight
  double seconds = 5;
  std::uint64_t span = 0;               ///< LBAs [0, span) are used; 0 = whole namespace
  std::optional<std::uint64_t> verify;  ///< reads are checked against this pattern
  std::uint64_t seed = 1;               ///< random LBA sequence
};

int identify(session& s);
int read(session& s, const transfer_flags& f);
int write(session& s, const transfer_flags& f);
int bench(session& s, const bench_flags& f);

}  // namespace bam::nvme_tool

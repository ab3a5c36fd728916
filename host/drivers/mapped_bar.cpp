// SPDX-License-Identifier: Apache-2.0
#include <bam/host/drivers/mapped_bar.hpp>

#include <bam/error.hpp>
#include <bam/host/drivers/posix_io.hpp>
#include <bam/nvme/registers.hpp>

#include <sys/mman.h>

#include <cerrno>
#include <string>

namespace bam::host {

mapped_bar::mapped_bar(int fd, std::uint64_t offset, std::size_t bytes, std::string_view who) {
  // Registers and at least the admin queue's doorbells.
  if (bytes < nvme::reg::doorbells + 8)
    throw system_error(std::string(who) + ": BAR0 is " + std::to_string(bytes) + " bytes, too small for NVMe");
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset));
  if (p == MAP_FAILED) throw_errno(who, "mmap BAR0", errno);
  try {
    gpu_ = gpu_host_mapping(static_cast<std::byte*>(p), bytes, true);
  } catch (...) {
    ::munmap(p, bytes);
    throw;
  }
  host_ = static_cast<std::byte*>(p);
  bytes_ = bytes;
}

mapped_bar::~mapped_bar() {
  gpu_ = gpu_host_mapping();  // unregister before the mapping goes
  if (host_ != nullptr) ::munmap(host_, bytes_);
}

}  // namespace bam::host

// SPDX-License-Identifier: Apache-2.0
#include "host/ram_store.hpp"

#include "host/shared_copy.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace bam::host {

ram_store::ram_store(std::uint32_t block_size, std::uint64_t n_blocks)
    : block_size_(block_size), n_blocks_(n_blocks), bytes_(0), data_(nullptr) {
  check_block_size("ram_store", block_size);
  BAM_EXPECTS(n_blocks > 0 && n_blocks <= (std::uint64_t{1} << 46) / block_size,
              "ram_store: " + std::to_string(n_blocks) + " blocks is not a usable size");
  bytes_ = std::size_t(n_blocks) * block_size;
  void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw system_error("ram_store: mapping " + std::to_string(bytes_) +
                       " bytes failed: " + std::strerror(errno));
  }
  data_ = static_cast<std::byte*>(p);
}

ram_store::~ram_store() { ::munmap(data_, bytes_); }

void ram_store::readv(std::uint64_t lba, std::uint32_t n,
                      std::span<const std::span<std::byte>> dst) {
  check_transfer("ram_store::readv", lba, n, dst);
  std::byte* from = data_ + lba * block_size_;
  for (const auto& s : dst) {
    detail::copy_from_shared(s.data(), from, s.size());
    from += s.size();
  }
}

void ram_store::writev(std::uint64_t lba, std::uint32_t n,
                       std::span<const std::span<const std::byte>> src) {
  check_transfer("ram_store::writev", lba, n, src);
  std::byte* to = data_ + lba * block_size_;
  for (const auto& s : src) {
    detail::copy_to_shared(to, s.data(), s.size());
    to += s.size();
  }
}

}  // namespace bam::host

// SPDX-License-Identifier: Apache-2.0
#include <bam/host/emulator/ram_store.hpp>

#include <bam/host/drivers/posix_io.hpp>
#include "host/memory/shared_copy.hpp"

#include <bam/config.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace bam::host {

ram_store::ram_store(std::uint32_t block_size, std::uint64_t n_blocks)
    : block_size_(block_size), n_blocks_(n_blocks), bytes_(0) {
  check_block_size("ram_store", block_size);
  BAM_EXPECTS(n_blocks > 0 && n_blocks <= (std::uint64_t{1} << 46) / block_size,
              "ram_store: " + std::to_string(n_blocks) + " blocks is not a usable size");
  bytes_ = std::size_t(n_blocks) * block_size;
  // One huge page more than needed, so the data can start on a huge-page boundary: random
  // reads over gigabytes then miss the TLB far less (transparent huge pages, where enabled).
  mapped_bytes_ = bytes_ + huge_page_bytes;
  void* p = ::mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw_errno("ram_store", "mapping " + std::to_string(bytes_) + " bytes", errno);
  mapping_ = static_cast<std::byte*>(p);
  data_ = mapping_ + (huge_page_bytes - reinterpret_cast<std::uintptr_t>(p) % huge_page_bytes) %
                         huge_page_bytes;
  ::madvise(data_, bytes_, MADV_HUGEPAGE);  // advice only: ignored where THP is off
}

ram_store::~ram_store() { ::munmap(mapping_, mapped_bytes_); }

void ram_store::prefetch(std::uint64_t lba, std::uint32_t n) const noexcept {
  constexpr std::size_t lines = 8;  // 512 bytes: a small block whole, a large one's start
  const std::byte* p = data_ + lba * block_size_;
  const std::size_t bytes =
      std::min<std::size_t>(std::size_t{n} * block_size_, lines * cache_line_bytes);
  for (std::size_t off = 0; off < bytes; off += cache_line_bytes) __builtin_prefetch(p + off);
}

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

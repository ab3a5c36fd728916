// SPDX-License-Identifier: Apache-2.0
#include <bam/host/memory/locked_pages.hpp>

#include <bam/host/drivers/posix_io.hpp>

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace bam::host {

namespace {

std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

/// Maps anonymous memory; mlock faults it in later. Base pages are kept base pages: transparent
/// hugepages would make "small" memory contiguous behind the caller's back.
void* map_anonymous(std::size_t bytes, bool huge) {
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (huge ? MAP_HUGETLB : 0);
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (!huge) ::madvise(p, bytes, MADV_NOHUGEPAGE);
  return p;
}

}  // namespace

locked_pages::locked_pages(std::size_t bytes, page_policy policy) {
  BAM_EXPECTS(bytes > 0, "locked_pages: zero bytes requested");
  void* p = nullptr;
  if (policy != page_policy::small) {
    p = map_anonymous(round_up(bytes, hugepage_bytes), true);
    if (p == nullptr && policy == page_policy::huge)
      throw_errno("locked_pages",
                  "map " + std::to_string(round_up(bytes, hugepage_bytes) >> 20) +
                      " MiB of 2 MiB hugepages (reserve them: echo N > /proc/sys/vm/nr_hugepages)",
                  errno);
    if (p != nullptr) page_bytes_ = hugepage_bytes;
  }
  if (p == nullptr) {
    p = map_anonymous(round_up(bytes, small_page_bytes), false);
    if (p == nullptr) throw_errno("locked_pages", "map " + std::to_string(bytes) + " bytes", errno);
    page_bytes_ = small_page_bytes;
  }
  bytes_ = round_up(bytes, page_bytes_);
  data_ = static_cast<std::byte*>(p);
  if (::mlock(p, bytes_) != 0) {
    const int err = errno;
    ::munmap(p, bytes_);
    throw_errno("locked_pages", "lock " + std::to_string(bytes_) + " bytes in memory (raise RLIMIT_MEMLOCK: ulimit -l)",
                err);
  }
  // mlock faulted every page in; writing makes each one private (no shared zero page) now.
  std::memset(p, 0, bytes_);
}

locked_pages::locked_pages(locked_pages&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      bytes_(std::exchange(o.bytes_, 0)),
      page_bytes_(std::exchange(o.page_bytes_, 0)) {}

locked_pages& locked_pages::operator=(locked_pages&& o) noexcept {
  std::swap(data_, o.data_);
  std::swap(bytes_, o.bytes_);
  std::swap(page_bytes_, o.page_bytes_);
  return *this;
}

locked_pages::~locked_pages() {
  if (data_ != nullptr) ::munmap(data_, bytes_);
}

}  // namespace bam::host

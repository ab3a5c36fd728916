// SPDX-License-Identifier: Apache-2.0
#include <bam/host/emulator/file_store.hpp>
#include <bam/host/drivers/posix_io.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <type_traits>

namespace bam::host {

namespace {
/// Advances the `n` iovecs at `v` past `done` transferred bytes.
void advance(iovec*& v, int& n, std::size_t done) {
  while (n > 0 && done >= v->iov_len) {
    done -= v->iov_len;
    ++v;
    --n;
  }
  if (n > 0) {
    v->iov_base = static_cast<char*>(v->iov_base) + done;
    v->iov_len -= done;
  }
}

/// Positional vectored I/O of every segment, 64 iovecs a call, retrying short transfers.
/// A read that meets the end of the file zero-fills the rest. Returns 0 or -errno.
template <class Byte, class Op>
int transfer_all(int fd, std::uint64_t offset, std::span<const std::span<Byte>> segs, Op op) {
  std::array<iovec, 64> iov{};
  std::size_t next = 0;
  while (next < segs.size()) {
    int n = 0;
    for (; n < int(iov.size()) && next + n < segs.size(); ++n) {
      const auto& s = segs[next + n];
      // iovec has one non-const base for both directions; pwritev only reads through it.
      iov[n] = iovec{const_cast<std::byte*>(s.data()), s.size()};
    }
    next += n;
    iovec* v = iov.data();
    while (n > 0) {
      const ssize_t r = op(fd, v, n, off_t(offset));
      if (r < 0) {
        if (errno == EINTR) continue;
        return -errno;
      }
      if (r == 0) {
        if constexpr (std::is_const_v<Byte>) {
          return -EIO;  // a write that makes no progress
        } else {
          for (; n > 0; ++v, --n) std::memset(v->iov_base, 0, v->iov_len);  // past end of file
          break;
        }
      }
      offset += std::uint64_t(r);
      advance(v, n, std::size_t(r));
    }
  }
  return 0;
}
}  // namespace

file_store::file_store(const options& opts)
    : path_(opts.path), block_size_(opts.block_size), n_blocks_(opts.n_blocks) {
  check_block_size("file_store", opts.block_size);
  const int flags = O_RDWR | O_CLOEXEC | (opts.create ? O_CREAT : 0);
  fd_ = ::open(path_.c_str(), flags, 0644);
  if (fd_ < 0) throw_errno("file_store", "cannot open " + path_, errno);
  try {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw_errno("file_store", "cannot stat " + path_, errno);
    std::uint64_t size = std::uint64_t(st.st_size);
    if (S_ISBLK(st.st_mode)) {
      const off_t end = ::lseek(fd_, 0, SEEK_END);
      if (end < 0) throw_errno("file_store", "cannot size " + path_, errno);
      size = std::uint64_t(end);
    }
    if (n_blocks_ == 0) n_blocks_ = size / block_size_;
    if (opts.create && size < n_blocks_ * block_size_ && !S_ISBLK(st.st_mode)) {
      if (::ftruncate(fd_, off_t(n_blocks_ * block_size_)) != 0) {
        throw_errno("file_store", "cannot size " + path_, errno);
      }
      size = n_blocks_ * block_size_;
    }
    BAM_EXPECTS(n_blocks_ > 0 && (opts.zero_past_end || size >= n_blocks_ * block_size_),
                "file_store: " + path_ + " holds " + std::to_string(size) + " bytes, less than " +
                    std::to_string(n_blocks_) + " blocks of " + std::to_string(block_size_));
    if (opts.direct) {
      direct_fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC | O_DIRECT);
      direct_ok_.store(direct_fd_ >= 0, std::memory_order_relaxed);
    }
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

file_store::~file_store() {
  if (direct_fd_ >= 0) ::close(direct_fd_);
  ::close(fd_);
}

void file_store::give_up_direct() noexcept {
  // The descriptor stays open until destruction: another thread may be using it right now.
  direct_ok_.store(false, std::memory_order_relaxed);
}

template <class Byte>
int file_store::pick_fd(std::uint64_t offset, std::span<const std::span<Byte>> segs) const {
  if (!direct_ok_.load(std::memory_order_relaxed)) return fd_;
  std::uintptr_t bits = std::uintptr_t(offset);
  for (const auto& s : segs) bits |= reinterpret_cast<std::uintptr_t>(s.data()) | s.size();
  return (bits & (direct_alignment - 1)) == 0 ? direct_fd_ : fd_;
}

template <class Byte, class Op>
void file_store::transfer(const char* what, std::uint64_t lba, std::uint32_t n,
                          std::span<const std::span<Byte>> segs, Op op) {
  check_transfer(what, lba, n, segs);
  const std::uint64_t offset = lba * block_size_;
  const int fd = pick_fd(offset, segs);
  int r = transfer_all(fd, offset, segs, op);
  if (r == -EINVAL && fd != fd_) {
    give_up_direct();
    r = transfer_all(fd_, offset, segs, op);
  }
  if (r < 0) throw_errno(what, path_ + " at byte " + std::to_string(offset), -r);
}

void file_store::readv(std::uint64_t lba, std::uint32_t n,
                       std::span<const std::span<std::byte>> dst) {
  transfer("file_store::readv", lba, n, dst,
           [](int fd, const iovec* v, int c, off_t o) { return ::preadv(fd, v, c, o); });
}

void file_store::writev(std::uint64_t lba, std::uint32_t n,
                        std::span<const std::span<const std::byte>> src) {
  transfer("file_store::writev", lba, n, src,
           [](int fd, const iovec* v, int c, off_t o) { return ::pwritev(fd, v, c, o); });
}

void file_store::flush() {
  if (::fdatasync(fd_) != 0) throw_errno("file_store", "fdatasync of " + path_, errno);
}

}  // namespace bam::host

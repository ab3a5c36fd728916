// SPDX-License-Identifier: Apache-2.0
#include "apps/common/mapped_file.hpp"

#include <bam/host/drivers/posix_io.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

namespace bam::apps {

namespace {
[[noreturn]] void fail(const std::filesystem::path& path, const char* what) {
  host::throw_errno(path.string(), what, errno);
}

/// Maps `fd` (closed before returning) for `size` bytes; an empty file maps to nothing.
std::byte* map_fd(const std::filesystem::path& path, int fd, std::size_t size, int prot) {
  void* p = size ? ::mmap(nullptr, size, prot, MAP_SHARED, fd, 0) : nullptr;
  const int err = errno;
  ::close(fd);
  errno = err;
  if (p == MAP_FAILED) fail(path, "cannot map");
  return static_cast<std::byte*>(p);
}
}  // namespace

mapped_file mapped_file::open_read(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    fail(path, "cannot stat");
  }
  const auto size = std::size_t(st.st_size);
  return mapped_file(path, map_fd(path, fd, size, PROT_READ), size);
}

mapped_file mapped_file::create(const std::filesystem::path& path, std::uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "cannot create");
  if (::ftruncate(fd, off_t(bytes)) != 0) {
    ::close(fd);
    fail(path, "cannot size");
  }
  return mapped_file(path, map_fd(path, fd, bytes, PROT_READ | PROT_WRITE), bytes);
}

mapped_file::mapped_file(mapped_file&& o) noexcept
    : path_(std::move(o.path_)), data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

mapped_file& mapped_file::operator=(mapped_file&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

mapped_file::~mapped_file() { release(); }

void mapped_file::sync() const {
  if (data_ && ::msync(data_, size_, MS_SYNC) != 0) fail(path_, "cannot write back");
}

void mapped_file::release() noexcept {
  if (data_) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace bam::apps

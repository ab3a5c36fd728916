// SPDX-License-Identifier: Apache-2.0
#include <bam/host/drivers/posix_io.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace bam::host {

void unique_fd::reset(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::string errno_message(std::string_view who, std::string_view step, int err) {
  return std::string(who) + ": " + std::string(step) + ": " + std::strerror(err);
}

void throw_errno(std::string_view who, std::string_view step, int err) {
  throw system_error(errno_message(who, step, err));
}

unique_fd open_or_throw(const std::string& path, int flags, std::string_view who, std::string_view step) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) throw_errno(who, std::string(step) + " (open " + path + ")", errno);
  return unique_fd(fd);
}

std::optional<std::string> read_text(const std::string& path) {
  const unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return std::nullopt;
  std::string text;
  char buf[256];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    text.append(buf, std::size_t(n));
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

void write_text(const std::string& path, std::string_view text, std::string_view who, std::string_view step) {
  const unique_fd fd = open_or_throw(path, O_WRONLY, who, step);
  if (::write(fd.get(), text.data(), text.size()) != ssize_t(text.size()))
    throw_errno(who, std::string(step) + " (write " + path + ")", errno);
}

std::optional<std::string> link_basename(const std::string& path) {
  char target[4096];
  const ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
  if (n < 0) return std::nullopt;
  const std::string_view t(target, std::size_t(n));
  const auto slash = t.rfind('/');
  return std::string(slash == std::string_view::npos ? t : t.substr(slash + 1));
}

}  // namespace bam::host

// SPDX-License-Identifier: Apache-2.0
// Small POSIX helpers for the user-space NVMe bindings: an owning file descriptor, errors that
// name the device, the step and errno's text, and sysfs reads.
#pragma once

#include <bam/error.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace bam::host {

/// Owns a file descriptor; closes it on destruction. Move-only.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(o.release()) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    reset(o.release());
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }

  [[nodiscard]] int get() const noexcept { return fd_; }
  [[nodiscard]] explicit operator bool() const noexcept { return fd_ >= 0; }
  /// Gives up ownership and returns the descriptor.
  int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  /// Closes the current descriptor (if any) and owns `fd`.
  void reset(int fd = -1) noexcept;

 private:
  int fd_ = -1;
};

/**
 * @brief "<who>: <step>: <strerror(err)>", the message throw_errno throws; for callers that throw
 *        their own exception type. Pass errno right after the failing call, before it can change.
 * @param who the device or file (a PCI address or a path)
 * @param step what was being done, in words a user can act on
 * @param err an errno value
 */
[[nodiscard]] std::string errno_message(std::string_view who, std::string_view step, int err);

/**
 * @brief Throws bam::system_error errno_message(who, step, err).
 * @param who the device or file (a PCI address or a path)
 * @param step what was being done, in words a user can act on
 * @param err an errno value
 */
[[noreturn]] void throw_errno(std::string_view who, std::string_view step, int err);

/// Opens `path`; throws bam::system_error naming `who` and `step` on failure.
[[nodiscard]] unique_fd open_or_throw(const std::string& path, int flags, std::string_view who, std::string_view step);

/// Contents of a small text file without its trailing newline; nullopt when it cannot be read.
[[nodiscard]] std::optional<std::string> read_text(const std::string& path);

/// Writes `text` to an existing file (sysfs attributes); throws bam::system_error on failure.
void write_text(const std::string& path, std::string_view text, std::string_view who, std::string_view step);

/// Last path component of the target of symbolic link `path`; nullopt when it is not a link.
[[nodiscard]] std::optional<std::string> link_basename(const std::string& path);

}  // namespace bam::host

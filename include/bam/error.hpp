// SPDX-License-Identifier: Apache-2.0
// bam: host-side exceptions. Device code never throws: it returns bam::status and records
// context in an error slot that the host turns into one of these exceptions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace bam {

/// Base of every exception bam throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A precondition on a caller's argument failed (bad option, index out of range, bad file).
class invalid_argument : public error {
 public:
  using error::error;
};

/// A CUDA runtime call failed.
class cuda_error : public error {
 public:
  using error::error;
};

/// A system call failed; the message carries errno's text.
class system_error : public error {
 public:
  using error::error;
};

/// Where an NVMe command went wrong: enough to find it in a trace.
struct nvme_context {
  std::uint32_t controller = 0;  ///< index of the controller in its owner
  std::uint16_t queue = 0;       ///< submission queue id (0 = admin)
  std::uint16_t cid = 0;         ///< command identifier
  std::uint8_t opcode = 0;       ///< NVMe opcode
  std::uint32_t nsid = 0;        ///< namespace id
  std::uint64_t lba = 0;         ///< first logical block
  std::uint32_t n_blocks = 0;    ///< logical blocks transferred
};

/// An NVMe command completed with a non-zero status.
class nvme_error : public error {
 public:
  nvme_error(const std::string& what, nvme_context ctx, std::uint8_t sct, std::uint8_t sc)
      : error(what), context_(ctx), sct_(sct), sc_(sc) {}
  [[nodiscard]] const nvme_context& context() const noexcept { return context_; }
  [[nodiscard]] std::uint8_t status_code_type() const noexcept { return sct_; }
  [[nodiscard]] std::uint8_t status_code() const noexcept { return sc_; }

 private:
  nvme_context context_;
  std::uint8_t sct_;
  std::uint8_t sc_;
};

/// A command (or a controller state change) did not complete within its time limit.
class timeout_error : public error {
 public:
  timeout_error(const std::string& what, nvme_context ctx) : error(what), context_(ctx) {}
  [[nodiscard]] const nvme_context& context() const noexcept { return context_; }

 private:
  nvme_context context_;
};

namespace detail {
[[noreturn]] inline void throw_invalid_argument(const char* file, int line, const std::string& reason) {
  throw invalid_argument(reason + " (" + file + ":" + std::to_string(line) + ")");
}
}  // namespace detail

}  // namespace bam

/// Throws bam::invalid_argument with file:line when `cond` is false.
#define BAM_EXPECTS(cond, reason)                                      \
  do {                                                                 \
    if (!(cond)) ::bam::detail::throw_invalid_argument(__FILE__, __LINE__, (reason)); \
  } while (0)

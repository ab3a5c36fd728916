// SPDX-License-Identifier: Apache-2.0
// bar_view: access to an NVMe controller's BAR0, whether it is a real register file mapped into
// the process (VFIO, the bam kernel module) or the emulated controller's register memory.
#pragma once

#include <bam/detail/atomic.hpp>
#include <bam/nvme/registers.hpp>

#include <cstddef>
#include <cstdint>

namespace bam::host {

/**
 * @brief A non-owning view of BAR0 from the CPU and (for doorbells) from the GPU.
 *
 * Registers are accessed 32 bits at a time with system-scope atomics (acquire loads, release
 * stores): a plain `mov` on x86, never merged or split by the compiler, which is what MMIO
 * needs; 64-bit registers are written low half first, then high, as Linux's lo_hi_writeq does.
 */
class bar_view {
 public:
  bar_view() = default;
  /// `host` is the CPU mapping; `device` the GPU mapping of the same bytes (== host in
  /// CPU-only builds, null when the GPU cannot reach them).
  bar_view(std::byte* host, std::byte* device, std::size_t bytes) : host_(host), device_(device), bytes_(bytes) {}

  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }
  [[nodiscard]] std::byte* host() const noexcept { return host_; }
  [[nodiscard]] std::byte* device() const noexcept { return device_; }

  [[nodiscard]] std::uint32_t read32(std::size_t offset) const {
    return detail::system_atomic<std::uint32_t>(*word(offset)).load(cuda::std::memory_order_acquire);
  }
  void write32(std::size_t offset, std::uint32_t v) const {
    detail::system_atomic<std::uint32_t>(*word(offset)).store(v, cuda::std::memory_order_release);
  }
  [[nodiscard]] std::uint64_t read64(std::size_t offset) const {
    const std::uint64_t lo = read32(offset);
    return lo | (std::uint64_t{read32(offset + 4)} << 32);
  }
  void write64(std::size_t offset, std::uint64_t v) const {
    write32(offset, std::uint32_t(v));
    write32(offset + 4, std::uint32_t(v >> 32));
  }

  /// CPU address of the SQ tail (is_cq false) or CQ head doorbell of queue `qid`.
  [[nodiscard]] std::uint32_t* host_doorbell(std::uint32_t qid, bool is_cq, std::uint32_t dstrd) const {
    return word(doorbell_offset(qid, is_cq, dstrd));
  }
  /// GPU address of the same doorbell, for queue pairs driven by kernels (null if unmapped).
  [[nodiscard]] std::uint32_t* doorbell(std::uint32_t qid, bool is_cq, std::uint32_t dstrd) const {
    if (device_ == nullptr) return nullptr;
    return reinterpret_cast<std::uint32_t*>(device_ + doorbell_offset(qid, is_cq, dstrd));
  }

 private:
  [[nodiscard]] static std::size_t doorbell_offset(std::uint32_t qid, bool is_cq, std::uint32_t dstrd) {
    return is_cq ? nvme::cq_head_doorbell_offset(qid, dstrd) : nvme::sq_tail_doorbell_offset(qid, dstrd);
  }
  [[nodiscard]] std::uint32_t* word(std::size_t offset) const {
    return reinterpret_cast<std::uint32_t*>(host_ + offset);
  }

  std::byte* host_ = nullptr;
  std::byte* device_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace bam::host

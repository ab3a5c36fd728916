// SPDX-License-Identifier: Apache-2.0
// kmod_device: an NVMe controller handed to the bam kernel module, opened through /dev/bamN:
// BAR0 mapped with mmap, DMA memory pinned by the module (which also turns bus mastering on).
// The only binding that can place queues and data in VRAM (peer-to-peer), when the module was
// built against NVIDIA's driver source.
#pragma once

#include <bam/host/drivers/bar.hpp>
#include <bam/host/drivers/mapped_bar.hpp>
#include <bam/host/drivers/posix_io.hpp>
#include <bam/host/memory/pinned_memory.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace bam::host {

struct kmod_options {
  pinned_memory_options memory{};
};

/// What GET_INFO reports about the module and the controller.
struct kmod_info {
  std::uint32_t abi_major = 0;
  std::uint32_t abi_minor = 0;
  bool gpu_pinning = false;  ///< PIN_GPU available (module built with NVIDIA_SRC_DIR)
  std::size_t bar0_bytes = 0;
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  std::uint32_t class_code = 0;
  std::string bdf;  ///< PCI address of the controller
};

/**
 * @brief Owner of one open /dev/bamN.
 *
 * The constructor opens the file, refuses a module ABI major version other than the one bam
 * was built with, and maps BAR0. Lifetime: as vfio_device.
 */
class kmod_device {
 public:
  /// @throw bam::system_error naming the path, the step and errno's text
  explicit kmod_device(std::string path, kmod_options options = {});
  kmod_device(const kmod_device&) = delete;
  kmod_device& operator=(const kmod_device&) = delete;

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const kmod_info& info() const noexcept { return info_; }
  [[nodiscard]] bar_view bar() const noexcept { return bar_.view(); }
  /// DMA memory pinned by the module (VRAM too, with gpu_pinning, on CUDA builds).
  [[nodiscard]] pinned_memory& memory() noexcept { return *memory_; }

 private:
  std::string path_;
  std::shared_ptr<unique_fd> file_;
  kmod_info info_;
  mapped_bar bar_;
  std::unique_ptr<pinned_memory> memory_;
};

}  // namespace bam::host

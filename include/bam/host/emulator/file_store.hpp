// SPDX-License-Identifier: Apache-2.0
// bam::host::file_store: a namespace backed by a file or block device, read and written with
// preadv/pwritev, through O_DIRECT when the file system and the buffers allow it.
#pragma once

#include <bam/host/emulator/namespace_store.hpp>

#include <atomic>
#include <cstdint>
#include <string>

namespace bam::host {

/**
 * @brief A namespace in a file. Transfers use a second O_DIRECT descriptor when every segment
 *        address and length and the file offset are multiples of direct_alignment; otherwise,
 *        or once the file system rejects O_DIRECT (EINVAL), the buffered descriptor.
 */
class file_store final : public namespace_store {
 public:
  /// O_DIRECT alignment asked of buffers, lengths and offsets (safe for 4Kn devices).
  static constexpr std::size_t direct_alignment = 4096;

  struct options {
    std::string path;               ///< file or block device
    std::uint32_t block_size = 512;  ///< bytes per logical block
    std::uint64_t n_blocks = 0;      ///< 0: as many whole blocks as the file holds
    bool create = false;             ///< create the file if missing and size it to n_blocks
    bool direct = true;              ///< try O_DIRECT
    /// n_blocks may exceed the file: blocks past its end read as zeros (a write there extends it)
    bool zero_past_end = false;
  };

  /**
   * @throw bam::system_error when the file cannot be opened or sized;
   *        bam::invalid_argument on a bad block size or a file smaller than n_blocks
   *        (unless zero_past_end).
   */
  explicit file_store(const options& opts);
  ~file_store() override;
  file_store(const file_store&) = delete;
  file_store& operator=(const file_store&) = delete;

  [[nodiscard]] std::uint32_t block_size() const noexcept override { return block_size_; }
  [[nodiscard]] std::uint64_t n_blocks() const noexcept override { return n_blocks_; }

  /** @note Thread-safe: positional I/O only. Bytes past the end of the file read as zeros. */
  void readv(std::uint64_t lba, std::uint32_t n,
             std::span<const std::span<std::byte>> dst) override;
  void writev(std::uint64_t lba, std::uint32_t n,
              std::span<const std::span<const std::byte>> src) override;
  /** @brief fdatasync. */
  void flush() override;

 private:
  /// Descriptor for a transfer: the O_DIRECT one when the segments suit it.
  template <class Byte>
  [[nodiscard]] int pick_fd(std::uint64_t offset, std::span<const std::span<Byte>> segs) const;
  /// readv/writev: one positional vectored transfer, falling back to buffered I/O when the
  /// file system rejects O_DIRECT. Byte is const for writes.
  template <class Byte, class Op>
  void transfer(const char* what, std::uint64_t lba, std::uint32_t n,
                std::span<const std::span<Byte>> segs, Op op);
  /// Called when O_DIRECT failed with EINVAL: use the buffered descriptor from now on.
  void give_up_direct() noexcept;

  std::string path_;
  std::uint32_t block_size_;
  std::uint64_t n_blocks_;
  int fd_ = -1;         ///< buffered descriptor
  int direct_fd_ = -1;  ///< O_DIRECT descriptor, -1 when the open failed; closed by the destructor
  std::atomic<bool> direct_ok_{false};  ///< cleared (relaxed) the first time O_DIRECT fails
};

}  // namespace bam::host

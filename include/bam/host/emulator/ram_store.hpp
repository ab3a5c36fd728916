// SPDX-License-Identifier: Apache-2.0
// bam::host::ram_store: a namespace held in process memory (anonymous mapping, zero-filled and
// committed page by page as it is touched, backed by transparent huge pages where enabled).
#pragma once

#include <bam/host/emulator/namespace_store.hpp>

namespace bam::host {

/** @brief A namespace in RAM; new blocks read as zeros. */
class ram_store final : public namespace_store {
 public:
  /**
   * @brief `n_blocks` blocks of `block_size` bytes.
   * @throw bam::invalid_argument on a bad block size; bam::system_error when the mapping fails.
   */
  ram_store(std::uint32_t block_size, std::uint64_t n_blocks);
  ~ram_store() override;
  ram_store(const ram_store&) = delete;
  ram_store& operator=(const ram_store&) = delete;

  [[nodiscard]] std::uint32_t block_size() const noexcept override { return block_size_; }
  [[nodiscard]] std::uint64_t n_blocks() const noexcept override { return n_blocks_; }
  /** @note Relaxed atomic word loads from the store (see shared_copy.hpp). */
  void readv(std::uint64_t lba, std::uint32_t n,
             std::span<const std::span<std::byte>> dst) override;
  /** @note Relaxed atomic word stores to the store. */
  void writev(std::uint64_t lba, std::uint32_t n,
              std::span<const std::span<const std::byte>> src) override;
  void flush() override {}
  /** @brief Prefetches the first cache lines of the range (the hardware follows on). */
  void prefetch(std::uint64_t lba, std::uint32_t n) const noexcept override;

 private:
  static constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

  std::uint32_t block_size_;
  std::uint64_t n_blocks_;
  std::size_t bytes_;
  std::size_t mapped_bytes_ = 0;
  std::byte* mapping_ = nullptr;  ///< the whole mapping (for munmap)
  std::byte* data_ = nullptr;     ///< block 0, on a huge-page boundary
};

}  // namespace bam::host

// SPDX-License-Identifier: Apache-2.0
// Turns a command's PRP1/PRP2 (and PRP lists, chained across pages) into host segments through
// the emulated IOMMU (NVMe 1.4, section 4.3), validating offsets the way a controller must.
#pragma once

#include <bam/host/emulator/emulated_iommu.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace bam::host::detail {

/// Outcome of a PRP walk.
struct prp_result {
  std::uint8_t sc = 0;         ///< generic status code (SCT 0): 0 = success
  std::size_t n_segments = 0;  ///< segments written to the output
};

/** @brief Output segments that a transfer of `bytes` may need (one per IOMMU page, plus two). */
constexpr std::size_t prp_max_segments(std::size_t bytes) {
  return bytes / emulated_iommu::page_bytes + 2;
}

/**
 * @brief Resolves the data pointer of a command moving `bytes` into host segments.
 *
 * PRP1 may carry a dword-aligned offset into its memory page; every later entry must be page
 * aligned (PRP Offset Invalid otherwise). When the data ends within PRP1's page PRP2 is unused;
 * when it needs one more page PRP2 points to it; beyond that PRP2 points to a PRP list (qword
 * aligned, possibly offset into its page), whose last entry in each page chains to the next
 * list page while more than one entry remains. Every data page and list entry is translated
 * through `iommu` (Data Transfer Error when unmapped); host-adjacent pieces are merged.
 *
 * @param page_bytes memory page size (CC.MPS)
 * @param out at least prp_max_segments(bytes) entries
 * @note Reads PRP lists with plain loads: the submitter wrote them before ringing the doorbell
 *       whose acquire load ordered this walk after them.
 */
template <class Byte>
[[nodiscard]] prp_result walk_prps(const emulated_iommu& iommu, std::uint64_t prp1,
                                   std::uint64_t prp2, std::size_t bytes, std::size_t page_bytes,
                                   std::span<std::span<Byte>> out) noexcept;

extern template prp_result walk_prps<std::byte>(const emulated_iommu&, std::uint64_t,
                                                std::uint64_t, std::size_t, std::size_t,
                                                std::span<std::span<std::byte>>) noexcept;
extern template prp_result walk_prps<const std::byte>(const emulated_iommu&, std::uint64_t,
                                                      std::uint64_t, std::size_t, std::size_t,
                                                      std::span<std::span<const std::byte>>) noexcept;

}  // namespace bam::host::detail

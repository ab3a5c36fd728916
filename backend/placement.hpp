// SPDX-License-Identifier: Apache-2.0
// bam::backend placement: where a page of a mapped range lives — which controller of the
// stripe, and which LBA on it.
#pragma once

#include <bam/config.hpp>

#include "cache/page_key.hpp"

#include <cstdint>

namespace bam {

/// Where one mapped range (array) lives on storage.
struct range_placement {
  std::uint32_t nsid = 1;             ///< namespace id, the same on every controller of the stripe
  std::uint32_t blocks_per_page = 0;  ///< logical blocks per cache page
  std::uint64_t start_lba = 0;        ///< first LBA of the range on each controller
  std::uint32_t first_controller = 0; ///< controller of page 0
  std::uint32_t controllers = 1;      ///< stripe width: page p lives on controller
                                      ///< first + p % width, at start_lba + p / width pages
};

namespace backend {

/// The controller (index into the queue set) that holds page `key.page` of its range.
BAM_HD inline std::uint32_t controller_of(const range_placement& r, const cache::page_key& key) {
  return r.first_controller + std::uint32_t(key.page % r.controllers);
}

/// The first LBA of page `key.page` of its range, on controller_of(r, key).
BAM_HD inline std::uint64_t lba_of(const range_placement& r, const cache::page_key& key) {
  return r.start_lba + (key.page / r.controllers) * r.blocks_per_page;
}

}  // namespace backend
}  // namespace bam

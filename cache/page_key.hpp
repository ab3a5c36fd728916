// SPDX-License-Identifier: Apache-2.0
// bam::cache: naming a page (range id, page index) and packing that name into a slot tag.
#pragma once

#include <bam/config.hpp>

#include <cstdint>

namespace bam::cache {

/// Bits of a tag that hold the page index; the range id takes the bits above.
inline constexpr unsigned page_index_bits = 48;
/// Ranges one cache can map: ids 0 .. max_ranges - 1 (the last id is kept as a "no page" key).
inline constexpr std::uint32_t max_ranges = (1U << (64 - page_index_bits)) - 1;
/// Pages one range can map.
inline constexpr std::uint64_t max_pages = std::uint64_t{1} << page_index_bits;

/// One page of one mapped range (an array, or part of one). How the page is laid out on the
/// controllers (striping, offsets) is the backend's business.
struct page_key {
  std::uint32_t range = 0;  ///< range id, below max_ranges
  std::uint64_t page = 0;   ///< page index within the range, below max_pages
};

/**
 * @brief Packs a key into the 64-bit tag a slot stores and lanes compare when coalescing.
 * @param k a key with k.range < max_ranges and k.page < max_pages
 * @return (range << page_index_bits) | page
 */
BAM_HD constexpr std::uint64_t make_tag(page_key k) noexcept {
  return (std::uint64_t{k.range} << page_index_bits) | k.page;
}

/// The key a tag was made from.
BAM_HD constexpr page_key tag_key(std::uint64_t tag) noexcept {
  return page_key{static_cast<std::uint32_t>(tag >> page_index_bits), tag & (max_pages - 1)};
}

/// A tag no valid key produces: lanes whose request is out of range coalesce on it.
inline constexpr std::uint64_t no_page_tag = ~std::uint64_t{0};

static_assert(tag_key(make_tag({3, 12345})).range == 3 && tag_key(make_tag({3, 12345})).page == 12345);
static_assert(make_tag({max_ranges - 1, max_pages - 1}) != no_page_tag);

}  // namespace bam::cache

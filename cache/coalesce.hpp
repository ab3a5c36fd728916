// SPDX-License-Identifier: Apache-2.0
// bam::cache: warp-level request coalescing: one leader per distinct page in a lane group.
#pragma once

#include <bam/config.hpp>
#include <bam/lane_group.hpp>

#include <cuda/std/bit>

#include <cstdint>

namespace bam::cache {

/// How one lane's request was merged with its peers'.
struct coalesced_request {
  lane_mask peers = 0;  ///< members that asked for the same key (the caller included)
  unsigned leader = 0;          ///< rank of the peer that serves the request for all of them
  unsigned count = 0;           ///< number of peers

  /// True for the one lane that serves the request.
  BAM_HD constexpr bool led_by(unsigned rank) const noexcept { return rank == leader; }
};

/**
 * @brief Groups the members of `g` by key; the lowest-ranked member of each group leads.
 * @tparam Group a lane_group
 * @param g the caller's group (collective: every member calls with its own key)
 * @param key what the caller wants (a page tag)
 * @return the caller's peers, their leader and their number
 * @note Example: keys {7, 9, 7, 7} on ranks 0..3 give rank 0 and 2 and 3 peers 0b1101,
 * leader 0, count 3; rank 1 gets peers 0b0010, leader 1, count 1. Leaders of distinct keys
 * then proceed independently, in parallel.
 */
template <lane_group Group>
BAM_HD coalesced_request coalesce(Group& g, std::uint64_t key) {
  const lane_mask peers = g.match_any(key);
  return coalesced_request{peers, static_cast<unsigned>(cuda::std::countr_zero(peers)),
                           static_cast<unsigned>(cuda::std::popcount(peers))};
}

}  // namespace bam::cache

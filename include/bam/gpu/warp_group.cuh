// SPDX-License-Identifier: Apache-2.0
// bam::warp_group: the lane-group model for real warps (device code only).
#pragma once

#include <bam/lane_group.hpp>

#include <cstdint>

namespace bam {

/**
 * @brief The lanes of one warp that execute a call together, as a `lane_group`.
 *
 * Ranks are hardware lane ids (0..31) and masks are lane masks, so a warp with inactive lanes
 * has sparse ranks. The member set is fixed at construction: by default the lanes active at that
 * point (`__activemask()`, the set `cooperative_groups::coalesced_threads()` is built from), or an
 * explicit mask that every member passes identically.
 *
 * @note Every member must reach each collective (sync, ballot, shfl, match_any); the
 * collectives are the `_sync` intrinsics over the member mask and synchronise those lanes.
 * `match_any` needs compute capability 7.0 or newer.
 */
class warp_group {
 public:
  /** @brief The lanes active here. */
  __device__ warp_group() noexcept : mask_(__activemask()) {}
  /** @brief An explicit member mask; the caller's lane must be in it. */
  __device__ explicit warp_group(lane_mask members) noexcept : mask_(members) {}

  __device__ unsigned size() const noexcept { return __popc(mask_); }  ///< members
  __device__ unsigned rank() const noexcept {                          ///< hardware lane id
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
  }
  __device__ void sync() const noexcept { __syncwarp(mask_); }  ///< __syncwarp over members
  /// __ballot_sync over members.
  __device__ lane_mask ballot(bool pred) const noexcept {
    return __ballot_sync(mask_, pred);
  }
  /// __shfl_sync over members; `src` is a member's lane id.
  __device__ std::uint64_t shfl(std::uint64_t v, unsigned src) const noexcept {
    return __shfl_sync(mask_, static_cast<unsigned long long>(v), static_cast<int>(src));
  }
  /// __match_any_sync over members.
  __device__ lane_mask match_any(std::uint64_t key) const noexcept {
    return __match_any_sync(mask_, static_cast<unsigned long long>(key));
  }
  /// The member mask.
  __device__ lane_mask members() const noexcept { return mask_; }

 private:
  lane_mask mask_;
};

static_assert(lane_group<warp_group>);

}  // namespace bam

// SPDX-License-Identifier: Apache-2.0
// bam: the lane-group concept (a warp, or a stand-in for one) and its trivial model.
#pragma once

#include <bam/config.hpp>

#include <concepts>
#include <cstdint>

namespace bam {

/// A set of group members, bit r standing for the member of rank r (ranks are below 32).
using lane_mask = std::uint32_t;

/**
 * @brief What coalescing algorithms need from a group of lanes that execute together.
 *
 * - `rank()`: the caller's position in the group, below 32. Ranks may be sparse (a GPU warp
 *   whose inactive lanes left holes); `size()` counts the members.
 * - `sync()`: no member continues before every member has arrived.
 * - `ballot(p)`: the mask of members whose `p` is true.
 * - `shfl(v, src)`: every member passes its own `v` and receives the `v` of member `src`.
 * - `match_any(k)`: the mask of members whose key equals the caller's.
 *
 * @note Collectives (`sync`, `ballot`, `shfl`, `match_any`) must be called by every member, in
 * the same order: the group behaves like a converged warp at each of them. Between two
 * collectives members run independently (distinct leaders make progress in parallel).
 */
template <class G>
concept lane_group = requires(G& g, const G& cg, bool pred, std::uint64_t v, unsigned src) {
  { cg.size() } -> std::convertible_to<unsigned>;
  { cg.rank() } -> std::convertible_to<unsigned>;
  g.sync();
  { g.ballot(pred) } -> std::same_as<lane_mask>;
  { g.shfl(v, src) } -> std::same_as<std::uint64_t>;
  { g.match_any(v) } -> std::same_as<lane_mask>;
};

/// The group of one: every collective is trivial (cuco's `cg_size == 1` path). Use it for
/// threads that act alone, on the host or the device.
class single_lane {
 public:
  BAM_HD constexpr unsigned size() const noexcept { return 1; }  ///< always 1
  BAM_HD constexpr unsigned rank() const noexcept { return 0; }  ///< always 0
  BAM_HD constexpr void sync() const noexcept {}                 ///< nothing to wait for
  BAM_HD constexpr lane_mask ballot(bool pred) const noexcept { return pred ? 1U : 0U; }
  BAM_HD constexpr std::uint64_t shfl(std::uint64_t v, unsigned) const noexcept { return v; }
  BAM_HD constexpr lane_mask match_any(std::uint64_t) const noexcept { return 1U; }
};

static_assert(lane_group<single_lane>);

}  // namespace bam

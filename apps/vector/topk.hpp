// SPDX-License-Identifier: Apache-2.0
// bam::vec::group_topk: the k smallest keys of a stream of (key, id) candidates, kept by a lane
// group (a GPU warp, a single host thread, or a test's cpu_warp) in caller-provided storage.
#pragma once

#include <bam/config.hpp>
#include <bam/lane_group.hpp>

#include <cuda/std/bit>
#include <cuda/std/limits>

#include <cstdint>
#include <type_traits>

namespace bam::vec {

/// Largest k any search accepts (the biggest topk capacity instantiated).
inline constexpr unsigned max_k = 256;

/// The key of "no candidate": it never enters a top-k.
[[nodiscard]] BAM_HD constexpr float no_key() { return cuda::std::numeric_limits<float>::infinity(); }

/**
 * @brief Scratch of one group_topk: the current best (sorted, first `Capacity` entries) and a
 * buffer of candidates that beat the threshold (the other `Capacity` entries).
 * @tparam Capacity a power of two, at least 32 (a warp's worth of candidates fits the buffer)
 */
template <unsigned Capacity>
struct topk_storage {
  static_assert(Capacity >= 32 && (Capacity & (Capacity - 1)) == 0, "Capacity: a power of two >= 32");
  float key[2 * Capacity];
  std::int64_t id[2 * Capacity];
};

/**
 * @brief Keeps the k smallest keys pushed by a group.
 *
 * Each push() is collective: every member offers one candidate (no_key() for none). Candidates
 * below the current threshold (the k-th best key so far) are appended to the buffer; when the
 * buffer could overflow on the next push, the group sorts best + buffer together (bitonic, in
 * the storage) and keeps the first Capacity entries. After finish(), key[0..k) and id[0..k) hold
 * the k best in ascending key order (no_key() / -1 where fewer than k were pushed).
 *
 * Invariants between collectives: key[0..Capacity) is sorted ascending; threshold_ == key[k-1];
 * n_buf_ (the same in every member) entries of the buffer are filled.
 *
 * @note Every member must make the same sequence of calls. The group must be dense for the
 * purpose of the strided loops: members are numbered by their rank among the ballot(true) mask,
 * so sparse ranks are fine. Memory ordering: g.sync() separates every write to the storage from
 * every read of it by another member (on the GPU, __syncwarp orders shared memory).
 */
template <unsigned Capacity, bam::lane_group Group>
class group_topk {
 public:
  /// Collective: empties the storage. Precondition: 1 <= k <= Capacity.
  BAM_HD group_topk(Group& g, topk_storage<Capacity>& s, unsigned k) : g_(g), s_(s), k_(k) {
    const bam::lane_mask members = g.ballot(true);
    below_ = members & ((bam::lane_mask{1} << g.rank()) - 1u);
    index_ = unsigned(cuda::std::popcount(below_));
    size_ = unsigned(cuda::std::popcount(members));
    for (unsigned i = index_; i < 2 * Capacity; i += size_) {
      s_.key[i] = no_key();
      s_.id[i] = -1;
    }
    g_.sync();
  }

  /// The key a candidate must beat to enter (uniform over the group).
  [[nodiscard]] BAM_HD float threshold() const { return threshold_; }

  /// Collective: offers this member's candidate.
  BAM_HD void push(float key, std::int64_t id) {
    const bool take = key < threshold_;
    const bam::lane_mask taken = g_.ballot(take);
    if (take) {
      const unsigned at = Capacity + n_buf_ + unsigned(cuda::std::popcount(taken & below_));
      s_.key[at] = key;
      s_.id[at] = id;
    }
    n_buf_ += unsigned(cuda::std::popcount(taken));
    if (n_buf_ + size_ > Capacity) merge();
  }

  /// Collective: merges what is buffered; the storage then holds the result.
  BAM_HD void finish() {
    if (n_buf_ > 0) merge();
  }

 private:
  /// Sorts all 2 * Capacity entries ascending (the unfilled buffer tail holds no_key()), so the
  /// best Capacity end up first; then clears the buffer.
  BAM_HD void merge() {
    g_.sync();
    constexpr unsigned n = 2 * Capacity;
    for (unsigned width = 2; width <= n; width <<= 1) {
      for (unsigned stride = width / 2; stride > 0; stride >>= 1) {
        for (unsigned t = index_; t < n / 2; t += size_) {
          const unsigned i = 2 * stride * (t / stride) + t % stride;
          const unsigned j = i + stride;
          const bool ascending = (i & width) == 0;
          if ((s_.key[i] > s_.key[j]) == ascending) {
            const float k = s_.key[i];
            s_.key[i] = s_.key[j];
            s_.key[j] = k;
            const std::int64_t d = s_.id[i];
            s_.id[i] = s_.id[j];
            s_.id[j] = d;
          }
        }
        g_.sync();
      }
    }
    for (unsigned i = Capacity + index_; i < n; i += size_) {
      s_.key[i] = no_key();
      s_.id[i] = -1;
    }
    threshold_ = s_.key[k_ - 1];
    n_buf_ = 0;
    g_.sync();
  }

  Group& g_;
  topk_storage<Capacity>& s_;
  unsigned k_;
  bam::lane_mask below_ = 0;  ///< members ranked below this one
  unsigned index_ = 0;           ///< this member's dense number
  unsigned size_ = 1;            ///< members
  unsigned n_buf_ = 0;           ///< buffered candidates (uniform)
  float threshold_ = no_key();   ///< key[k-1] after the last merge (uniform)
};

/// Calls `f(std::integral_constant<unsigned, C>{})` with the smallest capacity in {32, 128, 256}
/// that holds k (k <= max_k).
template <class F>
decltype(auto) with_capacity(unsigned k, F&& f) {
  if (k <= 32) return f(std::integral_constant<unsigned, 32>{});
  if (k <= 128) return f(std::integral_constant<unsigned, 128>{});
  return f(std::integral_constant<unsigned, 256>{});
}
}  // namespace bam::vec

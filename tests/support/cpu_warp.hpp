// SPDX-License-Identifier: Apache-2.0
// Test support: N std::threads standing in for the lanes of one warp (a lane_group).
#pragma once

#include <bam/lane_group.hpp>

#include <array>
#include <barrier>
#include <cstdint>
#include <thread>
#include <vector>

namespace bam::test {

/**
 * @brief A warp of `Lanes` host threads whose collectives run in lockstep.
 *
 * Each collective is "write my slot → barrier → read the slots → barrier", so every lane sees
 * every other lane's value, and no lane overwrites its slot before all have read it. Between
 * collectives lanes run freely, like divergent lanes of a GPU warp (which is what lets distinct
 * leaders serve distinct pages in parallel).
 *
 * @tparam Lanes members, 1..32; ranks are 0..Lanes-1
 */
template <unsigned Lanes>
class cpu_warp {
  static_assert(Lanes >= 1 && Lanes <= 32);

 public:
  /// One lane's handle; models lane_group.
  class lane {
   public:
    lane(cpu_warp& warp, unsigned rank) : warp_(&warp), rank_(rank) {}
    unsigned size() const { return Lanes; }  ///< Lanes
    unsigned rank() const { return rank_; }  ///< 0..Lanes-1
    void sync() { warp_->barrier_.arrive_and_wait(); }  ///< barrier over all lanes
    /// Mask of lanes whose `pred` is true.
    lane_mask ballot(bool pred) {
      const auto all = all_gather(pred ? 1 : 0);
      return mask_of([&](unsigned r) { return all[r] != 0; });
    }
    /// Value `v` of lane `src`.
    std::uint64_t shfl(std::uint64_t v, unsigned src) { return all_gather(v)[src]; }
    /// Mask of lanes whose key equals mine.
    lane_mask match_any(std::uint64_t key) {
      const auto all = all_gather(key);
      return mask_of([&](unsigned r) { return all[r] == key; });
    }

   private:
    /// Every lane's `v`: write my slot, barrier, copy all slots, barrier.
    std::array<std::uint64_t, Lanes> all_gather(std::uint64_t v) {
      warp_->slots_[rank_] = v;
      sync();
      const std::array<std::uint64_t, Lanes> all = warp_->slots_;
      sync();
      return all;
    }
    template <class Pred>
    static lane_mask mask_of(Pred pred) {
      lane_mask mask = 0;
      for (unsigned r = 0; r < Lanes; ++r) {
        if (pred(r)) mask |= 1U << r;
      }
      return mask;
    }

    cpu_warp* warp_;
    unsigned rank_;
  };

  /**
   * @brief Runs `fn(lane&)` on `Lanes` threads and returns once all of them have returned.
   * @note Every lane must make the same sequence of collective calls.
   */
  template <class Fn>
  void run(Fn fn) {
    std::vector<std::jthread> threads;
    threads.reserve(Lanes);
    for (unsigned r = 0; r < Lanes; ++r) {
      threads.emplace_back([this, r, &fn] {
        lane self(*this, r);
        fn(self);
      });
    }
  }

 private:
  std::barrier<> barrier_{Lanes};
  std::array<std::uint64_t, Lanes> slots_{};
};

static_assert(lane_group<cpu_warp<4>::lane>);

}  // namespace bam::test

// SPDX-License-Identifier: Apache-2.0
// queue_set_ref: the I/O queue pairs of several controllers, and the rule that spreads
// requests over them (by controller, then by the caller's SM so that threads of one SM share
// a queue pair and contend little with other SMs).
#pragma once

#include <bam/config.hpp>
#include <bam/detail/clock.hpp>

#include "queues/queue_pair.hpp"

#include <cstdint>
#include <type_traits>

namespace bam::queues {

template <cuda::thread_scope Scope = cuda::thread_scope_device>
class queue_set_ref {
 public:
  queue_set_ref() = default;
  /**
   * @param pairs all queue pairs, grouped by controller
   * @param first_of_controller n_controllers + 1 offsets into `pairs` (the last is the total)
   */
  BAM_HD queue_set_ref(const queue_pair_ref<Scope>* pairs, const std::uint32_t* first_of_controller,
                       std::uint32_t n_controllers)
      : pairs_(pairs), first_(first_of_controller), n_controllers_(n_controllers) {}

  [[nodiscard]] BAM_HD std::uint32_t controllers() const { return n_controllers_; }
  [[nodiscard]] BAM_HD std::uint32_t pairs_of(std::uint32_t controller) const {
    return first_[controller + 1] - first_[controller];
  }
  /// Pair `index` of all pairs (an index enter() returned); owners index per-pair resources
  /// (frames, PRP lists) by it.
  [[nodiscard]] BAM_HD const queue_pair_ref<Scope>& at(std::uint32_t index) const { return pairs_[index]; }

  /// What enter() returns when every pair of the controller is out of service.
  static constexpr std::uint32_t no_pair = ~std::uint32_t{0};

  /**
   * @brief Registers the caller as a user (queue_pair_ref::try_enter) of a pair of `controller`
   * in service: the one for `worker` if it is, else the next in service.
   * @return the pair's index (the caller must leave() it), or no_pair
   */
  [[nodiscard]] BAM_HD std::uint32_t enter(std::uint32_t controller, std::uint32_t worker) const {
    const std::uint32_t n = pairs_of(controller);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t index = first_[controller] + (worker + i) % n;
      if (pairs_[index].try_enter()) return index;
    }
    return no_pair;
  }
  /**
   * @brief Returns to service every failed pair of `controller` whose queues the host has
   * re-created (a try_enter that finds such a pair unused resets it).
   * @note For a thread waiting for one pair's recovery: threads that use only their own pairs
   * might never visit a re-created one.
   */
  BAM_HD void heal(std::uint32_t controller) const {
    for (std::uint32_t i = first_[controller]; i < first_[controller + 1]; ++i) {
      if (pairs_[i].failed() && pairs_[i].try_enter()) pairs_[i].leave();
    }
  }

 private:
  const queue_pair_ref<Scope>* pairs_ = nullptr;
  const std::uint32_t* first_ = nullptr;
  std::uint32_t n_controllers_ = 0;
};

static_assert(std::is_trivially_copyable_v<queue_set_ref<>>);

}  // namespace bam::queues

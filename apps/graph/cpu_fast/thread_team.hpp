// SPDX-License-Identifier: Apache-2.0
// A persistent team of host threads that runs SPMD regions (the shape of an OpenMP parallel
// region): every member runs the same body and meets the others at barriers, dynamic loops and
// reductions. Keeping the threads alive between regions makes a region cost one wake-up, not
// a thread start, which matters for traversals with many short steps.
#pragma once

#include <atomic>
#include <barrier>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "apps/common/parallel.hpp"

namespace bam::graph::cpu_fast {

class thread_team;

/**
 * @brief One member's handle inside thread_team::run().
 * @note Collective calls (barrier, for_ranges, sum) must be made by every member in the same
 *       order, as in an OpenMP region; a member that skips one deadlocks the team.
 */
class team_member {
 public:
  [[nodiscard]] unsigned rank() const { return rank_; }
  [[nodiscard]] unsigned size() const;

  /** @brief Waits until every member arrives; everything written before happens-before after. */
  void barrier();

  /**
   * @brief Dynamic loop: members claim ranges [a, min(a + grain, n)) of [0, n) in increasing
   *        order and call fn(a, z) for each; returns after every member finished (a barrier).
   * @note Claims are a relaxed fetch_add on a team counter; the closing barrier orders the
   *       counter's reset for the loop after the next one (two counters alternate).
   */
  template <class Fn>
  void for_ranges(std::uint64_t n, std::uint64_t grain, Fn&& fn);

  /** @brief Sum of every member's `local` (a collective: barriers before and after reading). */
  std::uint64_t sum(std::uint64_t local);
  /** @brief Sum of every member's `local`, added in rank order. */
  double sum(double local);
  /** @brief Smallest of every member's `local`. */
  std::uint64_t min(std::uint64_t local);
  /** @brief {sum of `local` over the members of lower rank, sum over all}: where a member's
   *         part goes when the parts are laid out in rank order. */
  std::pair<std::uint64_t, std::uint64_t> scan(std::uint64_t local);

 private:
  friend class thread_team;
  team_member(thread_team& team, unsigned rank) : team_(team), rank_(rank) {}
  [[nodiscard]] std::atomic<std::uint64_t>& loop_counter();
  void finish_loop();
  /// Publishes `local`, calls read(slots) once every member has, then waits for all readers.
  template <class Read>
  auto exchange(std::uint64_t u, double d, Read&& read);

  thread_team& team_;
  unsigned rank_;
  unsigned loops_ = 0;  ///< for_ranges calls so far in this region
};

/** @brief Owner of the member threads; rank 0 is the thread that calls run(). */
class thread_team {
 public:
  /** @param n_threads members including the caller; 0 means apps::default_thread_count(). */
  explicit thread_team(unsigned n_threads = 0);
  ~thread_team();
  thread_team(const thread_team&) = delete;
  thread_team& operator=(const thread_team&) = delete;

  [[nodiscard]] unsigned size() const { return size_; }

  /**
   * @brief Runs body(team_member&) on every member and returns when all have returned.
   * @note The body must not throw (it would leave the others waiting at a barrier): an escaping
   *       exception terminates the program. Writes made in the body happen-before run() returns
   *       (each member's release decrement of the running count, the caller's acquire wait).
   *       One run() at a time per team.
   */
  template <class Body>
  void run(Body&& body) {
    run_erased([](void* b, team_member& m) noexcept { (*static_cast<Body*>(b))(m); }, &body);
  }

 private:
  friend class team_member;
  using job_fn = void (*)(void*, team_member&) noexcept;
  struct alignas(64) padded_counter {
    std::atomic<std::uint64_t> value{0};
  };
  struct alignas(64) reduction_slot {
    std::uint64_t u = 0;
    double d = 0;
  };

  void run_erased(job_fn fn, void* body);
  void serve(unsigned rank);

  unsigned size_;
  std::barrier<> barrier_;
  std::vector<std::jthread> workers_;
  job_fn job_ = nullptr;  ///< written by run() before the generation bump (release)
  void* body_ = nullptr;
  bool stopping_ = false;                   ///< written before the last generation bump
  std::atomic<std::uint64_t> generation_{0};  ///< bumped (release) to start a region or stop
  std::atomic<unsigned> running_{0};          ///< workers still in the current region
  padded_counter loop_next_[2];               ///< dynamic-loop claim counters, alternating
  std::unique_ptr<reduction_slot[]> slots_;   ///< one per member, for sum()
};

template <class Fn>
void team_member::for_ranges(std::uint64_t n, std::uint64_t grain, Fn&& fn) {
  std::atomic<std::uint64_t>& next = loop_counter();
  for (std::uint64_t a = next.fetch_add(grain, std::memory_order_relaxed); a < n;
       a = next.fetch_add(grain, std::memory_order_relaxed)) {
    fn(a, a + grain < n ? a + grain : n);
  }
  finish_loop();
}

}  // namespace bam::graph::cpu_fast

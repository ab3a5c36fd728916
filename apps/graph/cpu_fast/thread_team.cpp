// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/cpu_fast/thread_team.hpp"

#include <algorithm>
#include <span>

namespace bam::graph::cpu_fast {

unsigned team_member::size() const { return team_.size_; }

void team_member::barrier() { team_.barrier_.arrive_and_wait(); }

std::atomic<std::uint64_t>& team_member::loop_counter() {
  return team_.loop_next_[loops_ & 1].value;
}

void team_member::finish_loop() {
  // Loop k uses counter k % 2. Nobody touches counter (k + 1) % 2 until after this barrier,
  // and loop k - 1 (its last user) ended at the previous one, so rank 0 may reset it here.
  if (rank_ == 0) team_.loop_next_[(loops_ + 1) & 1].value.store(0, std::memory_order_relaxed);
  ++loops_;
  barrier();
}

template <class Read>
auto team_member::exchange(std::uint64_t u, double d, Read&& read) {
  team_.slots_[rank_] = {u, d};
  barrier();
  const auto result = read(std::span<const thread_team::reduction_slot>(team_.slots_.get(), team_.size_));
  barrier();  // nobody overwrites a slot before everyone has read it
  return result;
}

std::uint64_t team_member::sum(std::uint64_t local) {
  return exchange(local, 0, [](auto slots) {
    std::uint64_t total = 0;
    for (const auto& s : slots) total += s.u;
    return total;
  });
}

double team_member::sum(double local) {
  return exchange(0, local, [](auto slots) {
    double total = 0;
    for (const auto& s : slots) total += s.d;
    return total;
  });
}

std::uint64_t team_member::min(std::uint64_t local) {
  return exchange(local, 0, [](auto slots) {
    std::uint64_t least = slots[0].u;
    for (const auto& s : slots) least = std::min(least, s.u);
    return least;
  });
}

std::pair<std::uint64_t, std::uint64_t> team_member::scan(std::uint64_t local) {
  return exchange(local, 0, [this](auto slots) {
    std::uint64_t before = 0, total = 0;
    for (unsigned r = 0; r < slots.size(); ++r) {
      if (r < rank_) before += slots[r].u;
      total += slots[r].u;
    }
    return std::pair{before, total};
  });
}

thread_team::thread_team(unsigned n_threads)
    : size_(n_threads == 0 ? apps::default_thread_count() : n_threads),
      barrier_(static_cast<std::ptrdiff_t>(size_)),
      slots_(std::make_unique<reduction_slot[]>(size_)) {
  workers_.reserve(size_ - 1);
  for (unsigned r = 1; r < size_; ++r) workers_.emplace_back([this, r] { serve(r); });
}

thread_team::~thread_team() {
  stopping_ = true;
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  workers_.clear();  // joins
}

void thread_team::run_erased(job_fn fn, void* body) {
  job_ = fn;
  body_ = body;
  loop_next_[0].value.store(0, std::memory_order_relaxed);
  loop_next_[1].value.store(0, std::memory_order_relaxed);
  running_.store(size_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);  // publishes the job and the resets
  generation_.notify_all();
  team_member self(*this, 0);
  fn(body, self);
  for (unsigned left = running_.load(std::memory_order_acquire); left != 0;
       left = running_.load(std::memory_order_acquire)) {
    running_.wait(left, std::memory_order_acquire);
  }
}

void thread_team::serve(unsigned rank) {
  std::uint64_t seen = 0;
  for (;;) {
    generation_.wait(seen, std::memory_order_acquire);
    seen = generation_.load(std::memory_order_acquire);
    if (stopping_) return;
    team_member self(*this, rank);
    job_(body_, self);
    // Release: the region's writes happen-before the caller's acquire of the final count.
    if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) running_.notify_one();
  }
}

}  // namespace bam::graph::cpu_fast

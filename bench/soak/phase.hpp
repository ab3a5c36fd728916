// SPDX-License-Identifier: Apache-2.0
// bench/soak: one phase (one kernel, or one round of host threads) and how its lanes draw their
// accesses. Portable: the GPU and the CPU driver pass the same parameters to the same code.
//
// The model. The data is an array of 64-bit words in a RAM namespace, followed by an array of
// 64-bit counters; both start as the namespace's synthetic content (bam::synthetic_word of the
// fill seed and the word's index). The lanes keep `model[i]`, the value data element i must
// hold, and `added[c]`, the fetch_adds of counter c that succeeded. In phase p an element is
// *stored* only if it is store-eligible in p (a hash of p and i), and then by the one lane
// whose claim (an exchange on `claims[i]`) wins; that lane checks the old value, writes
// stored_value(p, i) and sets model[i]. No lane reads a store-eligible element in p, so every
// read has one right answer: model[i] as the previous phases left it.
#pragma once

#include "bench/soak/counts.hpp"

#include <bam/array.hpp>
#include <bam/config.hpp>
#include <bam/synthetic.hpp>

#include <cstdint>

namespace bam::bench::soak {

/// How lanes pick the elements they access.
enum class pattern : std::uint8_t {
  uniform,  ///< every element equally likely
  zipf,     ///< 4 KiB units ranked by a Zipf law (exponent 0.99), as in bench/array_read
  hot,      ///< uniform over a prefix that fits half the cache: all hits once warm
};

/// Elements per Zipf unit (4 KiB, bench/array_read's unit).
inline constexpr std::uint64_t zipf_unit_elems = 4096 / 8;

/// Phases are numbered 1..max_phases over a whole soak (24 bits of a stored value).
inline constexpr std::uint32_t max_phases = (1u << 24) - 1;

/// What a store in phase `phase` writes to element `i`: the phase in the top 24 bits, the
/// index in the low 40, so a wrong value read later names where it came from.
BAM_HD constexpr std::uint64_t stored_value(std::uint32_t phase, std::uint64_t i) {
  return (std::uint64_t{phase} << 40) | (i & ((std::uint64_t{1} << 40) - 1));
}

/// Everything the lanes of one phase need; trivially copyable (a kernel parameter).
struct phase_params {
  array<std::uint64_t> data;       ///< n_data elements
  array<std::uint64_t> counters;   ///< n_counters elements, on the same cache
  std::uint64_t* model = nullptr;  ///< n_data words: what each data element must read as
  std::uint64_t* added = nullptr;  ///< n_counters words: successful fetch_adds so far
  std::uint32_t* claims = nullptr; ///< n_data words: the last phase whose store claimed the element
  const std::uint32_t* zipf_ranks = nullptr;  ///< unit ranks drawn from the Zipf law
  std::uint32_t zipf_mask = 0;     ///< entries of zipf_ranks - 1 (a power of two)
  std::uint64_t fill_seed = 0;     ///< the namespace's synthetic content
  std::uint64_t seed = 0;          ///< this phase's draws
  std::uint32_t phase = 0;         ///< 1..max_phases
  pattern pat = pattern::uniform;
  std::uint64_t hot_data = 1;      ///< hot: data draws fall below this (>= 1)
  std::uint64_t hot_counters = 1;  ///< hot: counter draws fall below this (>= 1)
  std::uint32_t add_per_256 = 26;  ///< share of fetch_adds among draws, in 256ths
  std::uint32_t store_period = 8;  ///< an element is store-eligible with probability 1/period
                                   ///< (a power of two)
  std::uint32_t ops_per_lane = 0;  ///< draws per lane at most
  std::uint64_t phase_ns = 0;      ///< a lane group stops drawing this long after it started
  phase_counts* counts = nullptr;  ///< where the lanes merge their counts
};

/// What one draw asks a lane to do.
enum class op : std::uint8_t { none, read, store, add };

struct draw {
  op what = op::none;
  std::uint64_t index = 0;  ///< data element (read, store) or counter (add)
};

/// An element below `n` (a power of two) by the phase's pattern, from the random word `r`.
BAM_HD inline std::uint64_t pick(const phase_params& p, std::uint64_t n, std::uint64_t hot, std::uint64_t r) {
  if (p.pat == pattern::hot) return r % hot;
  if (p.pat == pattern::zipf && n >= zipf_unit_elems) {
    const std::uint64_t units = n / zipf_unit_elems;
    const std::uint64_t rank = p.zipf_ranks[r & p.zipf_mask];
    // An odd multiplier permutes the units (a power of two), so the hot units are scattered.
    const std::uint64_t unit = (rank * 0x9E3779B97F4A7C15ull) & (units - 1);
    return unit * zipf_unit_elems + (r >> 40) % zipf_unit_elems;
  }
  return r & (n - 1);
}

/// Whether element `i` may be stored in the phase (and so must not be read in it).
BAM_HD inline bool store_eligible(const phase_params& p, std::uint64_t i) {
  return (synthetic_word(p.seed ^ 0x5707e5ull, i) & (p.store_period - 1)) == 0;
}

/// The initial value of counter `c`: the synthetic word after the data's.
BAM_HD inline std::uint64_t counter_start(const phase_params& p, std::uint64_t c) {
  return synthetic_word(p.fill_seed, p.data.size() + c);
}

/**
 * @brief Draw `k` of lane `lane`: a fetch_add of a counter, a read of an element that is not
 * store-eligible, a store of a store-eligible element whose claim this lane won, or nothing
 * (the claim was lost).
 * @note The claim is an exchange (relaxed) on claims[i]: the first lane of the phase to swap
 * in the phase number wins; at most one lane stores an element per phase.
 */
BAM_HD inline draw next_draw(const phase_params& p, std::uint64_t lane, std::uint32_t k, lane_counts& c) {
  const std::uint64_t id = 2 * (lane * p.ops_per_lane + k);
  const std::uint64_t r1 = synthetic_word(p.seed, id), r2 = synthetic_word(p.seed, id + 1);
  if ((r1 & 0xff) < p.add_per_256) return draw{op::add, pick(p, p.counters.size(), p.hot_counters, r2)};
  const std::uint64_t i = pick(p, p.data.size(), p.hot_data, r2);
  if (!store_eligible(p, i)) return draw{op::read, i};
  using claim = detail::atomic<std::uint32_t, cuda::thread_scope_device>;
  if (claim(p.claims[i]).exchange(p.phase, cuda::std::memory_order_relaxed) != p.phase) return draw{op::store, i};
  ++c.skipped;
  return draw{};
}

}  // namespace bam::bench::soak

// SPDX-License-Identifier: Apache-2.0
// The demo's work, written once for GPU threads and for CPU threads: each worker reads random
// elements of a terabyte-scale bam::array (half from a hot set that the cache keeps, half from
// anywhere), or writes its share of a second array, or reads that share back; every value is
// checked against what it must be.
#pragma once

#include <bam/array.hpp>
#include <bam/config.hpp>
#include <bam/synthetic.hpp>

#include <cstdint>

namespace bam::demo {

/// What one step does.
enum class step_kind : std::uint32_t {
  read,    ///< random reads of `big`, verified against the synthetic namespace
  write,   ///< stores to every element of `written` (workers share them round-robin)
  verify,  ///< reads of every element of `written`, checked against the last write step
};

struct step_plan {
  step_kind kind = step_kind::read;
  std::uint32_t round = 0;       ///< seeds the read indices and the written values
  std::uint64_t workers = 0;     ///< threads taking part
  std::uint32_t reads = 0;       ///< reads per worker (read steps)
  std::uint64_t hot_elems = 0;   ///< size of the hot set at the start of `big` (read steps)
  std::uint64_t seed = 0;        ///< content seed of the synthetic namespace behind `big`
};

/// The two arrays a step works on (trivially copyable: passed to kernels by value).
struct demo_arrays {
  array<std::uint64_t> big;      ///< the synthetic namespace: element i is synthetic_word(seed, i)
  array<std::uint64_t> written;  ///< a RAM namespace the write steps fill
};

/// What workers did in a step (summed over workers).
struct step_totals {
  unsigned long long reads = 0;
  unsigned long long writes = 0;
  unsigned long long wrong = 0;  ///< values that differed from what they must be
};

/// The value write step `round` stores at element `j` of the written array.
BAM_HD constexpr std::uint64_t written_value(std::uint32_t round, std::uint64_t j) {
  return synthetic_word(0x5eed0000ull + round, j);
}

/// Element `k` of worker `w`'s random reads in round `round`: even k from the hot set, odd k
/// from the whole array.
BAM_HD constexpr std::uint64_t read_index(const step_plan& p, std::uint64_t size, std::uint64_t w, std::uint32_t k) {
  const std::uint64_t r = synthetic_word(p.round, w * p.reads + k);
  return k % 2 == 0 && p.hot_elems ? r % p.hot_elems : r % size;
}

/**
 * @brief Worker `w`'s part of step `p`.
 * @note Accesses go through bam::array one element at a time (on a GPU the warp's lanes are
 * coalesced per page); failed accesses are recorded by the cache for page_cache::check() and
 * read as 0, which counts as wrong here. Steps are separated by kernel boundaries (thread
 * joins on the CPU), so a verify step sees every store of the write step before it.
 */
BAM_HD inline step_totals run_worker(const demo_arrays& a, const step_plan& p, std::uint64_t w) {
  step_totals t;
  switch (p.kind) {
    case step_kind::read:
      for (std::uint32_t k = 0; k < p.reads; ++k) {
        const std::uint64_t i = read_index(p, a.big.size(), w, k);
        t.wrong += a.big[i] != synthetic_word(p.seed, i);
        ++t.reads;
      }
      break;
    case step_kind::write:
      for (std::uint64_t j = w; j < a.written.size(); j += p.workers) {
        a.written.store(j, written_value(p.round, j));
        ++t.writes;
      }
      break;
    case step_kind::verify:
      for (std::uint64_t j = w; j < a.written.size(); j += p.workers) {
        t.wrong += a.written[j] != written_value(p.round, j);
        ++t.reads;
      }
      break;
  }
  return t;
}

/// Runs step `p` on CPU threads (one worker each).
step_totals run_cpu_step(const demo_arrays& a, const step_plan& p);
#if BAM_WITH_CUDA_RUNTIME
/// Runs step `p` as a kernel (one worker per thread) and waits for it.
step_totals run_gpu_step(const demo_arrays& a, const step_plan& p);
#endif

}  // namespace bam::demo

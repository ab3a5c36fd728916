// SPDX-License-Identifier: Apache-2.0
// Runs demo readers on the GPU (a kernel) or on CPU threads; both return merged totals.
#pragma once

#include "apps/bam-demo/demo_io.hpp"

#include <bam/memory.hpp>

#include <vector>

namespace bam::demo {

struct read_plan {
  const std::vector<queues::queue_pair_ref<>>* pairs = nullptr;
  const dma_buffer* frames = nullptr;  ///< one frame of blocks * block_bytes per reader
  std::uint64_t readers = 0;
  std::uint32_t blocks = 0, block_bytes = 0;
  std::uint64_t n_blocks = 0, seed = 0;
  std::uint32_t reads_per_reader = 0;
  std::uint64_t timeout_ns = 0;
};

struct run_totals {
  reader_totals totals;
  double seconds = 0;
};

run_totals run_cpu_readers(const read_plan& plan);
#if BAM_WITH_CUDA_RUNTIME
run_totals run_gpu_readers(const read_plan& plan);
#endif

}  // namespace bam::demo

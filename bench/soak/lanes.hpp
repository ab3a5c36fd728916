// SPDX-License-Identifier: Apache-2.0
// bench/soak: where a phase's lanes run — GPU warps (soak.cu) or host threads (cpu_lanes.cpp) —
// behind one interface, so the sweep, the model and the checks are the same for both.
#pragma once

#include "bench/soak/counts.hpp"
#include "bench/soak/phase.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace bam::bench::soak {

/// How many lanes a phase runs on.
enum class grid_kind : std::uint8_t {
  warp,   ///< one warp (GPU) or one lock-step group of host threads
  block,  ///< one block of 256 (GPU) or a few groups and lone threads (CPU)
  full,   ///< every lane the GPU keeps resident (occupancy), or a few per host core
};

[[nodiscard]] const char* to_string(grid_kind g);

/// A phase's outcome.
struct phase_result {
  phase_counts counts;
  double seconds = 0;
};

/// Memory the lanes reach (VRAM or the heap), released with its last reference.
using lane_memory = std::shared_ptr<void>;

class lanes {
 public:
  virtual ~lanes() = default;
  /// The device the report names ("NVIDIA H200", or "cpu").
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual nlohmann::json details() const = 0;
  /// True when GPU threads drive the queues (the emulated system must be built for the GPU).
  [[nodiscard]] virtual bool on_gpu() const = 0;
  /// Lanes a phase of this grid runs on.
  [[nodiscard]] virtual std::uint64_t lanes_of(grid_kind grid) const = 0;
  /// `bytes` of zeroed memory the lanes reach.
  [[nodiscard]] virtual lane_memory allocate(std::size_t bytes) = 0;
  virtual void upload(void* dst, const void* src, std::size_t bytes) = 0;
  virtual void download(void* dst, const void* src, std::size_t bytes) = 0;
  /**
   * @brief Runs one phase: every lane of `grid` runs lane_work with `p` (whose `counts` the
   * runner sets), and the counts come back once all have finished.
   * @throw bam::error when the lanes cannot run (a CUDA failure)
   */
  virtual phase_result run(phase_params p, grid_kind grid) = 0;
};

/// Host threads: single lanes and lock-step groups of 8 (tests/support/cpu_warp.hpp).
[[nodiscard]] std::unique_ptr<lanes> make_cpu_lanes();
#if BAM_WITH_CUDA_RUNTIME
/// GPU warps on device 0. @throw bam::cuda_error when there is no usable GPU
[[nodiscard]] std::unique_ptr<lanes> make_gpu_lanes();
#endif

}  // namespace bam::bench::soak

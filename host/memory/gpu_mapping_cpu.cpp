// SPDX-License-Identifier: Apache-2.0
// gpu_mapping.hpp for CPU-only builds: CPU threads stand in for GPU threads, so they address
// host memory and BAR0 as they are, and there is no VRAM.
#include <bam/error.hpp>
#include <bam/host/memory/gpu_mapping.hpp>

namespace bam::host {

gpu_host_mapping::gpu_host_mapping(std::byte* host, std::size_t, bool) : device_(host) {}

gpu_host_mapping::~gpu_host_mapping() = default;

bool gpu_memory_available() noexcept { return false; }

vram_block allocate_vram(std::size_t, std::size_t) {
  throw invalid_argument("allocate_vram: this is a CPU-only build of bam (BAM_ENABLE_CUDA=OFF): no GPU memory");
}

}  // namespace bam::host

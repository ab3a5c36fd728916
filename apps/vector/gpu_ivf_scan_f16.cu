// SPDX-License-Identifier: Apache-2.0
// The list scan instantiated for f16 vectors.
#include "apps/vector/gpu_ivf_scan_impl.cuh"

namespace bam::vec::gpu {

void launch_scan_typed(const rows_view<half>& vram, const scan_args& a, std::uint64_t blocks) {
  launch_scan_for<half>(vram, a, blocks);
}

void launch_scan_typed(const array<half>& cached, const scan_args& a, std::uint64_t blocks) {
  launch_scan_for<half>(cached, a, blocks);
}

}  // namespace bam::vec::gpu

// SPDX-License-Identifier: Apache-2.0
// The list scan instantiated for u8 vectors.
#include "apps/vector/gpu_ivf_scan_impl.cuh"

namespace bam::vec::gpu {

void launch_scan_typed(const rows_view<std::uint8_t>& vram, const scan_args& a, std::uint64_t blocks) {
  launch_scan_for<std::uint8_t>(vram, a, blocks);
}

void launch_scan_typed(const array<std::uint8_t>& cached, const scan_args& a, std::uint64_t blocks) {
  launch_scan_for<std::uint8_t>(cached, a, blocks);
}

}  // namespace bam::vec::gpu

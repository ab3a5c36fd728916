// SPDX-License-Identifier: Apache-2.0
// launch_scan: picks the element type's instantiation (gpu_ivf_scan_<type>.cu).
#include "apps/vector/gpu_ivf_scan.cuh"
#include "apps/vector/gpu_source.cuh"

namespace bam::vec::gpu {

void launch_scan(const list_source& src, const scan_args& a, std::uint64_t blocks) {
  if (blocks == 0) return;
  visit_store(src, [&](const auto& store, auto) { launch_scan_typed(store, a, blocks); });
}

}  // namespace bam::vec::gpu

// SPDX-License-Identifier: Apache-2.0
// launch_scan: picks the element type's instantiation (gpu_ivf_scan_<type>.cu); and the pairs per
// work item that the element type's shared memory allows.
#include "apps/vector/gpu_ivf_scan.cuh"
#include "apps/vector/gpu_ivf_scan_impl.cuh"
#include "apps/vector/gpu_source.cuh"

namespace bam::vec::gpu {

std::uint32_t scan_queries_per_item(const list_source& src, std::uint32_t dim, std::uint32_t k) {
  std::uint32_t q = scan_queries_min;
  visit_store(src, [&](const auto&, auto tag) { q = scan_detail::queries_per_item_for<decltype(tag)>(dim, k); });
  return q;
}

void launch_scan(const list_source& src, const scan_args& a, std::uint64_t blocks) {
  if (blocks == 0) return;
  visit_store(src, [&](const auto& store, auto) { launch_scan_typed(store, a, blocks); });
}

}  // namespace bam::vec::gpu

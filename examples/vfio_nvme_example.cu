// SPDX-License-Identifier: Apache-2.0
// Example: a kernel reads a real NVMe SSD through VFIO.
//
// The same page cache and bam::array as over the emulated controller; only where the BAR and
// the DMA memory come from changes. The drive must be bound to vfio-pci first, which takes it
// away from Linux: never use the boot drive (README.md, "Real NVMe"; docs/real-nvme.md).
// Usage: vfio_nvme_example 0000:01:00.0   (reads at most 1 GiB of namespace 1; writes nothing)
// CI compiles it; it was not run, as no machine with an SSD and a GPU was available.
#include <bam/host/controller.hpp>
#include <bam/host/nvme_binding.hpp>

#include <bam/detail/cuda_try.hpp>
#include <bam/host/memory/cuda_buffer.hpp>
#include <bam/page_cache.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>

namespace {

/// Grid-stride sum of every element (consecutive lanes read consecutive elements, so a warp's
/// 32 reads usually share one page and become at most one NVMe command).
__global__ void sum_all(bam::array<std::uint32_t> a, unsigned long long* sum) {
  unsigned long long s = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < a.size();
       i += std::uint64_t(gridDim.x) * blockDim.x)
    s += a[i];
  atomicAdd(sum, s);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PCI_ADDRESS   (a drive bound to vfio-pci, e.g. 0000:01:00.0)\n", argv[0]);
    return 2;
  }
  // 1. The drive: BAR0 mapped through VFIO, DMA memory mapped in its IOMMU domain.
  bam::host::nvme_binding ssd(bam::host::binding_kind::vfio, argv[1]);
  // 2. The driver: reset, identify, and I/O queue pairs that GPU threads will drive.
  bam::host::controller ctrl(ssd.bar(), ssd.memory(), {.io_queue_pairs = 32, .queue_depth = 1024});
  const auto& ns = ctrl.namespace_by_id(1);
  const std::uint64_t n = std::min<std::uint64_t>(ns.n_blocks * ns.block_size / 4, std::uint64_t{1} << 28);
  std::printf("%s: namespace 1 has %llu blocks of %u B; reading %llu words\n", ssd.name().c_str(),
              (unsigned long long)ns.n_blocks, ns.block_size, (unsigned long long)n);

  // 3. The cache and the array, exactly as over an emulated controller.
  bam::page_cache cache({&ctrl}, ssd.memory(), {.page_bytes = 4096, .cache_bytes = 256 << 20});
  const auto a = cache.map<std::uint32_t>({.name = "drive", .nsid = 1, .start_lba = 0, .count = n});

  const bam::host::cuda_buffer<unsigned long long> total(1, bam::host::cuda_allocation::managed);
  unsigned long long* const sum = total.data();
  *sum = 0;
  sum_all<<<1024, 256>>>(a, sum);
  BAM_CUDA_TRY(cudaGetLastError());
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  cache.check();  // an NVMe error names the command, queue, LBA and status
  std::printf("sum of the words: %llu (compare: bam-nvme read --vfio %s ...)\n\n%s", *sum, argv[1],
              cache.stats_table().c_str());
  return 0;
  // Destruction in reverse order: the cache, then the controller (deletes its queues, shuts the
  // drive down so Linux can take it back), then the binding.
} catch (const std::exception& e) {
  std::fprintf(stderr, "vfio_nvme_example: %s\n", e.what());
  return 1;
}

// SPDX-License-Identifier: Apache-2.0
// bam-demo: the main job on the embedded default. GPU threads (or, without a GPU, CPU threads
// running the same portable code) read a synthetic namespace through bam's NVMe queues, served
// by the emulated controller; every byte is verified and the throughput printed.
#include "apps/bam-demo/readers.hpp"

#include <bam/host/controller.hpp>
#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/host/memory/heap_memory.hpp>
#if BAM_WITH_CUDA_RUNTIME
#include <bam/host/memory/cuda_memory.hpp>
#endif

#include <bam/status.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>

int main(int argc, char** argv) {
  CLI::App app{"bam-demo: read a synthetic NVMe namespace through bam's queues and verify every byte"};
  double tib = 1.0;
  std::uint32_t io_bytes = 4096, queues = 32, depth = 1024, reads = 16;
  unsigned workers = std::max(1u, std::min(8u, std::thread::hardware_concurrency() - 1));
  std::uint64_t readers = 0;
  bool force_cpu = false;
  app.add_option("--namespace-tib", tib, "size of the synthetic namespace in TiB")->check(CLI::Range(0.001, 1024.0));
  app.add_option("--io-bytes", io_bytes, "bytes per read (multiple of 512, at most 4096)")
      ->check([](const std::string& s) {
        const long v = std::stol(s);
        return v >= 512 && v <= 4096 && v % 512 == 0 ? std::string() : "must be a multiple of 512 in 512..4096";
      });
  app.add_option("--queues", queues, "I/O queue pairs")->check(CLI::Range(1, 1024));
  app.add_option("--depth", depth, "entries per queue")->check(CLI::Range(2, 65536));
  app.add_option("--workers", workers, "emulated controller threads")->check(CLI::Range(1, 256));
  app.add_option("--readers", readers, "reading threads (default: 128 per SM on a GPU, 8 on a CPU)");
  app.add_option("--reads", reads, "reads per reader")->check(CLI::Range(1, 1 << 20));
  app.add_flag("--cpu", force_cpu, "use CPU threads even when a GPU is present");
  CLI11_PARSE(app, argc, argv);

  try {
    bool gpu = false;
#if BAM_WITH_CUDA_RUNTIME
    gpu = !force_cpu && bam::host::cuda_device_present();
    std::unique_ptr<bam::memory_resource> memory;
    if (gpu) memory = std::make_unique<bam::host::cuda_memory>();
    else memory = std::make_unique<bam::host::heap_memory>();
#else
    auto memory = std::make_unique<bam::host::heap_memory>();
#endif
    if (!gpu)
      std::printf("No GPU in use%s: CPU threads run the same portable queue code that GPU threads run.\n",
                  force_cpu ? " (--cpu)" : " (none found, or a CPU-only build)");

    constexpr std::uint64_t seed = 2026;
    const std::uint64_t n_blocks = std::uint64_t(tib * double(1ull << 40)) / 512;
    auto ns = std::make_shared<bam::host::synthetic_store>(bam::host::synthetic_store::options{512, n_blocks, seed, 1});
    bam::host::emulated_iommu iommu;
    bam::host::iommu_memory dma(*memory, iommu);
    bam::host::emulated_controller::options eo;
    eo.n_workers = workers;
    eo.max_io_queues = std::uint16_t(std::min<std::uint32_t>(queues, 65535));
    bam::host::emulated_controller emu(*memory, iommu, {ns}, eo);
    bam::host::controller_options co;
    co.io_queue_pairs = queues;
    co.queue_depth = depth;
    co.driver = gpu ? bam::host::io_driver::gpu : bam::host::io_driver::cpu;
    bam::host::controller ctrl(emu.bar(), dma, co);

    int sms = 0;
#if BAM_WITH_CUDA_RUNTIME
    if (gpu) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
#endif
    if (readers == 0) readers = gpu ? std::uint64_t(sms) * 128 : 8;
    const std::uint32_t blocks = io_bytes / 512;
    auto frames = dma.allocate(readers * io_bytes, bam::memory_kind::host);
    bam::demo::read_plan plan{&ctrl.io_queues(), &frames, readers, blocks, 512, n_blocks, seed, reads,
                              30'000'000'000ull};
    std::printf("namespace: %.3f TiB synthetic (512 B blocks), %zu queue pairs x %u entries, %u emulator threads\n",
                double(n_blocks) * 512 / double(1ull << 40), ctrl.io_queues().size(), ctrl.queue_depth(), workers);
    std::printf("%s: %llu readers x %u random reads of %u bytes\n", gpu ? "GPU" : "CPU",
                (unsigned long long)readers, reads, io_bytes);
#if BAM_WITH_CUDA_RUNTIME
    const auto run = gpu ? bam::demo::run_gpu_readers(plan) : bam::demo::run_cpu_readers(plan);
#else
    const auto run = bam::demo::run_cpu_readers(plan);
#endif
    const auto& t = run.totals;
    std::printf("read %llu blocks of %u bytes (%.2f GiB) in %.3f s: %.3f M reads/s, %.2f GB/s\n", t.reads, io_bytes,
                double(t.reads) * io_bytes / double(1ull << 30), run.seconds, double(t.reads) / run.seconds / 1e6,
                double(t.reads) * io_bytes / run.seconds / 1e9);
    std::printf("verified every byte: %llu reads differed from the namespace\n", t.bad_bytes);
    if (t.failures) {
      std::fprintf(stderr, "%llu readers stopped on a failed read; first: %s at LBA %llu\n", t.failures,
                   bam::to_string(bam::status(t.first_status)), t.first_lba);
      return 1;
    }
    return t.bad_bytes == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bam-demo: %s\n", e.what());
    return 1;
  }
}

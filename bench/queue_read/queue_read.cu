// SPDX-License-Identifier: Apache-2.0
// bench/queue_read: random reads of 512 B and 4 KiB issued by GPU threads straight through bam's
// queues (no cache) from a RAM namespace served by the emulated controller, into pinned frames
// that warps then read and verify word by word; swept over queue count, depth and worker
// threads, beside the peers on the same data: cudaMemcpy host-to-device, zero-copy warp reads of
// a pinned copy of the namespace, and cuFile (compatibility mode) reads of a file holding it.
#include "bench/common/fill.hpp"
#include "bench/common/queue_reads.cuh"
#include "bench/common/eager_loading.hpp"
#include "bench/common/report.hpp"
#include "bench/queue_read/peers.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/detail/gpu_seconds.hpp>
#include <bam/host/controller.hpp>
#include <bam/host/emulator/emulated_controller.hpp>
#include <bam/host/emulator/emulated_iommu.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/memory/cuda_memory.hpp>
#include <bam/synthetic.hpp>

#include "queues/queue_pair.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

namespace {

using bam::bench::device_counters;
using bam::bench::queue_read_kernel;
using bam::queues::queue_pair_ref;

struct config {
  std::uint32_t queues, depth, workers, io_bytes, blocks_per_sm;
};

struct result {
  double reads_per_s = 0, gbytes_per_s = 0, mean_latency_us = 0, emulator_commands = 0;
  unsigned long long completed = 0, failed = 0, mismatched = 0;
  std::string first_failure;
};

result run_bam(const config& cfg, const std::shared_ptr<bam::host::ram_store>& ns, bam::host::cuda_memory& cuda,
               std::uint64_t seed, std::uint32_t ops) {
  bam::host::emulated_iommu iommu;
  bam::host::iommu_memory dma(cuda, iommu);
  bam::host::emulated_controller::options eo;
  eo.n_workers = cfg.workers;
  eo.max_io_queues = std::uint16_t(std::max<std::uint32_t>(cfg.queues, 1));
  eo.max_queue_entries = std::max<std::uint32_t>(cfg.depth, 4096);
  bam::host::emulated_controller emu(cuda, iommu, {ns}, eo);
  bam::host::controller_options co;
  co.io_queue_pairs = cfg.queues;
  co.queue_depth = cfg.depth;
  bam::host::controller ctrl(emu.bar(), dma, co);

  int sms = 0;
  BAM_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned threads = 256, grid = unsigned(sms) * cfg.blocks_per_sm;
  const std::uint64_t n_frames = std::uint64_t(ctrl.io_queues().size()) * cfg.depth;
  bam::dma_buffer frames = dma.allocate(n_frames * cfg.io_bytes, bam::memory_kind::host, 4096);
  bam::dma_buffer pairs = cuda.allocate(sizeof(queue_pair_ref<>) * ctrl.io_queues().size(), bam::memory_kind::device);
  BAM_CUDA_TRY(cudaMemcpy(pairs.device(), ctrl.io_queues().data(), pairs.size(), cudaMemcpyHostToDevice));
  bam::dma_buffer counters = cuda.allocate(sizeof(device_counters), bam::memory_kind::device);
  auto* c = reinterpret_cast<device_counters*>(counters.device());
  const auto* qps = reinterpret_cast<const queue_pair_ref<>*>(pairs.device());
  const std::uint64_t n_units = ns->n_blocks() * ns->block_size() / cfg.io_bytes;
  const std::uint64_t timeout = 10'000'000'000ull;

  // Warm-up round, then the timed one.
  queue_read_kernel<<<grid, threads>>>(qps, std::uint32_t(ctrl.io_queues().size()), frames.device(), frames.bus_at(0),
                                       cfg.io_bytes, ns->block_size(), n_units, seed, 1, timeout, c);
  BAM_CUDA_TRY(cudaDeviceSynchronize());
  BAM_CUDA_TRY(cudaMemset(c, 0, sizeof(device_counters)));
  const auto before = emu.stats();
  const double seconds = bam::detail::gpu_seconds([&] {
    queue_read_kernel<<<grid, threads>>>(qps, std::uint32_t(ctrl.io_queues().size()), frames.device(),
                                         frames.bus_at(0), cfg.io_bytes, ns->block_size(), n_units, seed, ops, timeout, c);
  });
  device_counters h{};
  BAM_CUDA_TRY(cudaMemcpy(&h, c, sizeof h, cudaMemcpyDeviceToHost));
  result r;
  r.completed = h.completed;
  r.failed = h.failed;
  r.mismatched = h.mismatched_words;
  r.reads_per_s = double(h.completed) / seconds;
  r.gbytes_per_s = r.reads_per_s * cfg.io_bytes / 1e9;
  r.mean_latency_us = h.latency_samples ? double(h.latency_ns_sum) / double(h.latency_samples) / 1e3 : 0;
  r.emulator_commands = double(emu.stats().commands - before.commands);
  if (h.failed)
    r.first_failure = std::string(bam::to_string(bam::status(h.first_status))) + " on queue " +
                      std::to_string(h.first_qid) + " at LBA " + std::to_string(h.first_lba);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  bam::bench::load_kernels_eagerly();
  CLI::App app{"bam queue_read: random reads through bam's NVMe queues vs. peers"};
  std::string results = "bench/results";
  std::uint64_t ns_gib = 8;
  std::uint32_t ops = 64;
  std::vector<std::uint32_t> blocks_per_sm{1, 2};
  std::vector<std::uint32_t> queue_counts{32, 64, 132}, depths{64, 256}, worker_counts{8, 14};
  std::string cufile_path = "/tmp/bam-queue-read.dat";
  app.add_option("--results", results, "directory for the JSON result");
  app.add_option("--namespace-gib", ns_gib, "RAM namespace size in GiB")->check(CLI::Range(1, 64));
  app.add_option("--ops", ops, "reads per GPU thread per configuration");
  app.add_option("--blocks-per-sm", blocks_per_sm, "thread blocks of 256 per SM to sweep (fewer reads in flight keep frames in the CPU's cache)");
  app.add_option("--queues", queue_counts, "I/O queue pair counts to sweep");
  app.add_option("--depths", depths, "queue depths to sweep (above 32: a warp reserves 32 tickets at once)")
      ->check(CLI::Range(33, 65536));
  app.add_option("--workers", worker_counts, "emulator worker thread counts to sweep");
  app.add_option("--cufile-path", cufile_path, "file for the cuFile peer (empty: skip)");
  CLI11_PARSE(app, argc, argv);

  cudaDeviceProp prop{};
  BAM_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
  bam::bench::report rep("queue_read", argc, argv);
  rep.set_device(prop.name, {{"sms", prop.multiProcessorCount},
                             {"pcie", "gen" + std::to_string(5) + " x16 (box description)"},
                             {"host_threads", std::thread::hardware_concurrency()}});

  const std::uint64_t seed = 0x0ddba11;
  const std::uint64_t bytes = ns_gib << 30;
  bam::host::cuda_memory cuda;
  std::printf("filling a %llu GiB RAM namespace with synthetic content...\n", (unsigned long long)ns_gib);
  std::fflush(stdout);
  bam::dma_buffer pinned_copy = cuda.allocate(bytes, bam::memory_kind::host);
  auto ns512 = std::make_shared<bam::host::ram_store>(512, bytes / 512);
  bam::bench::fill_synthetic(*ns512, seed, pinned_copy.host(), cufile_path);

  // Peers and ceilings.
  const double h2d = bam::bench::h2d_bytes_per_s(1ull << 30, 5);
  rep.add_row("peers", {{"peer", "cudaMemcpy H2D 1 GiB"}, {"io_bytes", 1 << 30}, {"GB_per_s", h2d / 1e9},
                        {"reads_per_s", h2d / 4096}, {"mismatched_words", 0}, {"note", "ceiling, as 4 KiB pages/s"}});
  double zc4k = 0, zc512 = 0, cf4k = 0;
  for (std::uint32_t io : {512u, 4096u}) {
    const auto z = bam::bench::zero_copy_random_pages(pinned_copy.device(), bytes, io, seed, 64ull << 20);
    rep.add_row("peers", {{"peer", "zero-copy warp reads"}, {"io_bytes", io}, {"GB_per_s", z.pages_per_s * io / 1e9},
                          {"reads_per_s", z.pages_per_s}, {"mismatched_words", z.mismatched_words}, {"note", ""}});
    (io == 4096 ? zc4k : zc512) = z.pages_per_s;
    if (!cufile_path.empty()) {
      const auto f = bam::bench::cufile_random_pages(cufile_path, bytes, io, seed, 2ull << 20, 16);
      rep.add_row("peers", {{"peer", "cuFile compat, 16 threads"}, {"io_bytes", io}, {"GB_per_s", f.pages_per_s * io / 1e9},
                            {"reads_per_s", f.pages_per_s}, {"mismatched_words", f.mismatched_words}, {"note", f.error}});
      if (io == 4096) cf4k = f.pages_per_s;
    }
  }

  // bam through the queues.
  double best4k = 0, best512 = 0;
  nlohmann::json best_cfg4k, best_cfg512;
  for (std::uint32_t io : {512u, 4096u}) {
    for (auto q : queue_counts) {
      for (auto d : depths) {
        for (auto w : worker_counts) {
         for (auto bps : blocks_per_sm) {
          const config cfg{q, d, w, io, bps};
          const result r = run_bam(cfg, ns512, cuda, seed, ops * 4 / bps);
          nlohmann::json row = {{"io_bytes", io}, {"queues", q}, {"depth", d}, {"workers", w},
                                {"gpu_threads", std::uint64_t(prop.multiProcessorCount) * bps * 256},
                                {"reads_per_s", r.reads_per_s}, {"GB_per_s", r.gbytes_per_s},
                                {"mean_latency_us", r.mean_latency_us}, {"completed", r.completed},
                                {"failed", r.failed}, {"mismatched_words", r.mismatched}};
          if (!r.first_failure.empty()) row["first_failure"] = r.first_failure;
          rep.add_row("bam", row);
          std::printf("io %u q %u d %u w %u blocks/SM %u: %.2f M reads/s, %.1f us, %llu mismatched, %llu failed\n", io, q,
                      d, w, bps, r.reads_per_s / 1e6, r.mean_latency_us, r.mismatched, r.failed);
          std::fflush(stdout);
          const bool clean = r.failed == 0 && r.mismatched == 0;
          if (clean && io == 4096 && r.reads_per_s > best4k) best4k = r.reads_per_s, best_cfg4k = row;
          if (clean && io == 512 && r.reads_per_s > best512) best512 = r.reads_per_s, best_cfg512 = row;
         }
        }
      }
    }
  }

  rep.headline() = {{"reads_4k_per_s", best4k},
                    {"reads_512_per_s", best512},
                    {"h2d_ceiling_4k_pages_per_s", h2d / 4096},
                    {"zero_copy_4k_per_s", zc4k},
                    {"zero_copy_512_per_s", zc512},
                    {"cufile_compat_4k_per_s", cf4k},
                    {"best_4k_config", best_cfg4k},
                    {"best_512_config", best_cfg512},
                    {"reads_4k_vs_h2d_ceiling", best4k / (h2d / 4096)}};
  rep.print();
  std::printf("wrote %s\n", rep.write(results).c_str());
  if (!cufile_path.empty()) std::remove(cufile_path.c_str());
  return 0;
}

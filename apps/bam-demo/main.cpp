// SPDX-License-Identifier: Apache-2.0
// bam-demo: the main job on the embedded default, in about a minute. GPU threads (or, without a
// GPU, CPU threads running the same code) read a 1 TiB bam::array and write a second one through
// a small page cache over the emulated NVMe controller; every value is verified, and what was
// written is checked in storage after flush(). Then the cache's statistics (per array, latency
// histogram), its profile step by step (JSON and PNG), and a BFS on a generated GAP graph read
// through the cache beside the same BFS from memory.
#include "apps/bam-demo/bfs_demo.hpp"
#include "apps/bam-demo/workload.hpp"
#include "apps/graph/app/report.hpp"

#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#if BAM_WITH_CUDA_RUNTIME
#include <bam/host/memory/cuda_memory.hpp>
#endif

#include <bam/page_cache.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace {

using namespace bam::demo;

struct settings {
  double tib = 1.0;
  std::size_t cache_mib = 0, written_mib = 0, page_bytes = 4096;
  std::uint32_t rounds = 4, reads = 0, emulator_threads = 0, queues = 0;
  std::uint64_t workers = 0;
  int graph_scale = -1;
  std::string out = "bam-demo-out";
  bool force_cpu = false;
};

/// Fills in the defaults that depend on where the demo runs: a GPU (sized for an H100's 132
/// SMs: a few seconds per part) or CPU threads (a few seconds on two cores).
void apply_defaults(settings& s, bool gpu, int sms) {
  if (s.cache_mib == 0) s.cache_mib = gpu ? 256 : 2;
  if (s.written_mib == 0) s.written_mib = gpu ? 1024 : 8;
  if (s.workers == 0) s.workers = gpu ? std::uint64_t(sms) * 1024 : 8;
  if (s.reads == 0) s.reads = gpu ? 32 : 1024;
  if (s.emulator_threads == 0) s.emulator_threads = gpu ? 8 : 1;
  if (s.queues == 0) s.queues = gpu ? 128 : 8;
  if (s.graph_scale < 0) s.graph_scale = gpu ? 20 : 12;
}

bool gpu_present([[maybe_unused]] bool force_cpu, [[maybe_unused]] int& sms) {
#if BAM_WITH_CUDA_RUNTIME
  if (force_cpu || !bam::host::cuda_device_present()) return false;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  return true;
#else
  return false;
#endif
}

/// Checks the written namespace itself (not the cache): after flush(), every element holds
/// what the last write step stored. Returns the number of elements that differ.
std::uint64_t check_storage(bam::host::ram_store& store, std::uint64_t elems, std::uint32_t round) {
  constexpr std::uint32_t chunk_blocks = 2048;
  std::vector<std::uint64_t> words(std::size_t{chunk_blocks} * store.block_size() / 8);
  const std::uint64_t words_per_block = store.block_size() / 8;
  std::uint64_t wrong = 0;
  for (std::uint64_t lba = 0; lba * words_per_block < elems; lba += chunk_blocks) {
    const auto n = std::uint32_t(std::min<std::uint64_t>(chunk_blocks, store.n_blocks() - lba));
    const std::span<std::byte> dst(reinterpret_cast<std::byte*>(words.data()), std::size_t{n} * store.block_size());
    store.readv(lba, n, std::span<const std::span<std::byte>>(&dst, 1));
    for (std::uint64_t k = 0; k < n * words_per_block && lba * words_per_block + k < elems; ++k)
      wrong += words[k] != written_value(round, lba * words_per_block + k);
  }
  return wrong;
}

/// The array part; returns true when every value was right. Its controller and cache are gone
/// when it returns, so that their threads leave the BFS part alone.
bool run_arrays(const settings& s, bool gpu) {
  namespace fs = std::filesystem;
  constexpr std::uint64_t seed = 2026;
  const std::uint64_t big_blocks = std::uint64_t(s.tib * double(1ull << 40)) / 512;
  const std::uint64_t written_elems = std::uint64_t(s.written_mib) << 17;  // 8-byte elements
  auto big_store = std::make_shared<bam::host::synthetic_store>(
      bam::host::synthetic_store::options{512, big_blocks, seed, 1});
  auto written_store = std::make_shared<bam::host::ram_store>(512, written_elems * 8 / 512);

  bam::host::emulated_system_options so;
  so.controllers = {{big_store, written_store}};  // nsid 1: 1 TiB synthetic, nsid 2: RAM
  so.workers_per_controller = s.emulator_threads;
  so.queue_pairs = s.queues;
  so.queue_depth = gpu ? 1024 : 64;
  so.use_gpu = gpu;
  bam::host::emulated_system sys(so);
  bam::page_cache_options co;
  co.page_bytes = s.page_bytes;
  co.cache_bytes = s.cache_mib << 20;
  bam::page_cache cache(sys.controllers(), sys.memory(), co);

  const demo_arrays arrays{cache.map<std::uint64_t>({.name = "terabyte (synthetic)", .nsid = 1, .start_lba = 0, .count = big_blocks * 512 / 8}),
                           cache.map<std::uint64_t>({.name = "written (RAM)", .nsid = 2, .start_lba = 0, .count = written_elems})};
  std::printf("%s: %llu workers; a %.2f TiB synthetic array and a %zu MiB RAM array through a %zu MiB cache "
              "(%u slots of %zu B), %u emulator threads, %u queue pairs\n",
              gpu ? "GPU" : "CPU", (unsigned long long)s.workers, double(big_blocks) * 512 / double(1ull << 40),
              s.written_mib, s.cache_mib, cache.n_slots(), s.page_bytes, s.emulator_threads, s.queues);

  bam::graph::app::trial_recorder profile("bam-demo", &cache, true);
  cache.reset_stats();
  std::uint32_t iteration = 0;
  std::uint64_t wrong = 0;
  auto step = [&](step_kind kind, const char* phase, std::uint32_t round) {
    const step_plan p{kind, round, s.workers, s.reads, co.cache_bytes / 2 / 8, seed};  // hot set: half the cache
    const auto t0 = std::chrono::steady_clock::now();
#if BAM_WITH_CUDA_RUNTIME
    const step_totals t = gpu ? run_gpu_step(arrays, p) : run_cpu_step(arrays, p);
#else
    const step_totals t = run_cpu_step(arrays, p);
#endif
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::uint64_t accesses = t.reads + t.writes;
    profile.step({iteration++, phase, s.workers, accesses, sec});  // also cache.check(): throws on device errors
    wrong += t.wrong;
    std::printf("  %-7s %10llu accesses in %7.3f s: %8.3f M/s, %llu wrong\n", phase, (unsigned long long)accesses,
                sec, double(accesses) / sec / 1e6, t.wrong);
  };
  std::puts("steps (reads: half from a hot set the cache holds, half from the whole terabyte):");
  for (std::uint32_t r = 0; r < s.rounds; ++r) step(step_kind::read, "read", r);
  step(step_kind::write, "write", s.rounds);
  {
    const auto t0 = std::chrono::steady_clock::now();
    cache.flush();
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    profile.step({iteration++, "flush", 0, 0, sec});
    std::printf("  %-7s dirty pages written back and NVMe Flush sent in %.3f s\n", "flush", sec);
  }
  step(step_kind::verify, "verify", s.rounds);
  const std::uint64_t stored_wrong = check_storage(*written_store, written_elems, s.rounds);
  std::printf("verified every value: %llu wrong through the cache, %llu wrong in the written namespace after flush\n",
              (unsigned long long)wrong, (unsigned long long)stored_wrong);

  std::printf("\ncache statistics:\n%s", cache.stats_table().c_str());
  const fs::path stats_path = fs::path(s.out) / "cache-stats.json";
  std::ofstream(stats_path) << cache.stats_json() << "\n";
  nlohmann::json doc = {{"command", "bam-demo"},
                        {"graph", "1 TiB synthetic + RAM namespace"},
                        {"backend", "emulated"},
                        {"cache_bytes", co.cache_bytes},
                        {"trials", {{{"profile", profile.take_profile()}}}}};
  const fs::path json_path = fs::path(s.out) / "array-profile.json", png_path = fs::path(s.out) / "array-profile.png";
  std::ofstream(json_path) << doc.dump(2) << "\n";
  bam::graph::app::plot_profile(json_path, png_path);
  std::printf("wrote %s, %s%s\n", stats_path.c_str(), json_path.c_str(),
              fs::exists(png_path) ? (", " + png_path.string()).c_str() : "");
  return wrong == 0 && stored_wrong == 0;
}

int run(const settings& s, bool gpu) {
  std::filesystem::create_directories(s.out);
  if (!run_arrays(s, gpu)) return 1;
  if (s.graph_scale > 0) {
    std::puts("");
    bfs_demo_options b;
    b.scale = s.graph_scale;
    b.gpu = gpu;
    b.page_bytes = s.page_bytes;
    b.out = s.out;
    if (!run_bfs_demo(b)) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bam-demo: GPU (or CPU) threads read and write terabyte-scale bam::arrays through a small page "
               "cache over the emulated NVMe controller, verify every value, and report the cache; then BFS "
               "through the cache beside BFS from memory"};
  settings s;
  app.add_option("--namespace-tib", s.tib, "size of the synthetic array's namespace in TiB")
      ->check(CLI::Range(0.001, 1024.0))->capture_default_str();
  app.add_option("--cache-mib", s.cache_mib, "page cache size in MiB (default: 256 on a GPU, 2 on a CPU)")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--page-bytes", s.page_bytes, "cache page size: a power of two, 512 to 2 MiB")
      ->check([](const std::string& v) {
        const long long b = std::stoll(v);
        return b >= 512 && b <= (2 << 20) && (b & (b - 1)) == 0 ? std::string() : "must be a power of two in 512..2097152";
      })->capture_default_str();
  app.add_option("--written-mib", s.written_mib, "size of the written RAM array in MiB (default: 1024 GPU, 8 CPU)")
      ->check(CLI::Range(1, 1 << 16));
  app.add_option("--workers", s.workers, "threads (default: 1024 per SM on a GPU, 8 on a CPU)")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--reads", s.reads, "random reads per worker per round (default: 32 GPU, 1024 CPU)")
      ->check(CLI::Range(1, 1 << 24));
  app.add_option("--rounds", s.rounds, "read rounds before the write")->check(CLI::Range(0, 1000))->capture_default_str();
  app.add_option("--emulator-threads", s.emulator_threads, "emulated controller threads (default: 8 GPU, 1 CPU)")
      ->check(CLI::Range(1, 256));
  app.add_option("--queues", s.queues, "NVMe I/O queue pairs (default: 128 GPU, 8 CPU)")->check(CLI::Range(1, 1024));
  app.add_option("--graph-scale", s.graph_scale, "BFS on a GAP kron graph of 2^scale vertices (default: 20 GPU, 12 CPU; 0: "
                 "no BFS)")->check(CLI::Range(0, 26));
  app.add_option("--out", s.out, "folder for the statistics, profiles, PNGs and the graph file")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->capture_default_str();
  app.add_flag("--cpu", s.force_cpu, "use CPU threads even when a GPU is present");
  CLI11_PARSE(app, argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // keep our lines in order with the plot script's

  try {
    int sms = 0;
    const bool gpu = gpu_present(s.force_cpu, sms);
    if (!gpu)
      std::printf("No GPU in use%s: CPU threads run the same portable code that GPU threads run.\n",
                  s.force_cpu ? " (--cpu)" : " (none found, or a CPU-only build)");
    apply_defaults(s, gpu, sms);
    return run(s, gpu);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bam-demo: %s\n", e.what());
    return 1;
  }
}

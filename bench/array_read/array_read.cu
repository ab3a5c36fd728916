// SPDX-License-Identifier: Apache-2.0
// bench/array_read: reads through bam::array on the GPU beside the same kernels over plain VRAM,
// zero-copy pinned host memory (EMOGI's approach) and Unified Memory, on the same data:
//  1. all hits (the data fits the cache): random 8-byte reads and sequential reads;
//  2. cache = 1/8 of the data: uniform random and Zipf-skewed reads, several page sizes;
//  3. the raw queue rate of the same emulated controller (4 KiB reads, no cache), so the miss
//     path can be set against it.
// Every value read is verified against the synthetic content the data was filled with.
#include "bench/common/fill.hpp"
#include "bench/common/queue_reads.cuh"
#include "bench/common/eager_loading.hpp"
#include "bench/common/report.hpp"

#include <bam/detail/cuda_try.hpp>
#include <bam/detail/gpu_seconds.hpp>
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/memory/cuda_buffer.hpp>
#include <bam/page_cache.hpp>
#include <bam/synthetic.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

namespace {

constexpr std::uint64_t seed = 0xa77a1;

struct counts {
  unsigned long long reads, wrong;
};

/// A plain pointer view (VRAM, pinned host memory, or managed memory).
struct plain_view {
  const std::uint64_t* p;
  std::uint64_t n;
  __device__ std::uint64_t operator[](std::uint64_t i) const { return p[i]; }
  __device__ std::uint64_t size() const { return n; }
};

__device__ std::uint64_t mix(std::uint64_t x) { return bam::synthetic_word(0x5a5a, x); }

/// Each thread reads `per_thread` elements: uniformly random, or taken from `indices`.
template <class View>
__global__ void random_reads(View v, const std::uint64_t* indices, std::uint64_t n_indices, unsigned per_thread,
                             std::uint64_t salt, counts* c) {
  const std::uint64_t tid = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  unsigned long long wrong = 0;
  for (unsigned k = 0; k < per_thread; ++k) {
    const std::uint64_t r = tid * per_thread + k;
    const std::uint64_t i = indices ? indices[(r + salt) % n_indices] : mix(r + salt) % v.size();
    wrong += v[i] != bam::synthetic_word(seed, i);
  }
  if (wrong) atomicAdd(&c->wrong, wrong);
  if (threadIdx.x == 0) atomicAdd(&c->reads, (unsigned long long)per_thread * blockDim.x);
}

/// Grid-stride sequential reads of the whole view: consecutive lanes read consecutive elements.
template <class View>
__global__ void sequential_reads(View v, counts* c) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  unsigned long long wrong = 0, reads = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < v.size(); i += stride) {
    wrong += v[i] != bam::synthetic_word(seed, i);
    ++reads;
  }
  if (wrong) atomicAdd(&c->wrong, wrong);
  atomicAdd(&c->reads, reads);
}

/// Page-wise sequential reads: warp w reads pages w, w + warps, ... element by element, with
/// one page pinned for the whole page (bam::array::pin_page) or plain loads (other views).
template <class View>
__global__ void sequential_pages(View v, std::uint64_t per_page, counts* c) {
  const std::uint64_t warps = std::uint64_t(gridDim.x) * blockDim.x / 32;
  const unsigned lane = threadIdx.x % 32;
  unsigned long long wrong = 0, reads = 0;
  for (std::uint64_t page = (blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x) / 32; page * per_page < v.size();
       page += warps) {
    if constexpr (requires { v.elems_per_page(); }) {
      bam::warp_group g;
      const auto p = v.pin_page(g, page * per_page);
      if (p.ok()) {
        for (std::uint64_t j = lane; j < p.size(); j += 32) wrong += p[j] != bam::synthetic_word(seed, p.first() + j);
        reads += (p.size() + 31 - lane) / 32;
      }
    } else {
      for (std::uint64_t j = lane; j < per_page; j += 32) wrong += v[page * per_page + j] != bam::synthetic_word(seed, page * per_page + j);
      reads += per_page / 32;
    }
  }
  if (wrong) atomicAdd(&c->wrong, wrong);
  atomicAdd(&c->reads, reads);
}

/// First touch: thread r reads one element of page perm(r), every page distinct (a bijection of
/// the page numbers when n_pages is a power of two), so each read is a cold miss.
template <class View>
__global__ void first_touch(View v, std::uint64_t per_page, std::uint64_t n_pages, std::uint64_t count, counts* c) {
  const std::uint64_t r = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x;
  if (r >= count) return;
  const std::uint64_t page = (r * 0x9E3779B97F4A7C15ull) % n_pages;
  const std::uint64_t i = page * per_page + (r * 7) % per_page;
  const bool wrong = v[i] != bam::synthetic_word(seed, i);
  if (wrong) atomicAdd(&c->wrong, 1ull);
  atomicAdd(&c->reads, 1ull);
}

struct timing {
  double seconds = 0;
  counts c{};
};

template <class Launch>
timing timed(Launch launch) {
  bam::host::cuda_buffer<counts> c(1);
  c.zero();
  timing t;
  t.seconds = bam::detail::gpu_seconds([&] { launch(c.data()); });
  c.download({&t.c, 1});
  return t;
}

/// Element indices whose 4 KiB units follow a Zipf law (exponent `s`) over a random permutation
/// of the units; the element within a unit is uniform.
std::vector<std::uint64_t> zipf_indices(std::uint64_t n_elems, std::size_t count, double s) {
  const std::uint64_t per_unit = 4096 / 8, units = n_elems / per_unit;
  std::vector<double> cdf(units);
  double sum = 0;
  for (std::uint64_t r = 0; r < units; ++r) cdf[r] = sum += 1.0 / std::pow(double(r + 1), s);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<std::uint64_t> out(count);
  for (auto& x : out) {
    const std::uint64_t rank = std::uint64_t(std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
    const std::uint64_t unit = (rank * 0x9E3779B97F4A7C15ull) % units;  // odd multiplier: a permutation when units is a power of two
    out[&x - out.data()] = unit * per_unit + rng() % per_unit;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bam::bench::load_kernels_eagerly();
  CLI::App app{"bam array_read: bam::array vs VRAM, zero-copy and Unified Memory"};
  std::string results = "bench/results";
  std::uint64_t data_gib = 16;
  unsigned per_thread = 32, workers = 14, queues = 0;
  std::vector<std::uint32_t> page_sizes{4096, 16384, 65536};
  app.add_option("--results", results, "directory for the JSON result");
  app.add_option("--data-gib", data_gib, "data size for the 1/8-cache runs")->check(CLI::Range(1, 64));
  app.add_option("--per-thread", per_thread, "reads per thread");
  app.add_option("--workers", workers, "emulator threads");
  app.add_option("--queues", queues, "I/O queue pairs (0: one per SM)");
  app.add_option("--page-sizes", page_sizes, "page sizes for the 1/8-cache runs");
  CLI11_PARSE(app, argc, argv);

  cudaDeviceProp prop{};
  BAM_CUDA_TRY(cudaGetDeviceProperties(&prop, 0));
  bam::bench::report rep("array_read", argc, argv);
  rep.set_device(prop.name, {{"sms", prop.multiProcessorCount}, {"vram_gib", prop.totalGlobalMem >> 30}});
  const unsigned grid = unsigned(prop.multiProcessorCount) * 8, block = 256;
  const std::uint64_t threads = std::uint64_t(grid) * block;

  const std::uint64_t bytes = data_gib << 30, n = bytes / 8;
  std::printf("filling %llu GiB of data...\n", (unsigned long long)data_gib);
  std::fflush(stdout);
  auto ns = std::make_shared<bam::host::ram_store>(512, bytes / 512);
  const bam::host::cuda_buffer<std::uint64_t> pinned(n, bam::host::cuda_allocation::pinned);
  bam::bench::fill_synthetic(*ns, seed, reinterpret_cast<std::byte*>(pinned.data()));
  bam::host::cuda_buffer<std::uint64_t> vram(n);
  vram.upload({pinned.data(), n});
  const auto zipf = zipf_indices(n, std::size_t(threads) * per_thread, 0.99);
  bam::host::cuda_buffer<std::uint64_t> zipf_dev(zipf.size());
  zipf_dev.upload(zipf);

  auto row = [&](const std::string& table, const std::string& system, const std::string& pattern,
                 std::uint32_t page, const timing& t, nlohmann::json extra = nlohmann::json::object()) {
    nlohmann::json r = {{"system", system}, {"pattern", pattern}, {"page_bytes", page},
                        {"reads_per_s", double(t.c.reads) / t.seconds}, {"reads", t.c.reads},
                        {"wrong", t.c.wrong}, {"seconds", t.seconds}};
    r.update(extra);
    rep.add_row(table, r);
    std::printf("%-10s %-14s %-10s page %6u: %8.3f M reads/s (%llu wrong)\n", table.c_str(), system.c_str(),
                pattern.c_str(), page, double(t.c.reads) / t.seconds / 1e6, t.c.wrong);
    std::fflush(stdout);
    return double(t.c.reads) / t.seconds;
  };

  // Peers over the whole data.
  const plain_view vram_view{vram.data(), n}, pinned_view{pinned.data(), n};
  const double vram_random = row("peers", "vram", "uniform", 0,
                                 timed([&](counts* c) { random_reads<<<grid, block>>>(vram_view, nullptr, 1, per_thread, 1, c); }));
  const double vram_seq = row("peers", "vram", "sequential", 0,
                              timed([&](counts* c) { sequential_reads<<<grid, block>>>(vram_view, c); }));
  row("peers", "vram", "zipf", 0, timed([&](counts* c) {
        random_reads<<<grid, block>>>(vram_view, zipf_dev.data(), zipf.size(), per_thread, 0, c);
      }));
  row("peers", "zero-copy", "uniform", 0,
      timed([&](counts* c) { random_reads<<<grid, block>>>(pinned_view, nullptr, 1, per_thread, 2, c); }));
  row("peers", "zero-copy", "zipf", 0, timed([&](counts* c) {
        random_reads<<<grid, block>>>(pinned_view, zipf_dev.data(), zipf.size(), per_thread, 0, c);
      }));
  // Unified Memory, first touch from the GPU: pages start on the host (never more managed memory
  // than the GPU has free), and every read touches a page no read touched before.
  const std::uint64_t touches = std::uint64_t(1) << 20;
  double uvm_first_touch = 0;
  {
    std::size_t free_b = 0, total_b = 0;
    BAM_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    const std::uint64_t uvm_bytes = std::min<std::uint64_t>(bytes, std::uint64_t(1) << (63 - __builtin_clzll(free_b / 2)));
    const bam::host::cuda_buffer<std::uint64_t> managed(uvm_bytes / 8, bam::host::cuda_allocation::managed);
    std::memcpy(managed.data(), pinned.data(), uvm_bytes);
    const plain_view mv{managed.data(), uvm_bytes / 8};
    uvm_first_touch = row("first-touch", "uvm", "distinct pages", 4096, timed([&](counts* c) {
                            first_touch<<<unsigned((touches + 255) / 256), 256>>>(mv, 512, uvm_bytes / 4096, touches, c);
                          }));
  }

  // bam over the emulated controller.
  bam::host::emulated_system_options so;
  so.controllers = {{ns}};
  so.workers_per_controller = workers;
  so.queue_pairs = queues ? queues : unsigned(prop.multiProcessorCount);
  so.queue_depth = 256;
  bam::host::emulated_system sys(so);

  // Raw queue rate, 4 KiB, same controller: bench/queue_read's kernel (frames per command id,
  // every word verified), one block of 256 per SM, its best shape.
  double raw_queue = 0;
  {
    const auto& qs = sys.driver(0).io_queues();
    auto frames = sys.memory().allocate(qs.size() * so.queue_depth * 4096, bam::memory_kind::host, 4096);
    bam::host::cuda_buffer<bam::queues::queue_pair_ref<>> pairs(qs.size());
    pairs.upload(qs);
    bam::host::cuda_buffer<bam::bench::device_counters> dc(1);
    dc.zero();
    timing t = timed([&](counts*) {
      bam::bench::queue_read_kernel<<<prop.multiProcessorCount, 256>>>(
          pairs.data(), std::uint32_t(qs.size()), frames.device(), frames.bus_at(0), 4096, 512, bytes / 4096, seed, 64,
          30'000'000'000ull, dc.data());
    });
    bam::bench::device_counters h{};
    dc.download({&h, 1});
    t.c = counts{h.completed, h.mismatched_words + h.failed};
    raw_queue = row("queues", "bam queues (no cache)", "uniform", 4096, t);
  }

  // 1. All hits: 1/8 of the data fits a cache of the same size; warm it, then read. Sequential
  // scans pin a page per warp, so their cost per element falls with the page size: both 4 KiB
  // and 64 KiB pages are measured.
  double hit_random = 0, hit_random_4k_rate = 0, hit_seq = 0;
  std::uint32_t hit_seq_page = 0;
  nlohmann::json hit_ratios = nlohmann::json::object();
  const plain_view vram_part{vram.data(), n / 8};
  const double vram_part_random = row("hits", "vram", "uniform", 0, timed([&](counts* c) {
                                        random_reads<<<grid, block>>>(vram_part, nullptr, 1, per_thread, 4, c);
                                      }));
  row("hits", "vram", "sequential (a[i])", 0, timed([&](counts* c) { sequential_reads<<<grid, block>>>(vram_part, c); }));
  for (const std::uint32_t page : {4096u, 65536u}) {
    bam::page_cache_options o;
    o.page_bytes = page;
    o.cache_bytes = bytes / 8 + (64u << 20);
    o.max_frame_bytes = std::size_t(8) << 30;
    bam::page_cache cache(sys.controllers(), sys.memory(), o);
    const auto a = cache.map<std::uint64_t>({.name = "hits", .nsid = 1, .start_lba = 0, .count = n / 8});
    timed([&](counts* c) { sequential_reads<<<grid, block>>>(a, c); });  // warm: fills every page
    cache.check();
    cache.reset_stats();
    const double random = row("hits", "bam", "uniform", page, timed([&](counts* c) {
                                random_reads<<<grid, block>>>(a, nullptr, 1, per_thread, 4, c);
                              }));
    row("hits", "bam", "sequential (a[i])", page, timed([&](counts* c) { sequential_reads<<<grid, block>>>(a, c); }));
    const std::uint64_t per_page = page / 8;
    const double seq = row("hits", "bam", "sequential (pinned pages)", page,
                           timed([&](counts* c) { sequential_pages<<<grid, block>>>(a, per_page, c); }));
    const double vram_seq_pages = row("hits", "vram", "sequential (pinned pages)", page, timed([&](counts* c) {
                                        sequential_pages<<<grid, block>>>(vram_part, per_page, c);
                                      }));
    const auto st = cache.total_stats();
    rep.notes()["all_hit_misses_after_warmup_" + std::to_string(page)] = st.counts.misses;
    hit_ratios["random_" + std::to_string(page)] = random / vram_part_random;
    hit_ratios["seq_pinned_pages_" + std::to_string(page)] = seq / vram_seq_pages;
    if (page == 4096) hit_random_4k_rate = random, hit_random = random / vram_part_random;
    if (seq / vram_seq_pages > hit_seq) hit_seq = seq / vram_seq_pages, hit_seq_page = page;
    cache.check();
  }

  // The cost of counting: the same all-hit random reads with statistics switched off.
  double stats_cost = 0;
  {
    bam::page_cache_options o;
    o.cache_bytes = bytes / 8 + (64u << 20);
    o.statistics = false;
    bam::page_cache cache(sys.controllers(), sys.memory(), o);
    const auto a = cache.map<std::uint64_t>({.name = "hits", .nsid = 1, .start_lba = 0, .count = n / 8});
    timed([&](counts* c) { sequential_reads<<<grid, block>>>(a, c); });  // warm
    cache.check();
    const double off = row("hits", "bam (statistics off)", "uniform", 4096, timed([&](counts* c) {
                             random_reads<<<grid, block>>>(a, nullptr, 1, per_thread, 4, c);
                           }));
    stats_cost = off > 0 ? 1.0 - hit_random_4k_rate / off : 0;
    cache.check();
  }

  // First touch through bam: a fresh cache, every read a cold miss on a distinct page.
  double bam_first_touch = 0;
  {
    bam::page_cache_options o;
    o.cache_bytes = bytes / 8;
    bam::page_cache cache(sys.controllers(), sys.memory(), o);
    const auto a = cache.map<std::uint64_t>({.name = "cold", .nsid = 1, .start_lba = 0, .count = n});
    bam_first_touch = row("first-touch", "bam", "distinct pages", 4096, timed([&](counts* c) {
                            first_touch<<<unsigned((touches + 255) / 256), 256>>>(a, 512, n / 512, touches, c);
                          }));
    cache.check();
  }

  // 2. Cache = 1/8 of the data.
  double miss_4k = 0, bam_uniform_4k = 0;
  for (const std::uint32_t page : page_sizes) {
    bam::page_cache_options o;
    o.page_bytes = page;
    o.cache_bytes = bytes / 8;
    o.max_frame_bytes = std::size_t(8) << 30;
    bam::page_cache cache(sys.controllers(), sys.memory(), o);
    const auto a = cache.map<std::uint64_t>({.name = "data", .nsid = 1, .start_lba = 0, .count = n});
    // Every lane may pin a page at once: keep the threads to half the slots (large pages mean
    // few slots), or leaders would wait for free slots instead of reading.
    const unsigned slots = unsigned(o.cache_bytes / page);
    const unsigned eighth_grid = std::max(1u, std::min(grid, slots / 2 / block));
    for (const char* pattern : {"uniform", "zipf"}) {
      cache.reset_stats();
      const bool uniform = pattern[0] == 'u';
      const timing t = timed([&](counts* c) {
        random_reads<<<eighth_grid, block>>>(a, uniform ? nullptr : zipf_dev.data(), zipf.size(), per_thread, 5, c);
      });
      const auto s = cache.total_stats();
      const double rate = row("eighth", "bam", pattern, page, t,
                              {{"hit_rate", s.hit_rate()}, {"misses_per_s", double(s.counts.misses) / t.seconds},
                               {"GB_read_per_s", double(s.counts.bytes_read) / t.seconds / 1e9},
                               {"gpu_threads", std::uint64_t(eighth_grid) * block}});
      if (page == 4096 && uniform) {
        miss_4k = double(s.counts.misses) / t.seconds;
        bam_uniform_4k = rate;
      }
      cache.check();
    }
    if (page == page_sizes.front()) std::printf("%s", cache.stats_table().c_str());
  }

  rep.headline() = {{"hit_random_vs_vram", hit_random},
                    {"hit_seq_vs_vram", hit_seq},
                    {"hit_seq_page_bytes", hit_seq_page},
                    {"statistics_cost_on_hits", stats_cost},
                    {"hit_ratios_by_page", hit_ratios},
                    {"miss_vs_queue", raw_queue > 0 ? miss_4k / raw_queue : 0},
                    {"vs_uvm_first_touch", uvm_first_touch > 0 ? bam_first_touch / uvm_first_touch : 0},
                    {"bam_first_touch_pages_per_s", bam_first_touch},
                    {"uvm_first_touch_pages_per_s", uvm_first_touch},
                    {"bam_uniform_eighth_4k_reads_per_s", bam_uniform_4k},
                    {"vram_random_reads_per_s", vram_random},
                    {"vram_sequential_reads_per_s", vram_seq},
                    {"raw_queue_4k_per_s", raw_queue},
                    {"bam_miss_4k_pages_per_s", miss_4k}};
  rep.print();
  std::printf("wrote %s\n", rep.write(results).c_str());
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
// bench/soak: minutes of mixed random reads, stores and fetch_adds through bam::array-style
// accesses (uniform, Zipf, and a hot set that fits the cache), over caches of 1/256 to 1/2 of
// the data, pages of 512 B to 64 KiB, grids of one warp to full occupancy, with and without
// injected faults (drops, delays, media errors at 1e-4 to 1e-2). Every value is checked against
// a model; after each run the cache is flushed and all of storage is compared with the model.
// GPU warps run the phases when a GPU is present (soak.cu), host threads otherwise (the same
// portable lane_work). Writes bench/results/soak-<device>-<yyyymmdd>.json.
#include "bench/common/eager_loading.hpp"
#include "bench/common/report.hpp"
#include "bench/soak/lanes.hpp"
#include "bench/soak/model.hpp"
#include "bench/soak/run.hpp"
#include "bench/soak/sweep.hpp"

#include <bam/error.hpp>
#if BAM_WITH_CUDA_RUNTIME
#include <bam/host/memory/cuda_memory.hpp>
#endif

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace bam::bench::soak;

constexpr double verified_target = 1e9;
constexpr double recovery_target_ms = 1000;
constexpr std::uint32_t slots_target = 256;

std::string shorten(std::string s, std::size_t n = 160) {
  if (s.size() > n) s = s.substr(0, n - 3) + "...";
  return s;
}

const char* kind_name(unsigned k) {
  switch (wrong_kind(k)) {
    case wrong_kind::read: return "read";
    case wrong_kind::before_store: return "value before a store";
    case wrong_kind::add_old: return "fetch_add old value";
    default: return "?";
  }
}

nlohmann::json details(const run_result& r) {
  nlohmann::json failed = nlohmann::json::object();
  for (unsigned s = 0; s < status_count; ++s)
    if (r.counts.failed[s]) failed[bam::to_string(bam::status(s))] = r.counts.failed[s];
  nlohmann::json recoveries = nlohmann::json::array();
  for (const auto& e : r.recoveries)
    recoveries.push_back({{"controller", e.controller}, {"qid", e.qid}, {"lost_cid", e.lost_cid},
                          {"recovery_ms", e.recovery_ms}, {"controller_reset", e.controller_reset}});
  nlohmann::json d = {{"config", r.config.label()},
                      {"sweep", r.config.sweep},
                      {"page_bytes", r.config.page_bytes},
                      {"cache_divisor", r.config.cache_divisor},
                      {"cache_slots", r.cache_slots},
                      {"grid", to_string(r.config.grid)},
                      {"lanes", r.lanes},
                      {"pattern", to_string(r.config.pat)},
                      {"fault", to_string(r.config.fault)},
                      {"fault_rate", r.config.fault_rate},
                      {"phases", r.phases},
                      {"reads", r.counts.reads},
                      {"stores", r.counts.stores},
                      {"adds", r.counts.adds},
                      {"skipped_store_draws", r.counts.skipped},
                      {"failed_by_status", failed},
                      {"wrong_in_phases", r.counts.wrong},
                      {"commands", r.commands},
                      {"dropped", r.dropped},
                      {"nvme_errors", r.nvme_errors},
                      {"recoveries", recoveries},
                      {"check_errors", r.check_error_count},
                      {"check_messages", r.check_errors},
                      {"flush_error", r.flush_error},
                      {"run_error", r.run_error},
                      {"backing_elements", r.backing.elements},
                      {"backing_mismatches", r.backing.mismatches()},
                      {"backing_first_mismatch", r.backing.first},
                      {"unflushed_elements", r.unflushed()},
                      {"phase_seconds", r.phase_seconds},
                      {"seconds", r.seconds}};
  if (r.counts.first_wrong_claimed)
    d["first_wrong"] = {{"kind", kind_name(r.counts.first_wrong_kind)}, {"index", r.counts.first_wrong_index},
                        {"expected", r.counts.first_wrong_expected}, {"got", r.counts.first_wrong_got}};
  return d;
}

void print_progress(std::size_t k, std::size_t n, const run_result& r) {
  const unsigned long long accesses = r.counts.verified() + r.counts.failures();
  std::printf("[%zu/%zu] %-6s %-34s %6u slots %7llu lanes: %.3g accesses (%.3g/s), hit %.3f, wrong %llu, "
              "failures %llu/%llu (expected/unexpected), dropped %llu, recoveries %zu (max %.1f ms), %.1f s\n",
              k, n, r.config.sweep.c_str(), r.config.label().c_str(), r.cache_slots, (unsigned long long)r.lanes,
              double(accesses), r.phase_seconds > 0 ? double(accesses) / r.phase_seconds : 0.0, r.hit_rate,
              (unsigned long long)r.wrong_values(), (unsigned long long)r.expected_failures,
              (unsigned long long)r.unexpected_failures, (unsigned long long)r.dropped, r.recoveries.size(),
              r.max_recovery_ms(), r.seconds);
  if (r.counts.first_wrong_claimed)
    std::printf("    first wrong %s: element %llu expected 0x%016llx got 0x%016llx\n",
                kind_name(r.counts.first_wrong_kind), r.counts.first_wrong_index, r.counts.first_wrong_expected,
                r.counts.first_wrong_got);
  if (!r.backing.first.empty())
    std::printf("    storage after the run: %llu mismatches%s; first: %s\n",
                (unsigned long long)r.backing.mismatches(), r.completed() ? "" : " (the run did not complete)",
                r.backing.first.c_str());
  for (const auto& m : r.check_errors) std::printf("    check: %s\n", shorten(m).c_str());
  if (!r.flush_error.empty()) std::printf("    flush: %s\n", shorten(r.flush_error).c_str());
  if (!r.run_error.empty()) std::printf("    run: %s\n", shorten(r.run_error).c_str());
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  bam::bench::load_kernels_eagerly();
  CLI::App app{"bam soak: mixed reads, stores and fetch_adds verified against a model, with and without faults"};
  double seconds = 0;
  bool quick = false, force_cpu = false;
  std::uint64_t data_mib = 0;
  std::string results = "bench/results";
  std::vector<std::string> sweeps = sweep_names;
  run_options ro;
  ro.workers = 0;
  ro.queue_pairs = 0;
  ro.queue_depth = 0;
  unsigned timeout_ms = 2000, fault_timeout_ms = 100;
  app.add_option("--seconds", seconds, "time budget of the whole soak (default 240 on a GPU, 60 on the CPU)")
      ->check(CLI::Range(1.0, 36000.0));
  app.add_flag("--quick", quick, "a few runs of each sweep (the CPU test)");
  app.add_flag("--cpu", force_cpu, "run the lanes on host threads even when a GPU is present");
  app.add_option("--data-mib", data_mib, "data size in MiB, a power of two (default 1024 on a GPU, 32 on the CPU)")
      ->check([](const std::string& s) {
        const unsigned long long v = std::stoull(s);
        return v >= 1 && v <= (1ull << 16) && (v & (v - 1)) == 0 ? std::string() : "must be a power of two in 1..65536";
      });
  app.add_option("--sweeps", sweeps, "sweeps to run: hits, cache, grid, faults")
      ->check(CLI::IsMember({"hits", "cache", "grid", "faults"}))
      ->delimiter(',');
  app.add_option("--results", results, "directory for the JSON result");
  app.add_option("--workers", ro.workers, "emulator threads (default 14 on a GPU, 2 on the CPU)")->check(CLI::Range(1, 256));
  app.add_option("--queues", ro.queue_pairs, "I/O queue pairs (default one per SM on a GPU, 4 on the CPU)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--depth", ro.queue_depth, "entries per queue (default 256 on a GPU, 32 on the CPU)")
      ->check(CLI::Range(33, 4096));
  app.add_option("--timeout-ms", timeout_ms, "page_cache timeout of fault-free runs")->check(CLI::Range(10, 600'000));
  app.add_option("--fault-timeout-ms", fault_timeout_ms, "page_cache timeout of runs with faults")
      ->check(CLI::Range(10, 600'000));
  app.add_option("--phase-accesses", ro.phase_accesses, "draws a phase aims at (draws per lane = this / lanes, 16..2^20; phases also end by time)")
      ->check(CLI::Range(1ull, 1ull << 40));
  app.add_option("--seed", ro.seed, "seed of the data and of every draw");
  CLI11_PARSE(app, argc, argv);

  try {
    bool gpu = false;
#if BAM_WITH_CUDA_RUNTIME
    gpu = !force_cpu && bam::host::cuda_device_present();
#endif
    std::unique_ptr<lanes> l;
#if BAM_WITH_CUDA_RUNTIME
    if (gpu) l = make_gpu_lanes();
#endif
    if (!gpu) {
      l = make_cpu_lanes();
      std::printf("No GPU in use%s: host threads run the same portable lane code GPU warps run.\n",
                  force_cpu ? " (--cpu)" : " (none found, or a CPU-only build)");
    }
    const unsigned sms = gpu ? unsigned(l->details().value("sms", 1)) : 0;
    if (seconds == 0) seconds = gpu ? 240 : 60;
    if (data_mib == 0) data_mib = gpu ? 1024 : 32;
    if (ro.workers == 0) ro.workers = gpu ? 14 : 2;
    if (ro.queue_pairs == 0) ro.queue_pairs = gpu ? sms : 4;
    if (ro.queue_depth == 0) ro.queue_depth = gpu ? 256 : 64;
    ro.timeout = std::chrono::milliseconds(timeout_ms);
    ro.fault_timeout = std::chrono::milliseconds(fault_timeout_ms);

    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    const auto runs = make_sweep(sweeps, quick);
    layout shape;
    shape.n_data = (data_mib << 20) / 8;
    shape.n_counters = shape.n_data / 16;
    std::printf("soak: %llu MiB of data + %llu MiB of counters, %zu runs in %.0f s on %s (%llu lanes at full)\n",
                (unsigned long long)data_mib, (unsigned long long)(shape.n_counters * 8 >> 20), runs.size(), seconds,
                l->name().c_str(), (unsigned long long)l->lanes_of(grid_kind::full));
    std::fflush(stdout);
    model m(*l, shape, ro.seed);
    runner rn(*l, m, ro);

    bam::bench::report rep("soak", argc, argv);
    rep.set_device(l->name(), l->details());
    rep.notes()["runs"] = nlohmann::json::array();
    double weight_left = 0;
    for (const auto& c : runs) weight_left += c.weight;
    const double weight_total = weight_left;
    unsigned long long verified = 0, wrong = 0, unexpected = 0, expected = 0, dropped = 0, recoveries = 0;
    unsigned long long accesses = 0, backing = 0, unflushed = 0;
    double phase_seconds = 0, max_per_lost = 0, max_recovery = 0;
    std::uint32_t min_slots = std::numeric_limits<std::uint32_t>::max();
    for (std::size_t k = 0; k < runs.size(); ++k) {
      // The budget left, shared by weight; a run that overran (waits that timed out) cannot
      // squeeze the later ones below half their planned share.
      const double share = std::max(std::max(0.0, seconds - elapsed()) * runs[k].weight / weight_left,
                                    0.5 * seconds * runs[k].weight / weight_total);
      weight_left -= runs[k].weight;
      const run_result r = rn.run(runs[k], share);
      print_progress(k + 1, runs.size(), r);
      const unsigned long long n = r.counts.verified() + r.counts.failures();
      verified += r.counts.verified();
      accesses += n;
      wrong += r.wrong_values();
      unexpected += r.unexpected_failures;
      expected += r.expected_failures;
      dropped += r.dropped;
      recoveries += r.recoveries.size();
      backing += r.backing.elements;
      unflushed += r.unflushed();
      phase_seconds += r.phase_seconds;
      max_recovery = std::max(max_recovery, r.max_recovery_ms());
      if (r.config.fault == fault_kind::drop && r.dropped > 0)
        max_per_lost = std::max(max_per_lost, double(r.counts.failures()) / double(r.dropped));
      if (r.config.fault == fault_kind::none && r.cache_slots > 0) min_slots = std::min(min_slots, r.cache_slots);
      rep.add_row(r.config.sweep, {{"config", r.config.label()},
                                   {"slots", r.cache_slots},
                                   {"lanes", r.lanes},
                                   {"phases", r.phases},
                                   {"accesses", n},
                                   {"verified", r.counts.verified()},
                                   {"wrong", r.wrong_values()},
                                   {"fail_expected", r.expected_failures},
                                   {"fail_unexpected", r.unexpected_failures},
                                   {"dropped", r.dropped},
                                   {"recoveries", r.recoveries.size()},
                                   {"max_recovery_ms", r.max_recovery_ms()},
                                   {"accesses_per_s", r.phase_seconds > 0 ? double(n) / r.phase_seconds : 0.0},
                                   {"hit_rate", r.hit_rate}});
      rep.notes()["runs"].push_back(details(r));
    }
    if (min_slots == std::numeric_limits<std::uint32_t>::max()) min_slots = 0;

    const bool passed = wrong == 0 && unexpected == 0;
    rep.headline() = {{"verified_accesses", verified},
                      {"wrong_values", wrong},
                      {"unexpected_failures", unexpected},
                      {"max_failed_accesses_per_lost_command", max_per_lost},
                      {"max_recovery_ms", max_recovery},
                      {"min_cache_slots", min_slots},
                      {"expected_failures", expected},
                      {"dropped_commands", dropped},
                      {"recoveries", recoveries},
                      {"accesses", accesses},
                      {"accesses_per_s", phase_seconds > 0 ? double(accesses) / phase_seconds : 0.0},
                      {"storage_elements_verified", backing},
                      {"unflushed_elements", unflushed},
                      {"runs", runs.size()},
                      {"seconds", elapsed()},
                      {"passed", passed},
                      {"targets_met",
                       {{"verified_accesses", double(verified) >= verified_target},
                        {"max_recovery_ms", max_recovery <= recovery_target_ms},
                        {"min_cache_slots", min_slots > 0 && min_slots <= slots_target}}}};
    rep.print();
    std::printf("wrote %s\n", rep.write(results).c_str());
    if (!passed)
      std::fprintf(stderr, "soak FAILED: %llu wrong values, %llu unexpected failures\n", wrong, unexpected);
    return passed ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soak: %s\n", e.what());
    return 1;
  }
}

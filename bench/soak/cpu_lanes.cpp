// SPDX-License-Identifier: Apache-2.0
// bench/soak on host threads: lone threads (single_lane) and lock-step groups of 8
// threads (tests/support/cpu_warp.hpp, whose collectives behave like a converged warp's) run
// the same lane_work the GPU's warps run. The full grid is lone threads only: a lock-step
// group is slow on few cores (a barrier per collective), and lanes sharing its queue pairs
// wait for its tickets, so groups run in the warp and block grids.
#include "bench/soak/lane_work.hpp"
#include "bench/soak/lanes.hpp"

#include "tests/support/cpu_warp.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace bam::bench::soak {

namespace {

constexpr unsigned group_lanes = 8;

/// Lock-step groups and lone threads of a grid.
struct shape {
  unsigned groups = 0;
  unsigned singles = 0;
  [[nodiscard]] std::uint64_t lanes() const { return std::uint64_t{groups} * group_lanes + singles; }
};

class cpu_lanes final : public lanes {
 public:
  cpu_lanes() : cores_(std::max(1u, std::thread::hardware_concurrency())) {}

  std::string name() const override { return "cpu"; }
  nlohmann::json details() const override {
    return {{"cores", cores_},
            {"lanes", {{"warp", lanes_of(grid_kind::warp)}, {"block", lanes_of(grid_kind::block)},
                       {"full", lanes_of(grid_kind::full)}}},
            {"group_lanes", group_lanes}};
  }
  bool on_gpu() const override { return false; }
  std::uint64_t lanes_of(grid_kind grid) const override { return shape_of(grid).lanes(); }

  lane_memory allocate(std::size_t bytes) override {
    void* p = std::calloc(std::max<std::size_t>(bytes, 1), 1);
    if (p == nullptr) throw error("soak: cannot allocate " + std::to_string(bytes) + " bytes for the lanes");
    return lane_memory(p, std::free);
  }
  void upload(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void download(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }

  phase_result run(phase_params p, grid_kind grid) override {
    const shape s = shape_of(grid);
    phase_result r;
    p.counts = &r.counts;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> team;
    for (unsigned w = 0; w < s.groups; ++w) {
      team.emplace_back([&p, w] {
        test::cpu_warp<group_lanes>().run([&](auto& lane) {
          lane_work(lane, p, std::uint64_t{w} * group_lanes + lane.rank());
        });
      });
    }
    for (unsigned t = 0; t < s.singles; ++t) {
      team.emplace_back([&p, &s, t] {
        single_lane g;
        lane_work(g, p, std::uint64_t{s.groups} * group_lanes + t);
      });
    }
    for (auto& th : team) th.join();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

 private:
  shape shape_of(grid_kind grid) const {
    switch (grid) {
      case grid_kind::warp: return {1, 0};
      case grid_kind::block: return {1, cores_};
      case grid_kind::full: return {0, 8 * cores_};
    }
    return {};
  }

  unsigned cores_;
};

}  // namespace

std::unique_ptr<lanes> make_cpu_lanes() { return std::make_unique<cpu_lanes>(); }

}  // namespace bam::bench::soak

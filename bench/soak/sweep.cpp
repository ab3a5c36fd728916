// SPDX-License-Identifier: Apache-2.0
#include "bench/soak/sweep.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <cstdio>

namespace bam::bench::soak {

const char* to_string(grid_kind g) {
  switch (g) {
    case grid_kind::warp: return "warp";
    case grid_kind::block: return "block";
    case grid_kind::full: return "full";
  }
  return "?";
}

const char* to_string(fault_kind f) {
  switch (f) {
    case fault_kind::none: return "none";
    case fault_kind::drop: return "drop";
    case fault_kind::delay: return "delay";
    case fault_kind::media: return "media";
  }
  return "?";
}

const char* to_string(pattern p) {
  switch (p) {
    case pattern::uniform: return "uniform";
    case pattern::zipf: return "zipf";
    case pattern::hot: return "hot";
  }
  return "?";
}

std::string run_config::label() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%u B, 1/%u, %s, %s", page_bytes, cache_divisor, to_string(grid), to_string(pat));
  std::string s = buf;
  if (fault != fault_kind::none) {
    std::snprintf(buf, sizeof buf, ", %s %.0e", to_string(fault), fault_rate);
    s += buf;
  }
  return s;
}

std::vector<run_config> make_sweep(const std::vector<std::string>& sweeps, bool quick) {
  for (const auto& s : sweeps)
    BAM_EXPECTS(std::find(sweep_names.begin(), sweep_names.end(), s) != sweep_names.end(),
                "soak: unknown sweep '" + s + "' (hits, cache, grid, faults)");
  const std::vector<std::uint32_t> pages{512, 4096, 65536};
  const std::vector<std::uint32_t> divisors =
      quick ? std::vector<std::uint32_t>{256, 2} : std::vector<std::uint32_t>{256, 64, 16, 4, 2};
  const std::vector<double> rates = quick ? std::vector<double>{1e-2} : std::vector<double>{1e-4, 1e-3, 1e-2};
  const std::vector<pattern> mixes{pattern::uniform, pattern::zipf};
  auto wanted = [&](const char* name) { return std::find(sweeps.begin(), sweeps.end(), name) != sweeps.end(); };
  std::vector<run_config> out;
  // In sweep_names order, whatever order the caller gave.
  if (wanted("hits")) {
    for (const std::uint32_t page : quick ? std::vector<std::uint32_t>{4096} : pages)
      for (const std::uint32_t d : {256u, 2u})
        out.push_back({"hits", page, d, grid_kind::full, pattern::hot, fault_kind::none, 0, quick ? 1.0 : 2.0});
  }
  if (wanted("cache")) {
    for (const std::uint32_t page : pages)
      for (const std::uint32_t d : divisors)
        for (const pattern m : mixes) {
          // quick: uniform on the smallest caches, Zipf on the largest
          if (quick && (m == pattern::zipf) != (d == divisors.back())) continue;
          out.push_back({"cache", page, d, grid_kind::full, m});
        }
  }
  if (wanted("grid")) {
    if (quick) {  // a lone group on the smallest cache (32 slots), and a mixed block
      out.push_back({"grid", 65536, 256, grid_kind::warp, pattern::zipf});
      out.push_back({"grid", 4096, 16, grid_kind::block, pattern::zipf});
    } else {
      for (const grid_kind g : {grid_kind::warp, grid_kind::block})
        for (const std::uint32_t page : pages)
          for (const pattern m : mixes) out.push_back({"grid", page, 16, g, m});
    }
  }
  if (wanted("faults")) {
    // Faults slow a run down (lost commands wait for the time limit): twice the time.
    for (const fault_kind f : {fault_kind::drop, fault_kind::delay, fault_kind::media})
      for (const double rate : rates)
        for (const pattern m : quick ? std::vector<pattern>{pattern::uniform} : mixes)
          out.push_back({"faults", 4096, 16, grid_kind::full, m, f, rate, 2.0});
  }
  return out;
}

}  // namespace bam::bench::soak

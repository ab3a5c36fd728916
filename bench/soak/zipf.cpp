// SPDX-License-Identifier: Apache-2.0
#include "bench/soak/zipf.hpp"

#include <bam/error.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace bam::bench::soak {

std::vector<std::uint32_t> zipf_ranks(std::uint64_t units, std::size_t entries, double s, std::uint64_t seed) {
  BAM_EXPECTS(units > 0 && units <= 0xffffffffull, "zipf_ranks: " + std::to_string(units) + " units");
  std::vector<double> cdf(units);
  double sum = 0;
  for (std::uint64_t r = 0; r < units; ++r) cdf[r] = sum += 1.0 / std::pow(double(r + 1), s);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, sum);
  std::vector<std::uint32_t> out(entries);
  for (auto& x : out) {
    const auto it = std::lower_bound(cdf.begin(), cdf.end(), u(rng));
    x = std::uint32_t(std::min<std::ptrdiff_t>(it - cdf.begin(), std::ptrdiff_t(units - 1)));
  }
  return out;
}

}  // namespace bam::bench::soak

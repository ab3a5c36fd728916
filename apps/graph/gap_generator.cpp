// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/gap_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "apps/graph/error.hpp"
#include "apps/graph/gap_random.hpp"

namespace bam::graph {

gap_generator::gap_generator(gap_kind kind, int scale, int degree)
    : kind_(kind), scale_(scale), degree_(degree) {
  if (scale < 1 || scale > 30) {
    throw graph_error(
        fmt::format("GAP generator: scale {} is outside 1..30 (GAP's 32-bit ids)", scale));
  }
  if (degree < 1) throw graph_error(fmt::format("GAP generator: degree {} is below 1", degree));
  num_ids_ = std::uint64_t{1} << scale;
  num_edges_ = num_ids_ * static_cast<std::uint64_t>(degree);
  if (kind_ == gap_kind::kron) {
    permutation_ = huge_array<std::uint32_t>(num_ids_);
    std::iota(permutation_.begin(), permutation_.end(), std::uint32_t{0});
    std::mt19937 engine(static_cast<std::uint32_t>(gap::seed));
    std::shuffle(permutation_.begin(), permutation_.end(), engine);
  }
}

std::string gap_generator::name() const {
  return fmt::format("GAP {} -{}{} -k{}", kind_ == gap_kind::kron ? "kron" : "urand",
                     kind_ == gap_kind::kron ? 'g' : 'u', scale_, degree_);
}

std::uint64_t gap_generator::num_chunks() const {
  return (num_edges_ + gap::block_edges - 1) / gap::block_edges;
}

void gap_generator::read_chunk(std::uint64_t chunk, std::vector<raw_edge>& out) const {
  const std::uint64_t first = chunk * gap::block_edges;
  const std::uint64_t count = std::min(gap::block_edges, num_edges_ - first);
  out.resize(count);
  std::mt19937 engine(static_cast<std::uint32_t>(gap::seed + chunk));
  if (kind_ == gap_kind::urand) {
    const gap::uni_dist<std::uint32_t> pick(static_cast<std::uint32_t>(num_ids_ - 1));
    for (raw_edge& e : out) {
      e.u = pick(engine);
      e.v = pick(engine);
      e.w = 0;
    }
    return;
  }
  constexpr std::uint32_t a = gap::rmat_a;
  constexpr std::uint32_t ab = gap::rmat_a + gap::rmat_b;
  constexpr std::uint32_t abc = gap::rmat_a + gap::rmat_b + gap::rmat_c;
  for (raw_edge& e : out) {
    std::uint32_t src = 0;
    std::uint32_t dst = 0;
    for (int depth = 0; depth < scale_; ++depth) {
      // GAP: if (r < A+B) { if (r > A) dst++; } else { src++; if (r > A+B+C) dst++; }
      // written without branches: the draws are random, so branches would mispredict.
      const auto r = static_cast<std::uint32_t>(engine());
      const std::uint32_t src_bit = r >= ab ? 1u : 0u;
      const std::uint32_t dst_bit = (src_bit != 0u ? r > abc : r > a) ? 1u : 0u;
      src = src << 1 | src_bit;
      dst = dst << 1 | dst_bit;
    }
    e.u = permutation_[src];
    e.v = permutation_[dst];
    e.w = 0;
  }
}

}  // namespace bam::graph

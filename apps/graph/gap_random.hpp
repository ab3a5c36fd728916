// SPDX-License-Identifier: Apache-2.0
// The random draws of the GAP Benchmark Suite (gapbs src/generator.h, src/benchmark.h), restated
// so that our graphs, weights and sources are exactly GAP's.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>

namespace bam::graph::gap {

/// GAP's kRandSeed: generator block b is seeded with seed + b; the permutation and the source
/// picker with seed itself.
inline constexpr std::uint64_t seed = 27491095;
/// Edges per generator block (GAP's block_size): each block has its own freshly seeded engine,
/// so blocks can be generated in any order and on any thread.
inline constexpr std::uint64_t block_edges = std::uint64_t{1} << 18;

/// R-MAT quadrant thresholds on a raw 32-bit draw, as GAP computes them: (uint32)(p * 2^32-1).
inline constexpr std::uint32_t rmat_a = static_cast<std::uint32_t>(0.57 * 4294967295.0);
inline constexpr std::uint32_t rmat_b = static_cast<std::uint32_t>(0.19 * 4294967295.0);
inline constexpr std::uint32_t rmat_c = static_cast<std::uint32_t>(0.19 * 4294967295.0);
static_assert(rmat_a == 2448131358u && rmat_b == 816043786u && rmat_c == 816043786u);

/**
 * @brief GAP's UniDist: a uniform integer in [0, max_value] from an engine whose range is all
 *        of UInt (std::mt19937 for 32 bits, std::mt19937_64 for 64).
 * @note Draws r; if max_value + 1 does not divide the engine's range, redraws while r >= cutoff
 *       with cutoff = max - (max % (max_value + 1)); returns r % (max_value + 1). Neither the
 *       cutoff (one value lower than needed) nor the use of the low bits may be "improved":
 *       both decide which vertices and weights GAP gets.
 */
template <class UInt>
class uni_dist {
  static_assert(std::is_same_v<UInt, std::uint32_t> || std::is_same_v<UInt, std::uint64_t>);

 public:
  explicit constexpr uni_dist(UInt max_value) : max_value_(max_value) {
    constexpr UInt engine_max = std::numeric_limits<UInt>::max();
    if (max_value != engine_max) {
      const UInt mod = max_value + 1;
      const UInt remainder_sub_1 = engine_max % mod;
      cutoff_ = remainder_sub_1 == mod - 1 ? 0 : engine_max - remainder_sub_1;
    }
  }

  template <class Engine>
  UInt operator()(Engine& engine) const {
    static_assert(Engine::min() == 0 && Engine::max() == std::numeric_limits<UInt>::max(),
                  "GAP's UniDist assumes an engine covering the whole unsigned range");
    UInt r = static_cast<UInt>(engine());
    if (max_value_ == std::numeric_limits<UInt>::max()) return r;
    if (cutoff_ != 0) {
      while (r >= cutoff_) r = static_cast<UInt>(engine());
    }
    return r % (max_value_ + 1);
  }

 private:
  UInt max_value_;
  UInt cutoff_ = 0;
};

/**
 * @brief GAP's edge weights (InsertWeights): edge e of the edge list gets 1 + uni_dist(254)
 *        drawn from a std::mt19937 seeded with seed + e / block_edges, in edge order.
 * @note Yields the weights of edges first_edge, first_edge + 1, ... in turn. Starting inside a
 *       block replays the draws of that block's earlier edges.
 */
class weight_sequence {
 public:
  explicit weight_sequence(std::uint64_t first_edge)
      : next_edge_(first_edge / block_edges * block_edges) {
    while (next_edge_ < first_edge) next();
  }

  std::uint32_t next() {
    if (next_edge_ % block_edges == 0)
      engine_.seed(static_cast<std::uint32_t>(seed + next_edge_ / block_edges));
    ++next_edge_;
    return dist_(engine_) + 1;
  }

 private:
  std::mt19937 engine_;
  uni_dist<std::uint32_t> dist_{254};
  std::uint64_t next_edge_;
};

}  // namespace bam::graph::gap

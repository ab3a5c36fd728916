// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/generator.hpp"

#include <bam/error.hpp>
#include <bam/synthetic.hpp>

#include <algorithm>
#include <cmath>

namespace bam::vec {

namespace {

/// A uniform double in (0, 1) from a 64-bit hash.
double unit(std::uint64_t h) { return (double(h >> 11) + 0.5) * (1.0 / 9007199254740992.0); }

std::uint64_t hash(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return synthetic_word(synthetic_word(seed, a), b);
}

}  // namespace

clustered_source::clustered_source(const cluster_options& o, std::uint64_t stream) : o_(o), stream_(stream) {
  BAM_EXPECTS(o.rows > 0, "clustered generator: rows must be positive");
  BAM_EXPECTS(o.dim > 0, "clustered generator: dim must be positive");
  BAM_EXPECTS(o.clusters > 0, "clustered generator: clusters must be positive");
  BAM_EXPECTS(o.spread >= 0 && o.skew > 0, "clustered generator: spread >= 0 and skew > 0 required");
  centres_.resize(std::size_t(o.clusters) * o.dim);
  for (std::uint32_t c = 0; c < o.clusters; ++c)
    for (std::uint32_t j = 0; j < o.dim; ++j)
      centres_[std::size_t(c) * o.dim + j] = float(2.0 * unit(hash(o.seed, 0x5eed0000ull + c, j)) - 1.0);
}

std::uint32_t clustered_source::cluster_of(std::uint64_t r) const {
  const double u = unit(hash(o_.seed ^ (stream_ * 0x9e3779b97f4a7c15ull), 0xc1c1ull, r));
  const auto c = std::uint32_t(double(o_.clusters) * std::pow(u, double(o_.skew)));
  return std::min(c, o_.clusters - 1);
}

void clustered_source::read(std::uint64_t first, std::uint64_t n, float* out) const {
  const std::uint64_t stream_seed = o_.seed ^ (stream_ * 0x9e3779b97f4a7c15ull);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t r = first + i;
    const float* centre = centres_.data() + std::size_t(cluster_of(r)) * o_.dim;
    float* row = out + i * o_.dim;
    for (std::uint32_t j = 0; j < o_.dim; j += 2) {
      // Box-Muller: two normals per pair of uniforms.
      const std::uint64_t h = hash(stream_seed, r + 1, j);
      const double radius = std::sqrt(-2.0 * std::log(unit(h))), angle = 6.283185307179586 * unit(synthetic_word(h, 1));
      row[j] = centre[j] + o_.spread * float(radius * std::cos(angle));
      if (j + 1 < o_.dim) row[j + 1] = centre[j + 1] + o_.spread * float(radius * std::sin(angle));
    }
  }
}

std::string clustered_source::name() const {
  return "clustered(rows=" + std::to_string(o_.rows) + ", dim=" + std::to_string(o_.dim) +
         ", clusters=" + std::to_string(o_.clusters) + ", seed=" + std::to_string(o_.seed) +
         ", stream=" + std::to_string(stream_) + ")";
}

}  // namespace bam::vec

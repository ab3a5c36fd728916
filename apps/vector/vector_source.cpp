// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/vector_source.hpp"

#include <algorithm>

namespace bam::vec {

void matrix_source::read(std::uint64_t first, std::uint64_t n, float* out) const {
  std::copy_n(m_.data.data() + first * m_.dim, n * m_.dim, out);
}

matrix<float> read_all(const vector_source& src) {
  matrix<float> m(src.rows(), src.dim());
  src.read(0, m.rows, m.data.data());
  return m;
}

}  // namespace bam::vec

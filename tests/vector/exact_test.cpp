// SPDX-License-Identifier: Apache-2.0
// Exact search equals a brute-force reference (double precision, full sort), for L2 and inner
// product, in memory and through bam::array; k larger than the collection is refused.
#include "apps/vector/cpu_search.hpp"
#include "apps/vector/generator.hpp"
#include "apps/vector/rows_view.hpp"

#include <bam/error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace {

using namespace bam::vec;

/// Reference: keys in double, full stable sort by (key, id).
std::vector<std::int64_t> reference(const matrix<float>& base, const float* q, metric m, std::uint32_t k) {
  std::vector<std::pair<double, std::int64_t>> all(base.rows);
  for (std::uint64_t i = 0; i < base.rows; ++i) {
    double key = 0;
    for (std::uint32_t j = 0; j < base.dim; ++j) {
      const double x = base.data[i * base.dim + j];
      key += m == metric::l2 ? (q[j] - x) * (q[j] - x) : -q[j] * x;
    }
    all[i] = {key, std::int64_t(i)};
  }
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> ids;
  for (std::uint32_t j = 0; j < k; ++j) ids.push_back(all[j].second);
  return ids;
}

}  // namespace

TEST(Exact, EqualsABruteForceReference) {
  const auto base = read_all(clustered_source({3000, 40, 30, 9, 0.3f, 1.0f}));
  const auto queries = read_all(clustered_source({50, 40, 30, 9, 0.3f, 1.0f}, 1));
  const rows_view<float> mem(base.data.data(), base.data.size());
  for (const metric m : {metric::l2, metric::inner_product}) {
    for (const std::uint32_t k : {1u, 10u, 100u}) {
      const auto r = cpu_exact_search<float>(mem, base.rows, base.dim, m, queries, k, "base");
      for (std::uint64_t q = 0; q < queries.rows; ++q) {
        const auto want = reference(base, queries.row(q).data(), m, k);
        std::size_t same = 0;
        for (std::uint32_t j = 0; j < k; ++j) same += want[j] == r.ids[q * k + j];
        // float vs double keys may swap near-ties; nothing else may differ.
        EXPECT_GE(double(same), 0.98 * k) << to_string(m) << " k=" << k << " query " << q;
        for (std::uint32_t j = 1; j < k; ++j) {
          const float a = r.distances[q * k + j - 1], b = r.distances[q * k + j];
          ASSERT_TRUE(m == metric::l2 ? a <= b : a >= b) << "results out of order";
        }
      }
    }
  }
}

TEST(Exact, RefusesKLargerThanTheCollectionAndWrongDimensions) {
  const auto base = read_all(clustered_source({20, 8, 2, 1, 0.3f, 1.0f}));
  const rows_view<float> mem(base.data.data(), base.data.size());
  const matrix<float> q(2, 8), q7(2, 7);
  try {
    (void)cpu_exact_search<float>(mem, base.rows, base.dim, metric::l2, q, 21, "base.fvecs");
    ADD_FAILURE() << "k = 21 accepted for 20 vectors";
  } catch (const bam::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("k = 21 is larger than the collection: base.fvecs holds 20"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)cpu_exact_search<float>(mem, base.rows, base.dim, metric::l2, q7, 5, "base"), bam::invalid_argument);
  EXPECT_THROW((void)cpu_exact_search<float>(mem, base.rows, base.dim, metric::l2, q, 257, "base"), bam::invalid_argument);
  const auto r = cpu_exact_search<float>(mem, base.rows, base.dim, metric::l2, q, 20, "base");
  EXPECT_EQ(std::count(r.ids.begin(), r.ids.end(), -1), 0);
}

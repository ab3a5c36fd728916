// SPDX-License-Identifier: Apache-2.0
#include "apps/vector/search.hpp"

#include "apps/vector/ivf_index.hpp"
#include "apps/vector/topk.hpp"

#include <bam/error.hpp>

namespace bam::vec {

matrix<std::int64_t> search_results::id_matrix() const {
  matrix<std::int64_t> m(queries, k);
  m.data = ids;
  return m;
}

void check_exact_request(const std::string& what, std::uint64_t rows, std::uint32_t dim, std::uint32_t query_dim,
                         std::uint32_t k) {
  if (query_dim != dim)
    throw bam::invalid_argument("queries have " + std::to_string(query_dim) + " dimensions, " + what + " has " +
                                std::to_string(dim));
  if (k == 0) throw bam::invalid_argument("k must be at least 1");
  if (k > rows)
    throw bam::invalid_argument("k = " + std::to_string(k) + " is larger than the collection: " + what + " holds " +
                                std::to_string(rows) + " vectors");
  if (k > max_k) throw bam::invalid_argument("k = " + std::to_string(k) + " exceeds the largest supported k, " + std::to_string(max_k));
}

void check_ivf_request(const ivf_index& index, std::uint32_t query_dim, const search_options& o) {
  check_exact_request(index.path(), index.size(), index.dim(), query_dim, o.k);
  if (o.nprobe == 0) throw bam::invalid_argument("nprobe must be at least 1");
  if (o.nprobe > index.n_lists())
    throw bam::invalid_argument("nprobe = " + std::to_string(o.nprobe) + " exceeds the " + std::to_string(index.n_lists()) +
                                " lists of " + index.path());
  if (o.nprobe > max_k)
    throw bam::invalid_argument("nprobe = " + std::to_string(o.nprobe) + " exceeds the largest supported, " + std::to_string(max_k));
}

}  // namespace bam::vec

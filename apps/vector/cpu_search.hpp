// SPDX-License-Identifier: Apache-2.0
// bam::vec: IVF and exact search on CPU threads over any *store* of list-ordered vectors with
// read_range(g, first, n, dst) — a bam::array<T> over the page cache, or a rows_view in memory.
// Each query is one single_lane group running the same group_topk the GPU warps run.
#pragma once

#include "apps/vector/cpu_distance.hpp"
#include "apps/vector/ivf_index.hpp"
#include "apps/vector/search.hpp"
#include "apps/vector/topk.hpp"

#include "apps/common/parallel.hpp"

#include <bam/lane_group.hpp>
#include <bam/error.hpp>
#include <bam/status.hpp>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace bam::vec {

namespace detail {

/// Rows read from a store at once.
inline constexpr std::uint64_t cpu_chunk_rows = 64;

/// Reads rows [first, first + n) of `dim` elements into `buf`, or throws naming the rows.
template <class T, class Store>
void read_rows(const Store& store, std::uint64_t first, std::uint64_t n, std::uint32_t dim, T* buf) {
  bam::single_lane lane;
  const status st = store.read_range(lane, first * dim, n * dim, buf);
  if (st != status::ok)
    throw bam::error("reading vectors " + std::to_string(first) + ".." + std::to_string(first + n) + " failed: " +
                     to_string(st));
}

/// Copies a finished top-k into row `q` of `out`, mapping rows to ids with `id_of`.
template <unsigned C, class IdOf>
void emit(const topk_storage<C>& s, metric m, std::uint64_t q, search_results& out, IdOf id_of) {
  for (std::uint32_t j = 0; j < out.k; ++j) {
    const std::int64_t row = s.id[j];
    out.ids[q * out.k + j] = row < 0 ? -1 : id_of(row);
    out.distances[q * out.k + j] = key_to_distance(m, s.key[j]);
  }
}

}  // namespace detail

/**
 * @brief IVF search: per query, the nprobe nearest centroids, then every row of those lists.
 * @tparam T the stored element type (index.scalar())
 * @throw bam::invalid_argument for a bad request (check_ivf_request); bam::error when a read fails
 */
template <class T, class Store>
search_results cpu_ivf_search(const ivf_index& index, const Store& store, const matrix<float>& queries,
                              const search_options& o) {
  check_ivf_request(index, queries.dim, o);
  const std::uint32_t d = index.dim(), nl = index.n_lists();
  const auto centroids = index.centroids();
  const auto offsets = index.list_offsets();
  const auto ids = index.ids();
  std::vector<float> norms(nl);
  for (std::uint32_t l = 0; l < nl; ++l) norms[l] = accumulate<false>(&centroids[l * d], &centroids[l * d], d);
  search_results out(queries.rows, o.k);
  with_capacity(o.k, [&](auto cap) {
    constexpr unsigned C = decltype(cap)::value;
    apps::parallel_for(queries.rows, 0, [&](std::uint64_t q, unsigned) {
      const float* qv = queries.row(q).data();
      std::vector<float> coarse(nl);
      for (std::uint32_t l = 0; l < nl; ++l) {
        const float dot = accumulate<false>(qv, &centroids[l * d], d);
        coarse[l] = index.metric() == metric::l2 ? norms[l] - 2 * dot : -dot;
      }
      std::vector<std::uint32_t> lists(nl);
      std::iota(lists.begin(), lists.end(), 0u);
      std::partial_sort(lists.begin(), lists.begin() + o.nprobe, lists.end(),
                        [&](auto a, auto b) { return coarse[a] < coarse[b]; });
      auto storage = std::make_unique<topk_storage<C>>();
      bam::single_lane lane;
      group_topk<C, bam::single_lane> top(lane, *storage, o.k);
      std::vector<T> buf(detail::cpu_chunk_rows * d);
      for (std::uint32_t p = 0; p < o.nprobe; ++p) {
        const std::uint32_t l = lists[p];
        for (std::uint64_t r = offsets[l]; r < offsets[l + 1]; r += detail::cpu_chunk_rows) {
          const std::uint64_t n = std::min<std::uint64_t>(detail::cpu_chunk_rows, offsets[l + 1] - r);
          detail::read_rows(store, r, n, d, buf.data());
          for (std::uint64_t i = 0; i < n; ++i) top.push(cpu_key(index.metric(), qv, &buf[i * d], d), std::int64_t(r + i));
        }
      }
      top.finish();
      detail::emit(*storage, index.metric(), q, out, [&](std::int64_t row) { return ids[std::size_t(row)]; });
    });
  });
  return out;
}

/**
 * @brief Exact search over rows [0, rows) of a store (ids are row numbers): queries in blocks
 * of 8 stream the store once per block.
 * @throw bam::invalid_argument for a bad request (check_exact_request); bam::error on a failed read
 */
template <class T, class Store>
search_results cpu_exact_search(const Store& store, std::uint64_t rows, std::uint32_t dim, metric m,
                                const matrix<float>& queries, std::uint32_t k, const std::string& what) {
  check_exact_request(what, rows, dim, queries.dim, k);
  constexpr std::uint64_t block = 8;
  search_results out(queries.rows, k);
  with_capacity(k, [&](auto cap) {
    constexpr unsigned C = decltype(cap)::value;
    apps::parallel_for((queries.rows + block - 1) / block, 0, [&](std::uint64_t b, unsigned) {
      const std::uint64_t q0 = b * block, nq = std::min(block, queries.rows - q0);
      std::vector<topk_storage<C>> storage(nq);
      std::vector<bam::single_lane> lanes(nq);
      std::vector<group_topk<C, bam::single_lane>> tops;
      tops.reserve(nq);
      for (std::uint64_t i = 0; i < nq; ++i) tops.emplace_back(lanes[i], storage[i], k);
      std::vector<T> buf(detail::cpu_chunk_rows * dim);
      for (std::uint64_t r = 0; r < rows; r += detail::cpu_chunk_rows) {
        const std::uint64_t n = std::min(detail::cpu_chunk_rows, rows - r);
        detail::read_rows(store, r, n, dim, buf.data());
        for (std::uint64_t i = 0; i < nq; ++i) {
          const float* qv = queries.row(q0 + i).data();
          for (std::uint64_t j = 0; j < n; ++j) tops[i].push(cpu_key(m, qv, &buf[j * dim], dim), std::int64_t(r + j));
        }
      }
      for (std::uint64_t i = 0; i < nq; ++i) {
        tops[i].finish();
        detail::emit(storage[i], m, q0 + i, out, [](std::int64_t row) { return row; });
      }
    });
  });
  return out;
}

}  // namespace bam::vec

// SPDX-License-Identifier: Apache-2.0
// The array operations of the Python package on CPU threads: the same portable bam::array code
// GPU warps run, each thread acting as a group of one (single_lane). Elements move as
// raw words of their size, so one instantiation per element size serves every dtype of it.
#pragma once

#include <bam/array.hpp>
#include <bam/page_cache.hpp>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace bam::python {

/// Runs fn(begin, end) over [0, n) split into contiguous parts, one per thread.
/// Invariant: parts are disjoint, so threads never write the same output element.
template <class Fn>
void on_host_threads(std::uint64_t n, Fn fn) {
  const std::uint64_t threads = std::clamp<std::uint64_t>(std::thread::hardware_concurrency(), 1, 16);
  const std::uint64_t parts = std::max<std::uint64_t>(1, std::min(threads, n / 256));
  if (parts == 1) return fn(std::uint64_t{0}, n);
  std::vector<std::thread> team;
  for (std::uint64_t p = 0; p < parts; ++p)
    team.emplace_back([&, p] { fn(n * p / parts, n * (p + 1) / parts); });
  for (auto& t : team) t.join();
}

/// Rows `index[k]` (each `row` elements long) of `a` into `out[k * row ...]`. Failures are
/// recorded in the cache's device error for check().
template <class T>
void gather_rows(const array<T>& a, const std::int64_t* index, std::uint64_t n_index, std::uint64_t row, T* out) {
  on_host_threads(n_index, [&](std::uint64_t b, std::uint64_t e) {
    single_lane g;
    for (std::uint64_t k = b; k < e; ++k)
      (void)a.read_range(g, static_cast<std::uint64_t>(index[k]) * row, row, out + k * row);
  });
}

/// Elements [first, first + n) of `a` into `out`.
template <class T>
void read_elements(const array<T>& a, std::uint64_t first, std::uint64_t n, T* out) {
  constexpr std::uint64_t chunk = 4096;
  on_host_threads((n + chunk - 1) / chunk, [&](std::uint64_t b, std::uint64_t e) {
    single_lane g;
    for (std::uint64_t c = b; c < e; ++c) {
      const std::uint64_t lo = c * chunk, hi = std::min(n, lo + chunk);
      (void)a.read_range(g, first + lo, hi - lo, out + lo);
    }
  });
}

/// Rows `index[k]` of `a` become `values[k * row ...]` (the pages become dirty). With repeated
/// indices one of the rows written wins, as in NumPy's fancy assignment.
template <class T>
void write_rows(const array<T>& a, const std::int64_t* index, std::uint64_t n_index, std::uint64_t row, const T* values) {
  on_host_threads(n_index, [&](std::uint64_t b, std::uint64_t e) {
    single_lane g;
    for (std::uint64_t k = b; k < e; ++k)
      for (std::uint64_t j = 0; j < row; ++j)
        (void)a.store(g, static_cast<std::uint64_t>(index[k]) * row + j, values[k * row + j]);
  });
}

/// Adds `values[k * row ...]` to rows `index[k]` of `a` atomically (repeated indices combine).
template <class T>
void scatter_add_rows(const array<T>& a, const std::int64_t* index, std::uint64_t n_index, std::uint64_t row,
                      const T* values) {
  on_host_threads(n_index, [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t k = b; k < e; ++k)
      for (std::uint64_t j = 0; j < row; ++j)
        (void)a.fetch_add(static_cast<std::uint64_t>(index[k]) * row + j, values[k * row + j]);
  });
}

}  // namespace bam::python

// SPDX-License-Identifier: Apache-2.0
// One step of a frontier-driven traversal on host threads: each thread collects the vertices it
// discovers, and the next frontier is their concatenation.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "apps/graph/error.hpp"
#include "apps/common/parallel.hpp"

namespace bam::graph {

/** @throw graph_error "<algorithm> source S is not one of the N vertices" when source >= n. */
inline void check_source(std::string_view algorithm, std::uint64_t source, std::uint64_t n) {
  if (source >= n) {
    throw graph_error(
        fmt::format("{} source {} is not one of the {} vertices", algorithm, source, n));
  }
}

/**
 * @brief Calls step(u, push) for every u of `frontier` on `threads` threads and returns the
 *        vertices passed to push, grouped by thread.
 * @note The order of the result depends on scheduling; callers must not depend on it.
 */
template <class Id, class Step>
std::vector<Id> advance_frontier(const std::vector<Id>& frontier, unsigned threads, Step&& step) {
  if (threads == 0) threads = apps::default_thread_count();
  std::vector<std::vector<Id>> found(threads);
  constexpr std::uint64_t grain = 256;
  apps::parallel_for_ranges(frontier.size(), grain, threads,
                      [&](std::uint64_t a, std::uint64_t z, unsigned t) {
                        auto push = [&found, t](Id v) { found[t].push_back(v); };
                        for (std::uint64_t i = a; i < z; ++i) step(frontier[i], push);
                      });
  std::vector<Id> next;
  for (const auto& part : found) next.insert(next.end(), part.begin(), part.end());
  return next;
}

}  // namespace bam::graph

// SPDX-License-Identifier: Apache-2.0
// bam-knn's subcommands: their options (filled by main.cpp from the command line) and entry
// points. Each prints progress on stderr and a JSON summary on stdout (and to --json).
#pragma once

#include "apps/common/storage_cli.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bam::knn {

/// Where the base vectors come from: a file, or the clustered generator when `generate` > 0.
struct base_options {
  std::string file;
  std::uint64_t generate = 0;
  std::uint32_t dim = 128, clusters = 1000;
  float spread = 0.15f, skew = 1.0f;
  std::uint64_t seed = 1;
};

struct build_args {
  base_options base;
  std::string out, json, metric = "l2", storage = "f32";
  std::uint32_t lists = 1024, iterations = 20;
  std::uint64_t sample = 0, seed = 1;
  float max_ratio = 3.0f;
  bool cpu = false;
};

struct search_args {
  std::string index, queries, gt, out, json, plot, source = "bam";
  std::uint64_t generate_queries = 0;  ///< queries from the generator settings in `base`
  base_options base;
  std::uint32_t k = 10;
  std::vector<std::uint32_t> nprobe{1, 2, 4, 8, 16, 32, 64};
  apps::storage_flags storage{.cache_fraction = 0.25};  ///< cache: --cache-fraction of the vectors
  std::uint64_t batch = 0;
  bool ram = false, exact = false, cpu = false, prefetch_next = false;
  std::uint32_t look_ahead_pages = 0;
};

struct groundtruth_args {
  base_options base;
  std::string queries, out, distances, json, metric = "l2";
  std::uint64_t generate_queries = 0;
  std::uint32_t k = 100;
  bool cpu = false;
};

struct generate_args {
  base_options base;
  std::string out, queries_out;
  std::uint64_t queries = 0;
};

int run_build(const build_args& a);
int run_search(const search_args& a);
int run_groundtruth(const groundtruth_args& a);
int run_generate(const generate_args& a);

}  // namespace bam::knn

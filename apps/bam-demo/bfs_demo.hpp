// SPDX-License-Identifier: Apache-2.0
// The demo's second part: a BFS on a generated GAP graph whose edges are read through bam's page
// cache, beside the same BFS over the graph held in memory (VRAM on a GPU), both checked against
// the CPU reference; the cached run's profile is written as JSON and PNG.
#pragma once

#include <cstddef>
#include <string>

namespace bam::demo {

struct bfs_demo_options {
  int scale = 12;               ///< GAP kron graph of 2^scale vertices, degree 16, symmetrized
  bool gpu = false;             ///< run the kernels on the GPU (else on CPU threads)
  std::size_t page_bytes = 4096;
  std::string out;              ///< folder for the graph file, bfs.json and bfs.png
};

/// Returns true when both runs matched the reference. @throw bam::error and graph errors
bool run_bfs_demo(const bfs_demo_options& o);

}  // namespace bam::demo

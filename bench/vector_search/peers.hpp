// SPDX-License-Identifier: Apache-2.0
// The Python peers of the vector_search bench (peers.py: FAISS IVF-Flat on the CPU with the same
// lists, FAISS exact check of the ground truth, PyTorch brute force in VRAM).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bam::bench::vector {

struct peer_args {
  std::string index, queries_npy, gt_ivecs, out_json;
  std::vector<std::uint32_t> nprobe;
  std::uint32_t k = 10;
  unsigned threads = 16, reps = 3;
};

/// Runs peers.py and returns its JSON; a failure to run becomes {"errors": [...]}.
nlohmann::json run_peers(const peer_args& a);

}  // namespace bam::bench::vector

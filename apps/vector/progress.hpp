// SPDX-License-Identifier: Apache-2.0
// bam::vec::progress: how long-running steps (k-means, assignment, writing, searching) report
// how far they are; the CLI prints it on stderr, tests pass nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace bam::vec {

/// Called with a phase name and `done` of `total` units; may be empty.
using progress_fn = std::function<void(const std::string& phase, std::uint64_t done, std::uint64_t total)>;

inline void report(const progress_fn& p, const std::string& phase, std::uint64_t done, std::uint64_t total) {
  if (p) p(phase, done, total);
}

}  // namespace bam::vec

// SPDX-License-Identifier: Apache-2.0
// What bam-knn's subcommands share: opening the base collection, progress on stderr, the
// choice of GPU or CPU, and writing the JSON summary.
#pragma once

#include "apps/bam-knn/commands.hpp"
#include "apps/vector/matrix.hpp"
#include "apps/vector/progress.hpp"
#include "apps/vector/vector_source.hpp"

#include <bam/error.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace bam::knn {

/// The base collection: a file (loaded into memory) or the generator (computed on demand).
struct collection {
  std::unique_ptr<vec::matrix<float>> loaded;  ///< owns the rows of a file source
  std::unique_ptr<vec::vector_source> source;
};
[[nodiscard]] collection open_base(const base_options& b);
/// Queries from a file, or `generate` rows from the generator's query stream.
[[nodiscard]] vec::matrix<float> open_queries(const std::string& file, std::uint64_t generate, const base_options& b);

/// Prints "phase done/total (pct%)" on stderr, at most every half second and at the end.
[[nodiscard]] vec::progress_fn stderr_progress(const std::string& command);

/// Prints the summary on stdout and writes it to `path` when not empty.
void emit_json(const nlohmann::json& doc, const std::string& path);

}  // namespace bam::knn

// SPDX-License-Identifier: Apache-2.0
// Exceptions thrown by the graph layer; every message names the file and what is wrong.
#pragma once

#include <bam/error.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace bam::graph {

/** @brief Base of every error the graph layer throws (a bam::error, so callers catch one family). */
class graph_error : public bam::error {
 public:
  using bam::error::error;
};

/** @brief A CSR file is corrupt, truncated, or not a bam CSR file at all. */
class format_error : public graph_error {
 public:
  using graph_error::graph_error;
};

/** @brief A text input (edge list, Matrix Market) breaks its format. */
class parse_error : public graph_error {
 public:
  using graph_error::graph_error;
};

/** @brief An operating-system call on a file failed. */
class io_error : public graph_error {
 public:
  using graph_error::graph_error;
};

/**
 * @brief Throws io_error "<path>: <what>: <strerror(errno)>".
 * @note Call right after the failing system call, before errno can change.
 */
[[noreturn]] void throw_io_error(const std::filesystem::path& path, std::string_view what);

}  // namespace bam::graph

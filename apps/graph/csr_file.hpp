// SPDX-License-Identifier: Apache-2.0
// Opens a CSR file by memory-mapping it, refusing corrupt or truncated files with a message that
// names the file and the fault.
#pragma once

#include <cstdint>
#include <filesystem>
#include <type_traits>
#include <utility>

#include "apps/graph/csr_format.hpp"
#include "apps/graph/csr_view.hpp"
#include "apps/common/mapped_file.hpp"

namespace bam::graph {

/// How much of a file open() checks before handing out views.
enum class verify_level {
  header,     ///< header fields and file length only: O(1), for huge files read by the GPU
  checksums,  ///< plus the CRC-32 of every section
  full,       ///< plus every structural invariant of csr_view (offsets, ids, order, padding)
};

/** @brief An opened, validated CSR file (move-only owner of the mapping). */
class csr_file {
 public:
  /**
   * @brief Maps and validates `path`.
   * @param threads 0 means apps::default_thread_count().
   * @throw format_error "<path>: <fault>" for a truncated, corrupt or foreign file; io_error when
   *        it cannot be read.
   */
  static csr_file open(const std::filesystem::path& path, verify_level level = verify_level::full,
                       unsigned threads = 0);

  [[nodiscard]] const csr_header& header() const { return header_; }
  [[nodiscard]] const std::filesystem::path& path() const { return map_.path(); }

  /**
   * @brief The graph as spans into the mapping (valid while this object lives).
   * @throw graph_error when Id is not the file's id width.
   */
  template <class Id>
  [[nodiscard]] csr_view<Id> view() const;

  /** @brief Recomputes every section's CRC-32. @throw format_error naming the section. */
  void verify_checksums(unsigned threads = 0) const;
  /** @brief Checks the csr_view invariants and zero padding. @throw format_error naming the
   *         first vertex or edge at fault. */
  void verify_structure(unsigned threads = 0) const;

 private:
  csr_file(apps::mapped_file map, const csr_header& header) : map_(std::move(map)), header_(header) {}

  apps::mapped_file map_;
  csr_header header_;
};

extern template csr_view<std::uint32_t> csr_file::view<std::uint32_t>() const;
extern template csr_view<std::uint64_t> csr_file::view<std::uint64_t>() const;

/**
 * @brief Calls fn(file.view<Id>()) with Id the file's id width, returning what fn returns.
 */
template <class Fn>
decltype(auto) visit_view(const csr_file& file, Fn&& fn) {
  if (file.header().id_bytes == 4) return std::forward<Fn>(fn)(file.view<std::uint32_t>());
  return std::forward<Fn>(fn)(file.view<std::uint64_t>());
}

}  // namespace bam::graph

// SPDX-License-Identifier: Apache-2.0
// Streams a CSR file to disk vertex by vertex, so no caller ever holds the whole graph.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

#include "apps/graph/csr_format.hpp"
#include "apps/graph/csr_view.hpp"

namespace bam::graph {

/// What a writer needs to know before the first vertex.
struct csr_shape {
  std::uint64_t num_vertices = 0;
  bool weighted = false;
  bool symmetric = false;
  std::uint32_t id_bytes = 0;  ///< 0 picks id_bytes_for(num_vertices); 8 may be forced
};

/**
 * @brief Writes `path` through a temporary `path.partial` (renamed over `path` by finish()) and
 *        a temporary `path.weights` for the weights section, which follows the neighbors and so
 *        can only be placed once the edge count is known.
 * @note Not thread-safe; append() itself checksums on `threads` threads. If finish() is never
 *       reached (an exception), the destructor removes both temporaries and `path` is untouched.
 */
class csr_writer {
 public:
  /** @throw graph_error on an impossible shape, io_error when the files cannot be created. */
  csr_writer(std::filesystem::path path, const csr_shape& shape, unsigned threads = 0);
  csr_writer(const csr_writer&) = delete;
  csr_writer& operator=(const csr_writer&) = delete;
  ~csr_writer();

  [[nodiscard]] std::uint32_t id_bytes() const { return header_.id_bytes; }
  [[nodiscard]] std::uint64_t vertices_written() const { return next_vertex_; }

  /**
   * @brief Appends the next degrees.size() vertices; their neighbor lists are concatenated in
   *        `neighbors` (and `weights`, empty when unweighted).
   * @pre Each list sorted, unique, without self-loops, ids below num_vertices (the reader
   *      refuses files that break this); sizeof(Id) == id_bytes(); the degrees sum to
   *      neighbors.size().
   * @throw graph_error when the preconditions on sizes or vertex count are broken, io_error on
   *        a failed write.
   */
  template <class Id>
  void append(std::span<const std::uint64_t> degrees, std::span<const Id> neighbors,
              std::span<const weight_t> weights);

  /**
   * @brief Writes the last offset, places the weights, writes the header, syncs and renames.
   * @pre All num_vertices vertices were appended.
   * @return The header as written.
   */
  csr_header finish();

 private:
  void append_bytes(std::span<const std::uint64_t> degrees, std::span<const std::byte> neighbors,
                    std::span<const std::byte> weights, std::uint64_t n_entries);
  void write_at(int fd, const std::filesystem::path& file, std::uint64_t offset,
                std::span<const std::byte> bytes);
  void copy_weights_into_place();
  void remove_temporaries() noexcept;

  std::filesystem::path path_;
  std::filesystem::path partial_path_;
  std::filesystem::path weights_path_;
  unsigned threads_;
  int fd_ = -1;
  int weights_fd_ = -1;
  csr_header header_{};
  std::uint64_t next_vertex_ = 0;
  std::uint64_t edges_written_ = 0;
  bool finished_ = false;
};

extern template void csr_writer::append<std::uint32_t>(std::span<const std::uint64_t>,
                                                       std::span<const std::uint32_t>,
                                                       std::span<const weight_t>);
extern template void csr_writer::append<std::uint64_t>(std::span<const std::uint64_t>,
                                                       std::span<const std::uint64_t>,
                                                       std::span<const weight_t>);

}  // namespace bam::graph

// SPDX-License-Identifier: Apache-2.0
// The benchmark's graph files: GAP graphs generated once into a work folder and reused, and the
// two file-system steps an end-to-end run needs (drop the file from the OS page cache, load it).
#pragma once

#include "apps/graph/csr_file.hpp"
#include "apps/graph/gap_generator.hpp"

#include <filesystem>
#include <string>

namespace bam::bench {

/// A GAP graph: Kronecker or uniform random, 2^scale vertices, degree 16, symmetrized, with
/// GAP's uniform 1..255 weights (SSSP reads them; the other algorithms read only neighbors).
struct graph_spec {
  graph::gap_kind kind;
  int scale;
  /// "kron25", "urand16": the name in rows, headline keys and the file name.
  [[nodiscard]] std::string name() const;
};

/**
 * @brief `<work_dir>/<name>.bcsr`, generated with bam's GAP generator when it is not there yet
 *        (progress on stdout); an existing file is reused when its header matches the spec.
 * @throw graph::graph_error when an existing file is not that graph (delete it to regenerate);
 *        errors of the generator and writer.
 */
std::filesystem::path ensure_graph(const std::filesystem::path& work_dir, const graph_spec& spec);

/**
 * @brief Asks the kernel to drop the file's pages from its page cache (POSIX_FADV_DONTNEED), so
 *        that the next read comes from the disk. Pages still mapped by this process stay.
 * @throw bam::system_error when the file cannot be opened or the advice fails.
 */
void evict_from_page_cache(const std::filesystem::path& path);

/**
 * @brief Reads every page of the offsets and neighbor sections (and the weights when
 *        `with_weights`) on `threads` threads: the load of an end-to-end run, after which the
 *        peers copy from memory.
 * @return a checksum of one word per page (keeps the reads from being optimized away)
 */
std::uint64_t load_sections(const graph::csr_file& file, bool with_weights, unsigned threads);

}  // namespace bam::bench

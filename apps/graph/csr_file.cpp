// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/csr_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "apps/graph/crc32.hpp"
#include "apps/graph/error.hpp"
#include "apps/common/parallel.hpp"

namespace bam::graph {
namespace {

[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& what) {
  throw format_error(path.string() + ": " + what);
}

bool all_zero(std::span<const std::byte> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::byte b) { return b == std::byte{0}; });
}

// Keeps the fault with the smallest position found by any thread, so the message is the same
// whatever the thread count.
class first_fault {
 public:
  void report(std::uint64_t position, std::string message) {
    std::lock_guard lock(mutex_);
    if (!position_ || position < *position_) {
      position_ = position;
      message_ = std::move(message);
    }
  }
  void throw_if_any(const std::filesystem::path& path) const {
    if (position_) refuse(path, message_);
  }

 private:
  std::mutex mutex_;
  std::optional<std::uint64_t> position_;
  std::string message_;
};

template <class Id>
void check_structure(const csr_view<Id>& g, const std::filesystem::path& path, unsigned threads) {
  const std::uint64_t n = g.num_vertices();
  if (g.offsets[0] != 0) refuse(path, fmt::format("offsets[0] is {}, expected 0", g.offsets[0]));
  if (g.offsets[n] != g.num_edges()) {
    refuse(path, fmt::format("offsets[{}] is {}, expected the edge count {}", n, g.offsets[n],
                             g.num_edges()));
  }
  first_fault fault;
  constexpr std::uint64_t grain = 1u << 14;
  // Offsets first: neighbor lists can only be read once every offset is known to be in range.
  apps::parallel_for_ranges(n, grain, threads, [&](std::uint64_t begin, std::uint64_t end, unsigned) {
    for (std::uint64_t u = begin; u < end; ++u) {
      if (g.offsets[u] > g.offsets[u + 1]) {
        fault.report(u, fmt::format("offsets decrease at vertex {} ({} then {})", u, g.offsets[u],
                                    g.offsets[u + 1]));
        return;
      }
    }
  });
  fault.throw_if_any(path);
  apps::parallel_for_ranges(n, grain, threads, [&](std::uint64_t begin, std::uint64_t end, unsigned) {
    for (std::uint64_t u = begin; u < end; ++u) {
      const auto nbrs = g.neighbors_of(u);
      for (std::size_t i = 0; i < nbrs.size(); ++i) {
        const std::uint64_t v = nbrs[i];
        const std::uint64_t edge = g.offsets[u] + i;
        if (v >= n) {
          fault.report(u, fmt::format("neighbor {} of vertex {} (edge {}) is not below the {} "
                                      "vertices",
                                      v, u, edge, n));
          return;
        }
        if (v == u) {
          fault.report(u, fmt::format("vertex {} lists itself (edge {})", u, edge));
          return;
        }
        if (i > 0 && nbrs[i - 1] >= v) {
          fault.report(u, fmt::format("neighbors of vertex {} are not sorted and unique at edge "
                                      "{} ({} then {})",
                                      u, edge, nbrs[i - 1], v));
          return;
        }
      }
    }
  });
  fault.throw_if_any(path);
}

}  // namespace

csr_file csr_file::open(const std::filesystem::path& path, verify_level level, unsigned threads) {
  apps::mapped_file map = apps::mapped_file::open_read(path);
  const auto bytes = map.bytes();
  if (bytes.size() < csr_page_bytes) {
    if (bytes.size() >= csr_magic.size() &&
        std::memcmp(bytes.data(), csr_magic.data(), csr_magic.size()) != 0) {
      refuse(path, "not a bam CSR graph file (bad magic bytes)");
    }
    refuse(path, fmt::format("truncated: {} bytes, shorter than the {}-byte header page",
                             bytes.size(), csr_page_bytes));
  }
  csr_header header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  validate_header(header, bytes.size(), path);
  if (!all_zero(bytes.subspan(sizeof header, csr_page_bytes - sizeof header))) {
    refuse(path, "header page has non-zero bytes after the 128-byte header");
  }
  csr_file file(std::move(map), header);
  if (level != verify_level::header) file.verify_checksums(threads);
  if (level == verify_level::full) file.verify_structure(threads);
  return file;
}

template <class Id>
csr_view<Id> csr_file::view() const {
  if (sizeof(Id) != header_.id_bytes) {
    throw graph_error(fmt::format("{}: asked for {}-byte ids, the file has {}-byte ids",
                                  path().string(), sizeof(Id), header_.id_bytes));
  }
  const std::byte* base = map_.bytes().data();
  csr_view<Id> g;
  g.offsets = {reinterpret_cast<const std::uint64_t*>(base + header_.offsets_offset),
               header_.num_vertices + 1};
  g.neighbors = {reinterpret_cast<const Id*>(base + header_.neighbors_offset), header_.num_edges};
  if (header_.weighted()) {
    g.weights = {reinterpret_cast<const weight_t*>(base + header_.weights_offset),
                 header_.num_edges};
  }
  g.weighted = header_.weighted();
  g.symmetric = header_.symmetric();
  return g;
}

void csr_file::verify_checksums(unsigned threads) const {
  const auto bytes = map_.bytes();
  struct section {
    const char* name;
    std::uint64_t offset;
    std::uint64_t length;
    std::uint32_t stored;
  };
  const section sections[] = {
      {"offsets", header_.offsets_offset, (header_.num_vertices + 1) * 8, header_.offsets_crc32},
      {"neighbors", header_.neighbors_offset, header_.num_edges * header_.id_bytes,
       header_.neighbors_crc32},
      {"weights", header_.weights_offset, header_.num_edges * header_.weight_bytes,
       header_.weights_crc32},
  };
  for (const section& s : sections) {
    if (s.offset == 0) continue;  // no weights section
    const std::uint32_t crc = crc32_extend(0, bytes.subspan(s.offset, s.length), threads);
    if (crc != s.stored) {
      refuse(path(), fmt::format("{} section checksum mismatch (stored {:#010x}, computed "
                                 "{:#010x}): the file is corrupt",
                                 s.name, s.stored, crc));
    }
  }
}

void csr_file::verify_structure(unsigned threads) const {
  const auto bytes = map_.bytes();
  const std::uint64_t ends[][2] = {
      {header_.offsets_offset + (header_.num_vertices + 1) * 8, header_.neighbors_offset},
      {header_.neighbors_offset + header_.num_edges * header_.id_bytes,
       header_.weighted() ? header_.weights_offset : header_.file_bytes},
      {header_.weighted() ? header_.weights_offset + header_.num_edges * 4 : header_.file_bytes,
       header_.file_bytes},
  };
  for (const auto& [data_end, next_start] : ends) {
    if (!all_zero(bytes.subspan(data_end, next_start - data_end))) {
      refuse(path(),
             fmt::format("non-zero padding between byte {} and byte {}", data_end, next_start));
    }
  }
  visit_view(*this, [&](const auto& g) { check_structure(g, path(), threads); });
}

template csr_view<std::uint32_t> csr_file::view<std::uint32_t>() const;
template csr_view<std::uint64_t> csr_file::view<std::uint64_t>() const;

}  // namespace bam::graph

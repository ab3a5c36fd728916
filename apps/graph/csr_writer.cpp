// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/csr_writer.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <numeric>
#include <utility>
#include <vector>

#include "apps/graph/crc32.hpp"
#include "apps/graph/error.hpp"

namespace bam::graph {
namespace {

std::filesystem::path with_suffix(const std::filesystem::path& path, const char* suffix) {
  std::filesystem::path p = path;
  p += suffix;
  return p;
}

int create_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_io_error(path, "cannot create");
  return fd;
}

}  // namespace

csr_writer::csr_writer(std::filesystem::path path, const csr_shape& shape, unsigned threads)
    : path_(std::move(path)),
      partial_path_(with_suffix(path_, ".partial")),
      weights_path_(with_suffix(path_, ".weights")),
      threads_(threads) {
  const std::uint32_t needed = id_bytes_for(shape.num_vertices);
  const std::uint32_t id_bytes = shape.id_bytes == 0 ? needed : shape.id_bytes;
  if ((id_bytes != 4 && id_bytes != 8) || id_bytes < needed) {
    throw graph_error(fmt::format("{}: cannot store {} vertices with {}-byte ids", path_.string(),
                                  shape.num_vertices, id_bytes));
  }
  header_.magic = csr_magic;
  header_.version = csr_version;
  header_.header_bytes = sizeof(csr_header);
  header_.flags = (shape.weighted ? static_cast<std::uint32_t>(csr_flag::weighted) : 0u) |
                  (shape.symmetric ? static_cast<std::uint32_t>(csr_flag::symmetric) : 0u);
  header_.id_bytes = id_bytes;
  header_.weight_bytes = shape.weighted ? 4 : 0;
  header_.page_bytes = csr_page_bytes;
  header_.num_vertices = shape.num_vertices;
  // The neighbors section starts where it will for any edge count.
  const csr_layout layout = compute_layout(shape.num_vertices, 0, id_bytes, shape.weighted);
  header_.offsets_offset = layout.offsets_offset;
  header_.neighbors_offset = layout.neighbors_offset;

  fd_ = create_file(partial_path_);
  if (shape.weighted) {
    try {
      weights_fd_ = create_file(weights_path_);
    } catch (...) {
      remove_temporaries();
      throw;
    }
  }
}

csr_writer::~csr_writer() {
  if (!finished_) remove_temporaries();
}

void csr_writer::remove_temporaries() noexcept {
  if (fd_ >= 0) ::close(fd_);
  if (weights_fd_ >= 0) ::close(weights_fd_);
  fd_ = weights_fd_ = -1;
  std::error_code ignored;
  std::filesystem::remove(partial_path_, ignored);
  std::filesystem::remove(weights_path_, ignored);
}

void csr_writer::write_at(int fd, const std::filesystem::path& file, std::uint64_t offset,
                          std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_io_error(file, "write failed");
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
}

template <class Id>
void csr_writer::append(std::span<const std::uint64_t> degrees, std::span<const Id> neighbors,
                        std::span<const weight_t> weights) {
  if (sizeof(Id) != header_.id_bytes) {
    throw graph_error(fmt::format("{}: appending {}-byte ids to a file of {}-byte ids",
                                  path_.string(), sizeof(Id), header_.id_bytes));
  }
  if (header_.weighted() ? weights.size() != neighbors.size() : !weights.empty()) {
    throw graph_error(fmt::format("{}: {} weights given for {} neighbors of a {} graph",
                                  path_.string(), weights.size(), neighbors.size(),
                                  header_.weighted() ? "weighted" : "unweighted"));
  }
  append_bytes(degrees, std::as_bytes(neighbors), std::as_bytes(weights), neighbors.size());
}

void csr_writer::append_bytes(std::span<const std::uint64_t> degrees,
                              std::span<const std::byte> neighbors,
                              std::span<const std::byte> weights, std::uint64_t n_entries) {
  if (finished_) throw graph_error(path_.string() + ": append after finish");
  if (degrees.size() > header_.num_vertices - next_vertex_) {
    throw graph_error(fmt::format("{}: appending {} vertices after {} of {}", path_.string(),
                                  degrees.size(), next_vertex_, header_.num_vertices));
  }
  if (std::accumulate(degrees.begin(), degrees.end(), std::uint64_t{0}) != n_entries) {
    throw graph_error(fmt::format("{}: degrees do not add up to the {} neighbors given",
                                  path_.string(), n_entries));
  }
  std::vector<std::uint64_t> offsets(degrees.size());
  std::uint64_t running = edges_written_;
  for (std::size_t i = 0; i < degrees.size(); ++i) {
    offsets[i] = running;
    running += degrees[i];
  }
  const auto offset_bytes = std::as_bytes(std::span(offsets));
  write_at(fd_, partial_path_, header_.offsets_offset + next_vertex_ * 8, offset_bytes);
  header_.offsets_crc32 = crc32_extend(header_.offsets_crc32, offset_bytes, threads_);
  write_at(fd_, partial_path_, header_.neighbors_offset + edges_written_ * header_.id_bytes,
           neighbors);
  header_.neighbors_crc32 = crc32_extend(header_.neighbors_crc32, neighbors, threads_);
  if (header_.weighted()) {
    write_at(weights_fd_, weights_path_, edges_written_ * sizeof(weight_t), weights);
    header_.weights_crc32 = crc32_extend(header_.weights_crc32, weights, threads_);
  }
  next_vertex_ += degrees.size();
  edges_written_ = running;
}

void csr_writer::copy_weights_into_place() {
  const std::uint64_t total = edges_written_ * sizeof(weight_t);
  loff_t in_off = 0;
  auto out_off = static_cast<loff_t>(header_.weights_offset);
  while (static_cast<std::uint64_t>(in_off) < total) {
    const ssize_t n = ::copy_file_range(weights_fd_, &in_off, fd_, &out_off,
                                        total - static_cast<std::uint64_t>(in_off), 0);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EOPNOTSUPP && errno != EINVAL) {
      throw_io_error(partial_path_, "copying the weights section failed");
    }
    // The kernel cannot copy between these files: fall back to reading and writing.
    std::vector<std::byte> buffer(std::size_t{16} << 20);
    while (static_cast<std::uint64_t>(in_off) < total) {
      const ssize_t got = ::pread(weights_fd_, buffer.data(),
                                  std::min<std::uint64_t>(buffer.size(), total - in_off), in_off);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw_io_error(weights_path_, "reading back the weights failed");
      write_at(fd_, partial_path_, static_cast<std::uint64_t>(out_off),
               std::span(buffer).first(static_cast<std::size_t>(got)));
      in_off += got;
      out_off += got;
    }
  }
}

csr_header csr_writer::finish() {
  if (finished_) throw graph_error(path_.string() + ": finish called twice");
  if (next_vertex_ != header_.num_vertices) {
    throw graph_error(fmt::format("{}: finish after {} of {} vertices", path_.string(),
                                  next_vertex_, header_.num_vertices));
  }
  const std::uint64_t last = edges_written_;
  const auto last_bytes = std::as_bytes(std::span(&last, 1));
  write_at(fd_, partial_path_, header_.offsets_offset + header_.num_vertices * 8, last_bytes);
  header_.offsets_crc32 = crc32_extend(header_.offsets_crc32, last_bytes, 1);

  header_.num_edges = edges_written_;
  const csr_layout layout =
      compute_layout(header_.num_vertices, header_.num_edges, header_.id_bytes, header_.weighted());
  header_.weights_offset = layout.weights_offset;
  header_.file_bytes = layout.file_bytes;
  if (header_.weighted()) copy_weights_into_place();
  if (::ftruncate(fd_, static_cast<off_t>(header_.file_bytes)) != 0) {
    throw_io_error(partial_path_, "cannot set the file length");
  }
  header_.header_crc32 = header_checksum(header_);
  write_at(fd_, partial_path_, 0, std::as_bytes(std::span(&header_, 1)));
  if (::fsync(fd_) != 0) throw_io_error(partial_path_, "fsync failed");
  if (::close(std::exchange(fd_, -1)) != 0) throw_io_error(partial_path_, "close failed");
  std::error_code ec;
  std::filesystem::rename(partial_path_, path_, ec);
  if (ec) {
    throw io_error(fmt::format("{}: cannot rename to {}: {}", partial_path_.string(),
                               path_.string(), ec.message()));
  }
  finished_ = true;
  remove_temporaries();  // only the weights scratch file is left to remove
  return header_;
}

template void csr_writer::append<std::uint32_t>(std::span<const std::uint64_t>,
                                                std::span<const std::uint32_t>,
                                                std::span<const weight_t>);
template void csr_writer::append<std::uint64_t>(std::span<const std::uint64_t>,
                                                std::span<const std::uint64_t>,
                                                std::span<const weight_t>);

}  // namespace bam::graph

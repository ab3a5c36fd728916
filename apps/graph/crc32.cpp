// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/crc32.hpp"

#include <zlib.h>

#include <vector>

#include "apps/common/parallel.hpp"

static_assert(sizeof(z_off_t) == 8, "crc32_combine needs 64-bit lengths");

namespace bam::graph {
namespace {

constexpr std::size_t piece_bytes = std::size_t{32} << 20;

std::uint32_t crc_of(std::uint32_t crc, std::span<const std::byte> piece) {
  return static_cast<std::uint32_t>(
      ::crc32_z(crc, reinterpret_cast<const Bytef*>(piece.data()), piece.size()));
}

}  // namespace

std::uint32_t crc32_extend(std::uint32_t crc, std::span<const std::byte> data, unsigned threads) {
  if (data.size() <= piece_bytes) return crc_of(crc, data);
  const std::size_t n_pieces = (data.size() + piece_bytes - 1) / piece_bytes;
  std::vector<std::uint32_t> piece_crc(n_pieces);
  apps::parallel_for(n_pieces, threads, [&](std::uint64_t i, unsigned) {
    piece_crc[i] = crc_of(
        0,
        data.subspan(i * piece_bytes).first(std::min(piece_bytes, data.size() - i * piece_bytes)));
  });
  for (std::size_t i = 0; i < n_pieces; ++i) {
    const auto len = static_cast<z_off_t>(std::min(piece_bytes, data.size() - i * piece_bytes));
    crc = static_cast<std::uint32_t>(::crc32_combine(crc, piece_crc[i], len));
  }
  return crc;
}

}  // namespace bam::graph

// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/edge_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

#include "apps/graph/error.hpp"

namespace bam::graph {
namespace {

constexpr std::string_view comment_markers = "#%";
constexpr std::uint64_t max_id = std::numeric_limits<std::uint64_t>::max() - 1;
constexpr std::uint64_t max_weight = std::numeric_limits<weight_t>::max();

}  // namespace

edge_list_source::edge_list_source(std::filesystem::path path, std::uint64_t chunk_bytes)
    : text_(std::move(path), chunk_bytes) {
  const std::string_view all = text_.text();
  for (std::size_t pos = 0; pos < all.size();) {
    const std::size_t end = std::min(all.find('\n', pos), all.size());
    const std::string_view line = all.substr(pos, end - pos);
    if (!is_blank_or_comment(line, comment_markers)) {
      std::array<std::string_view, 3> fields;
      columns_ = split_fields(line, fields);
      if (columns_ != 2 && columns_ != 3) {
        text_.fail(pos, fmt::format("an edge line has 2 fields (source target) or 3 (source "
                                    "target weight), this one has {}",
                                    columns_));
      }
      return;
    }
    pos = end + 1;
  }
}

void edge_list_source::read_chunk(std::uint64_t chunk, std::vector<raw_edge>& out) const {
  out.clear();
  for_each_line(
      text_.chunk(chunk), text_.chunk_begin(chunk),
      [&](std::string_view line, std::uint64_t offset) {
        if (is_blank_or_comment(line, comment_markers)) return;
        std::array<std::string_view, 3> fields;
        const std::size_t found = split_fields(line, fields);
        if (found != columns_) {
          text_.fail(offset, fmt::format("expected {} fields like the first edge line, found {}",
                                         columns_, found));
        }
        raw_edge e{0, 0, 0};
        if (!parse_unsigned(fields[0], max_id, e.u) || !parse_unsigned(fields[1], max_id, e.v)) {
          text_.fail(offset, fmt::format("vertex ids must be integers in 0..{}, got \"{} {}\"",
                                         max_id, fields[0], fields[1]));
        }
        if (columns_ == 3) {
          std::uint64_t w = 0;
          if (!parse_unsigned(fields[2], max_weight, w)) {
            text_.fail(offset, fmt::format("weight must be an integer in 0..{}, got \"{}\"",
                                           max_weight, fields[2]));
          }
          e.w = static_cast<weight_t>(w);
        }
        out.push_back(e);
      });
}

}  // namespace bam::graph

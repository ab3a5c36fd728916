// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/text_file.hpp"

#include <algorithm>
#include <charconv>

#include "apps/graph/error.hpp"

namespace bam::graph {
namespace {

bool is_separator(char c) { return c == ' ' || c == '\t' || c == '\r'; }

}  // namespace

text_chunks::text_chunks(std::filesystem::path path, std::uint64_t chunk_bytes)
    : map_(apps::mapped_file::open_read(path)), chunk_bytes_(std::max<std::uint64_t>(chunk_bytes, 1)) {
  set_body_offset(0);
}

std::string_view text_chunks::text() const {
  const auto bytes = map_.bytes();
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

void text_chunks::set_body_offset(std::uint64_t body_offset) {
  const std::string_view all = text();
  bounds_.assign(1, std::min<std::uint64_t>(body_offset, all.size()));
  while (bounds_.back() < all.size()) {
    std::uint64_t end = std::min<std::uint64_t>(bounds_.back() + chunk_bytes_, all.size());
    if (end < all.size()) {
      const std::size_t newline = all.find('\n', end - 1);
      end = newline == std::string_view::npos ? all.size() : newline + 1;
    }
    bounds_.push_back(end);
  }
  if (bounds_.size() == 1) bounds_.push_back(bounds_.back());  // one empty chunk
}

void text_chunks::fail(std::uint64_t byte_offset, const std::string& what) const {
  const std::string_view all = text().substr(0, byte_offset);
  const auto line = 1 + std::count(all.begin(), all.end(), '\n');
  throw parse_error(path().string() + ":" + std::to_string(line) + ": " + what);
}

std::size_t split_fields(std::string_view line, std::span<std::string_view> out) {
  std::size_t count = 0;
  std::size_t pos = 0;
  while (true) {
    while (pos < line.size() && is_separator(line[pos])) ++pos;
    if (pos == line.size()) return count;
    const std::size_t begin = pos;
    while (pos < line.size() && !is_separator(line[pos])) ++pos;
    if (count == out.size()) return count + 1;
    out[count++] = line.substr(begin, pos - begin);
  }
}

bool is_blank_or_comment(std::string_view line, std::string_view markers) {
  const std::size_t first = line.find_first_not_of(" \t\r");
  return first == std::string_view::npos || markers.find(line[first]) != std::string_view::npos;
}

bool parse_unsigned(std::string_view field, std::uint64_t max, std::uint64_t& value) {
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value);
  return ec == std::errc{} && ptr == end && value <= max;
}

}  // namespace bam::graph

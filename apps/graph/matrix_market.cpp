// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/matrix_market.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <limits>

#include "apps/graph/error.hpp"
#include "apps/common/parallel.hpp"

namespace bam::graph {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool parses_as_real(std::string_view field) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return ec == std::errc{} && ptr == field.data() + field.size();
}

/// Next line at or after pos: [pos, end) without the '\n'.
std::string_view line_at(std::string_view all, std::size_t pos) {
  const std::size_t end = std::min(all.find('\n', pos), all.size());
  return all.substr(pos, end - pos);
}

}  // namespace

matrix_market_source::matrix_market_source(std::filesystem::path path, std::uint64_t chunk_bytes)
    : text_(std::move(path), chunk_bytes) {
  const std::string_view all = text_.text();
  const std::string_view banner = line_at(all, 0);
  std::array<std::string_view, 5> words;
  if (split_fields(banner, words) != 5 || lower(words[0]) != "%%matrixmarket") {
    text_.fail(0,
               "not a Matrix Market file: expected \"%%MatrixMarket matrix coordinate "
               "<field> <symmetry>\"");
  }
  if (lower(words[1]) != "matrix" || lower(words[2]) != "coordinate") {
    text_.fail(0, fmt::format("only \"matrix coordinate\" files hold graphs, this is \"{} {}\"",
                              words[1], words[2]));
  }
  const std::string field = lower(words[3]);
  if (field == "pattern") {
    values_ = value_kind::pattern;
  } else if (field == "integer") {
    values_ = value_kind::integer;
  } else if (field == "real" || field == "double") {
    values_ = value_kind::real;
  } else {
    text_.fail(0, fmt::format("unsupported field \"{}\" (pattern, integer or real)", words[3]));
  }
  const std::string symmetry = lower(words[4]);
  if (symmetry != "general" && symmetry != "symmetric") {
    text_.fail(0, fmt::format("unsupported symmetry \"{}\" (general or symmetric)", words[4]));
  }
  symmetric_ = symmetry == "symmetric";

  // Comments, then the size line "rows cols entries".
  std::size_t pos = banner.size() + 1;
  while (pos < all.size() && is_blank_or_comment(line_at(all, pos), "%")) {
    pos += line_at(all, pos).size() + 1;
  }
  if (pos >= all.size()) text_.fail(all.size(), "truncated: no size line after the banner");
  std::array<std::string_view, 3> size_fields;
  std::uint64_t cols = 0;
  std::uint64_t declared_entries = 0;
  const std::string_view size_line = line_at(all, pos);
  if (split_fields(size_line, size_fields) != 3 ||
      !parse_unsigned(size_fields[0], std::numeric_limits<std::uint64_t>::max() - 1, rows_) ||
      !parse_unsigned(size_fields[1], std::numeric_limits<std::uint64_t>::max() - 1, cols) ||
      !parse_unsigned(size_fields[2], std::numeric_limits<std::uint64_t>::max(),
                      declared_entries)) {
    text_.fail(pos, "expected the size line \"rows columns entries\"");
  }
  if (rows_ != cols) {
    text_.fail(pos, fmt::format("a graph needs a square matrix, this one is {} x {}", rows_, cols));
  }
  text_.set_body_offset(std::min(pos + size_line.size() + 1, all.size()));

  std::atomic<std::uint64_t> entries{0};
  apps::parallel_for(text_.num_chunks(), 0, [&](std::uint64_t c, unsigned) {
    std::uint64_t count = 0;
    for_each_line(text_.chunk(c), text_.chunk_begin(c), [&](std::string_view line, std::uint64_t) {
      if (!is_blank_or_comment(line, "%")) ++count;
    });
    entries.fetch_add(count, std::memory_order_relaxed);
  });
  if (entries.load() != declared_entries) {
    text_.fail(all.size(), fmt::format("the size line declares {} entries but the file has {}{}",
                                       declared_entries, entries.load(),
                                       entries.load() < declared_entries ? " (truncated?)" : ""));
  }
}

void matrix_market_source::parse_entry(std::string_view line, std::uint64_t offset,
                                       raw_edge& e) const {
  std::array<std::string_view, 3> fields;
  const std::size_t expected = values_ == value_kind::pattern ? 2 : 3;
  const std::size_t found = split_fields(line, fields);
  if (found != expected) {
    text_.fail(offset, fmt::format("a {} entry has {} fields, this one has {}",
                                   expected == 2 ? "pattern" : "valued", expected, found));
  }
  std::uint64_t i = 0;
  std::uint64_t j = 0;
  if (!parse_unsigned(fields[0], rows_, i) || !parse_unsigned(fields[1], rows_, j) || i == 0 ||
      j == 0) {
    text_.fail(offset, fmt::format("indices must be integers in 1..{}, got \"{} {}\"", rows_,
                                   fields[0], fields[1]));
  }
  e = {i - 1, j - 1, 0};
  if (values_ == value_kind::integer) {
    std::uint64_t w = 0;
    if (!parse_unsigned(fields[2], std::numeric_limits<weight_t>::max(), w)) {
      text_.fail(offset, fmt::format("integer values become weights and must be in 0..{}, got "
                                     "\"{}\"",
                                     std::numeric_limits<weight_t>::max(), fields[2]));
    }
    e.w = static_cast<weight_t>(w);
  } else if (values_ == value_kind::real && !parses_as_real(fields[2])) {
    text_.fail(offset, fmt::format("\"{}\" is not a real number", fields[2]));
  }
}

void matrix_market_source::read_chunk(std::uint64_t chunk, std::vector<raw_edge>& out) const {
  out.clear();
  for_each_line(text_.chunk(chunk), text_.chunk_begin(chunk),
                [&](std::string_view line, std::uint64_t offset) {
                  if (is_blank_or_comment(line, "%")) return;
                  parse_entry(line, offset, out.emplace_back());
                });
}

}  // namespace bam::graph

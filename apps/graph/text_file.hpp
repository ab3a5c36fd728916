// SPDX-License-Identifier: Apache-2.0
// A memory-mapped text file cut into line-aligned chunks that threads parse independently, with
// errors reported as "<file>:<line>: <what>".
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "apps/common/mapped_file.hpp"

namespace bam::graph {

class text_chunks {
 public:
  /**
   * @brief Maps `path` and cuts it into chunks of about `chunk_bytes`, each ending just after a
   *        newline (or at the end of the file).
   * @throw io_error when the file cannot be read.
   */
  explicit text_chunks(std::filesystem::path path, std::uint64_t chunk_bytes = 8u << 20);

  /** @brief Re-cuts the chunks to start at body_offset (after a header the caller parsed). */
  void set_body_offset(std::uint64_t body_offset);

  [[nodiscard]] std::string_view text() const;
  [[nodiscard]] const std::filesystem::path& path() const { return map_.path(); }
  [[nodiscard]] std::uint64_t num_chunks() const { return bounds_.size() - 1; }
  [[nodiscard]] std::uint64_t chunk_begin(std::uint64_t c) const { return bounds_[c]; }
  [[nodiscard]] std::string_view chunk(std::uint64_t c) const {
    return text().substr(bounds_[c], bounds_[c + 1] - bounds_[c]);
  }

  /** @brief Throws parse_error "<path>:<line of byte_offset>: <what>". */
  [[noreturn]] void fail(std::uint64_t byte_offset, const std::string& what) const;

 private:
  apps::mapped_file map_;
  std::uint64_t chunk_bytes_;
  std::vector<std::uint64_t> bounds_;
};

/**
 * @brief Calls fn(line, byte_offset_of_line) for every line of `chunk` (without its '\n'),
 *        where `chunk` starts at byte `chunk_offset` of the file.
 */
template <class Fn>
void for_each_line(std::string_view chunk, std::uint64_t chunk_offset, Fn&& fn) {
  std::size_t pos = 0;
  while (pos < chunk.size()) {
    std::size_t end = chunk.find('\n', pos);
    if (end == std::string_view::npos) end = chunk.size();
    fn(chunk.substr(pos, end - pos), chunk_offset + pos);
    pos = end + 1;
  }
}

/**
 * @brief Splits `line` at spaces, tabs and '\r' into at most out.size() fields.
 * @return The number of fields found, which is out.size() + 1 when there are more than fit.
 */
std::size_t split_fields(std::string_view line, std::span<std::string_view> out);

/** @brief True for blank lines and lines whose first non-blank character is in `markers`. */
bool is_blank_or_comment(std::string_view line, std::string_view markers);

/**
 * @brief Parses a whole field as a decimal unsigned integer no larger than `max`.
 * @return false when the field is not such a number.
 */
bool parse_unsigned(std::string_view field, std::uint64_t max, std::uint64_t& value);

}  // namespace bam::graph

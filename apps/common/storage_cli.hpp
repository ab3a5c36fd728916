// SPDX-License-Identifier: Apache-2.0
// The storage flags every app and benchmark that reads through bam takes, with the same names,
// defaults and checks: --cache-fraction, --cache-mb, --page-bytes, --queues, --depth, --workers.
#pragma once

#include "apps/common/storage.hpp"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace bam::apps {

/// What the storage flags set (storage_options' defaults, the cache as a fraction of the data).
struct storage_flags {
  double cache_fraction = 0.125;         ///< cache size as a fraction of the data read through it
  std::optional<std::uint64_t> cache_mb{};  ///< cache size in MiB; overrides cache_fraction
  std::size_t page_bytes = storage_options{}.page_bytes;
  std::uint32_t queues = storage_options{}.queues;
  std::uint32_t depth = storage_options{}.depth;
  std::uint32_t workers = storage_options{}.workers;

  /// Cache bytes for `data_bytes` of data: --cache-mb, else the fraction of it (at least 1).
  [[nodiscard]] std::uint64_t cache_bytes(std::uint64_t data_bytes) const;
  /// The builder's options for `data_bytes` of data on `backend`.
  [[nodiscard]] storage_options options(storage_backend backend, bool gpu, std::uint64_t data_bytes) const;
};

/// Whether add_storage_options adds --cache-fraction and --cache-mb (a program that sweeps cache
/// sizes itself leaves them out).
enum class cache_size_flags { with, without };

/// Adds the storage flags to `cli` as the option group "storage"; each rejects a bad value with
/// a message naming the flag.
void add_storage_options(CLI::App& cli, storage_flags& f, cache_size_flags cache = cache_size_flags::with);

}  // namespace bam::apps

// SPDX-License-Identifier: Apache-2.0
#include "apps/common/storage_cli.hpp"

#include <algorithm>
#include <string>

namespace bam::apps {

namespace {

constexpr std::size_t max_page_bytes = std::size_t{1} << 30;

/// A page size the cache accepts: a whole number of blocks, at most max_page_bytes.
const CLI::Validator page_size_check(
    [](std::string& value) -> std::string {
      const std::uint64_t bytes = std::stoull(value);
      if (bytes == 0 || bytes % cached_file::block_bytes != 0 || bytes > max_page_bytes) {
        return "the page size must be a multiple of " + std::to_string(cached_file::block_bytes) + " bytes up to " +
               std::to_string(max_page_bytes) + ", not " + value;
      }
      return "";
    },
    "MULTIPLE OF 512", "page size");

}  // namespace

std::uint64_t storage_flags::cache_bytes(std::uint64_t data_bytes) const {
  if (cache_mb) return *cache_mb << 20;
  return std::max<std::uint64_t>(std::uint64_t(cache_fraction * double(data_bytes)), 1);
}

storage_options storage_flags::options(storage_backend backend, bool gpu, std::uint64_t data_bytes) const {
  storage_options o;
  o.backend = backend;
  o.gpu = gpu;
  o.page_bytes = page_bytes;
  o.cache_bytes = cache_bytes(data_bytes);
  o.queues = queues;
  o.depth = depth;
  o.workers = workers;
  return o;
}

void add_storage_options(CLI::App& cli, storage_flags& f, cache_size_flags cache) {
  auto* g = cli.add_option_group("storage", "the page cache and the emulated NVMe controller");
  if (cache == cache_size_flags::with) {
    g->add_option("--cache-fraction", f.cache_fraction, "page cache size as a fraction of the data read through it")
        ->check(CLI::Range(1e-6, 1.0))
        ->capture_default_str();
    g->add_option("--cache-mb", f.cache_mb, "page cache size in MiB (overrides --cache-fraction)")
        ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  }
  g->add_option("--page-bytes", f.page_bytes, "cache page size in bytes (a multiple of 512)")
      ->check(CLI::PositiveNumber & page_size_check)
      ->capture_default_str();
  g->add_option("--queues", f.queues, "NVMe I/O queue pairs")->check(CLI::Range(1, 1024))->capture_default_str();
  g->add_option("--depth", f.depth, "entries per queue")->check(CLI::Range(2, 65536))->capture_default_str();
  g->add_option("--workers", f.workers, "emulated controller threads (default: 8 with a GPU, 1 without)")
      ->check(CLI::Range(1, 256));
}

}  // namespace bam::apps

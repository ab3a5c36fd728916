// SPDX-License-Identifier: Apache-2.0
// Example: a file as an NVMe namespace.
//
// host::file_store serves a namespace from a file (or a block device), with O_DIRECT where the
// file system allows it. Here a file of doubles is read and updated through a bam::array, and
// the file is checked after flush(). Runs on CPU threads (use_gpu = false) on any machine;
// usage: file_namespace_example [PATH]  (default: a file in the system's temporary folder).
#include <bam/host/emulator/emulated_system.hpp>
#include <bam/host/emulator/file_store.hpp>

#include <bam/page_cache.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

int main(int argc, char** argv) try {
  constexpr std::uint64_t n = 1 << 16;  // 512 KiB of doubles
  const std::filesystem::path path =
      argc > 1 ? std::filesystem::path(argv[1])
               : std::filesystem::temp_directory_path() / ("bam_file_example_" + std::to_string(getpid()) + ".bin");

  // 1. The file: n doubles, element i = i / 2.
  {
    std::vector<double> values(n);
    for (std::uint64_t i = 0; i < n; ++i) values[i] = double(i) / 2;
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(values.data()), n * sizeof(double));
  }

  // 2. The namespace over it (512-byte blocks; n_blocks 0: as many as the file holds), one
  //    emulated controller, a 64 KiB cache, and the array.
  auto file = std::make_shared<bam::host::file_store>(bam::host::file_store::options{.path = path.string()});
  bam::host::emulated_system sys({.controllers = {{file}}, .workers_per_controller = 1, .queue_pairs = 4,
                                  .queue_depth = 64, .use_gpu = false});
  bam::page_cache cache(sys.controllers(), sys.memory(), {.page_bytes = 4096, .cache_bytes = 16 * 4096});
  const auto a = cache.map<double>({.name = "halves", .nsid = 1, .start_lba = 0, .count = n});

  // 3. Read every element and double it in place through the cache.
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    const double x = a[i];
    wrong += x != double(i) / 2;
    a.store(i, 2 * x);
  }

  // 4. flush() writes the dirty pages into the file and sends NVMe Flush (the store's fsync).
  cache.flush();
  std::vector<double> back(n);
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(back.data()), n * sizeof(double));
  for (std::uint64_t i = 0; i < n; ++i) wrong += back[i] != double(i);
  std::printf("%s: %llu doubles read, doubled and flushed; %llu wrong\n\n%s", path.c_str(), (unsigned long long)n,
              (unsigned long long)wrong, cache.stats_table().c_str());
  if (argc == 1) std::filesystem::remove(path);
  return wrong == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "file_namespace_example: %s\n", e.what());
  return 1;
}

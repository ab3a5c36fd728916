// SPDX-License-Identifier: Apache-2.0
// The three namespace stores: RAM, file (checked against the file read independently) and
// synthetic (terabyte-sized, written blocks kept in an overlay), scatter/gather included.
#include <bam/host/emulator/file_store.hpp>
#include <bam/host/emulator/ram_store.hpp>
#include <bam/host/emulator/synthetic_store.hpp>
#include <bam/synthetic.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

namespace {
using namespace bam::host;

std::vector<std::byte> pattern(std::size_t bytes, std::uint64_t seed) {
  std::vector<std::byte> v(bytes);
  bam::synthetic_fill(seed, 0, v.data(), bytes);
  return v;
}

/// A temporary file path removed at scope exit.
struct temp_path {
  explicit temp_path(const std::string& dir = std::filesystem::temp_directory_path())
      : path(dir + "/bam_ns_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter().fetch_add(1))) {}
  ~temp_path() { std::filesystem::remove(path); }
  static std::atomic<int>& counter() {
    static std::atomic<int> c{0};
    return c;
  }
  std::string path;
};

TEST(RamStore, ReadsZerosThenWhatWasWritten) {
  ram_store ns(512, 1 << 20);
  EXPECT_EQ(ns.block_size(), 512u);
  EXPECT_EQ(ns.n_blocks(), 1u << 20);
  std::vector<std::byte> buf(4096, std::byte{0xff});
  ns.read(1000, 8, buf.data());
  EXPECT_EQ(buf, std::vector<std::byte>(4096));
  const auto data = pattern(4096, 1);
  ns.write(1000, 8, data.data());
  ns.read(1000, 8, buf.data());
  EXPECT_EQ(buf, data);
}

TEST(RamStore, ScatterGatherSegmentsMapToConsecutiveBytes) {
  ram_store ns(512, 64);
  const auto data = pattern(2048, 2);
  std::vector<std::byte> a(400), b(412), c(1236);  // 4-byte multiples, unequal pieces
  const std::span<const std::byte> src[] = {{data.data(), 400}, {data.data() + 400, 1648}};
  ns.writev(4, 4, src);
  const std::span<std::byte> dst[] = {a, b, c, };
  ns.readv(4, 4, dst);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), data.begin()));
  EXPECT_TRUE(std::equal(b.begin(), b.end(), data.begin() + 400));
  EXPECT_TRUE(std::equal(c.begin(), c.end(), data.begin() + 812));
}

TEST(RamStore, FillSyntheticMakesItReadLikeASyntheticNamespace) {
  ram_store ns(4096, 1000);  // not a whole number of fill chunks
  fill_synthetic(ns, 21, 3);
  std::vector<std::byte> buf(4096);
  for (std::uint64_t lba : {0ull, 255ull, 256ull, 999ull}) {
    ns.read(lba, 1, buf.data());
    EXPECT_EQ(bam::synthetic_mismatch(21, lba * 4096, buf.data(), 4096), 4096u) << lba;
  }
}

TEST(RamStore, RejectsBadRangesAndSizes) {
  EXPECT_THROW(ram_store(500, 10), bam::invalid_argument);
  ram_store ns(4096, 16);
  std::vector<std::byte> buf(4096 * 2);
  EXPECT_THROW(ns.read(15, 2, buf.data()), bam::invalid_argument);
  EXPECT_THROW(ns.read(16, 1, buf.data()), bam::invalid_argument);
  const std::span<std::byte> short_seg[] = {{buf.data(), 100}};
  EXPECT_THROW(ns.readv(0, 1, short_seg), bam::invalid_argument);
}

TEST(SyntheticStore, TerabyteNamespaceReadsItsContentAtRandomOffsets) {
  synthetic_store ns({.block_size = 4096, .n_blocks = (1ull << 40) / 4096, .seed = 77});
  std::mt19937_64 rng(1);
  std::vector<std::byte> buf(8 * 4096);
  for (int i = 0; i < 200; ++i) {
    const std::uint64_t lba = rng() % (ns.n_blocks() - 8);
    ns.read(lba, 8, buf.data());
    ASSERT_EQ(bam::synthetic_mismatch(77, lba * 4096, buf.data(), buf.size()), buf.size());
  }
  ns.read(ns.n_blocks() - 1, 1, buf.data());  // the last block of the terabyte
  EXPECT_EQ(bam::synthetic_mismatch(77, (1ull << 40) - 4096, buf.data(), 4096), 4096u);
}

TEST(SyntheticStore, WritesReadBackAndLeaveNeighboursSynthetic) {
  synthetic_store ns({.block_size = 512, .n_blocks = 1ull << 31, .seed = 5, .overlay_blocks = 64});
  const auto data = pattern(3 * 512, 9);
  ns.write(1'000'000'001, 3, data.data());
  EXPECT_EQ(ns.written_blocks(), 3u);
  std::vector<std::byte> buf(5 * 512);
  ns.read(1'000'000'000, 5, buf.data());
  EXPECT_EQ(bam::synthetic_mismatch(5, 1'000'000'000ull * 512, buf.data(), 512), 512u);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), buf.begin() + 512));
  EXPECT_EQ(bam::synthetic_mismatch(5, 1'000'000'004ull * 512, buf.data() + 4 * 512, 512), 512u);
  // Rewriting a block reuses its overlay entry; reading across segments splits blocks.
  const auto again = pattern(512, 10);
  ns.write(1'000'000'002, 1, again.data());
  EXPECT_EQ(ns.written_blocks(), 3u);
  std::vector<std::byte> a(256), b(768);
  const std::span<std::byte> dst[] = {a, b};
  ns.readv(1'000'000'001, 2, dst);
  EXPECT_TRUE(std::equal(a.begin(), a.end(), data.begin()));
  EXPECT_TRUE(std::equal(b.begin(), b.begin() + 256, data.begin() + 256));
  EXPECT_TRUE(std::equal(b.begin() + 256, b.end(), again.begin()));
}

TEST(SyntheticStore, FullOverlayThrowsNamespaceFull) {
  synthetic_store ns({.block_size = 512, .n_blocks = 1000, .seed = 1, .overlay_blocks = 4});
  const auto data = pattern(512, 1);
  for (std::uint64_t lba = 0; lba < 4; ++lba) ns.write(lba * 100, 1, data.data());
  EXPECT_THROW(ns.write(999, 1, data.data()), namespace_full_error);
  EXPECT_NO_THROW(ns.write(100, 1, data.data()));  // an existing block stays writable
  std::vector<std::byte> buf(512);
  ns.read(999, 1, buf.data());
  EXPECT_EQ(bam::synthetic_mismatch(1, 999 * 512, buf.data(), 512), 512u);
}

TEST(SyntheticStore, ConcurrentWritersAndReadersOfOverlappingBlocks) {
  synthetic_store ns({.block_size = 512, .n_blocks = 1 << 20, .seed = 3, .overlay_blocks = 4096});
  constexpr int writers = 3;
  constexpr std::uint64_t blocks = 256;
  std::atomic<int> torn{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      // Every writer writes every block, each with a block filled with its own 32-bit value.
      std::vector<std::uint32_t> block(128, 0x1000u + std::uint32_t(w));
      for (std::uint64_t lba = 0; lba < blocks; ++lba) {
        ns.write(lba, 1, reinterpret_cast<const std::byte*>(block.data()));
      }
    });
  }
  threads.emplace_back([&] {
    std::vector<std::uint32_t> block(128);
    for (int pass = 0; pass < 4; ++pass) {
      for (std::uint64_t lba = 0; lba < blocks; ++lba) {
        ns.read(lba, 1, reinterpret_cast<std::byte*>(block.data()));
        // Each word is the synthetic word or some writer's value, never a mix within a word.
        for (std::size_t i = 0; i < block.size(); ++i) {
          const std::uint32_t v = block[i];
          const std::uint32_t synth = std::uint32_t(
              bam::synthetic_word(3, (lba * 512 + i * 4) / 8) >> (((i * 4) % 8) * 8));
          if (v != synth && (v < 0x1000u || v >= 0x1000u + writers)) torn.fetch_add(1);
        }
      }
    }
  });
  for (auto& t : threads) t.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(ns.written_blocks(), blocks);
}

TEST(FileStore, RoundTripMatchesTheFileReadIndependently) {
  temp_path tmp;
  {
    file_store ns({.path = tmp.path, .block_size = 512, .n_blocks = 256, .create = true});
    EXPECT_EQ(ns.n_blocks(), 256u);
    EXPECT_EQ(std::filesystem::file_size(tmp.path), 256u * 512);
    alignas(4096) static std::byte aligned[8192];
    const auto data = pattern(8192, 4);
    std::copy(data.begin(), data.end(), aligned);
    ns.write(8, 16, aligned);                // aligned: may go through O_DIRECT
    const auto odd = pattern(1024, 6);
    ns.write(100, 2, odd.data());            // unaligned buffer/offset: buffered
    ns.flush();
    std::vector<std::byte> back(8192);
    ns.read(8, 16, back.data());
    EXPECT_EQ(back, data);
    // The file, read with plain pread, holds the same bytes at the same offsets.
    const int fd = ::open(tmp.path.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    std::vector<std::byte> raw(8192);
    ASSERT_EQ(::pread(fd, raw.data(), raw.size(), 8 * 512), 8192);
    EXPECT_EQ(raw, data);
    ASSERT_EQ(::pread(fd, raw.data(), 1024, 100 * 512), 1024);
    EXPECT_TRUE(std::equal(odd.begin(), odd.end(), raw.begin()));
    ::close(fd);
  }
  // Reopening sizes the namespace from the file.
  file_store again({.path = tmp.path, .block_size = 4096});
  EXPECT_EQ(again.n_blocks(), 32u);
}

TEST(FileStore, FallsBackWhenTheFileSystemRefusesODirect) {
  if (!std::filesystem::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm";
  temp_path tmp("/dev/shm");
  file_store ns({.path = tmp.path, .block_size = 4096, .n_blocks = 4, .create = true});
  alignas(4096) static std::byte aligned[4096];
  const auto data = pattern(4096, 8);
  std::copy(data.begin(), data.end(), aligned);
  ns.write(1, 1, aligned);
  std::vector<std::byte> back(4096);
  ns.read(1, 1, back.data());
  EXPECT_EQ(back, data);
}

TEST(FileStore, MissingOrShortFilesAreErrors) {
  EXPECT_THROW(file_store({.path = "/nonexistent/dir/x", .block_size = 512}), bam::system_error);
  temp_path tmp;
  { file_store ns({.path = tmp.path, .block_size = 512, .n_blocks = 2, .create = true}); }
  EXPECT_THROW(file_store({.path = tmp.path, .block_size = 512, .n_blocks = 3}),
               bam::invalid_argument);
}

TEST(FileStore, ZeroPastEndReadsZerosBeyondTheFileAndLeavesItsSize) {
  temp_path tmp;
  std::vector<std::byte> data(512, std::byte{0x5a});
  {
    file_store ns({.path = tmp.path, .block_size = 512, .n_blocks = 1, .create = true});
    ns.write(0, 1, data.data());
  }
  file_store ns({.path = tmp.path, .block_size = 512, .n_blocks = 8, .zero_past_end = true});
  EXPECT_EQ(ns.n_blocks(), 8u);
  std::vector<std::byte> back(3 * 512, std::byte{0xff});
  ns.read(0, 3, back.data());
  EXPECT_TRUE(std::equal(data.begin(), data.end(), back.begin()));
  EXPECT_TRUE(std::all_of(back.begin() + 512, back.end(), [](std::byte b) { return b == std::byte{0}; }));
  EXPECT_EQ(std::filesystem::file_size(tmp.path), 512u) << "reading past the end must not grow the file";
}

}  // namespace

// SPDX-License-Identifier: Apache-2.0
#include "apps/graph/cpu_fast/bfs.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <span>

#include "apps/graph/bfs.hpp"
#include "apps/graph/frontier.hpp"

namespace bam::graph::cpu_fast {
namespace {

/// Bit per vertex. Bits are set with a relaxed fetch_or where members share words, or with
/// plain stores where each member owns whole words (ranges cut at multiples of 64).
class bitmap {
 public:
  explicit bitmap(std::uint64_t n) : words_((n + 63) / 64) {}
  [[nodiscard]] bool get(std::uint64_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void set_owned(std::uint64_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
  void set_shared(std::uint64_t i) {
    std::atomic_ref(words_[i / 64]).fetch_or(std::uint64_t{1} << (i % 64), std::memory_order_relaxed);
  }
  [[nodiscard]] std::span<std::uint64_t> words() { return words_; }
  void swap(bitmap& other) noexcept { words_.swap(other.words_); }

 private:
  std::vector<std::uint64_t> words_;
};

/// Vertex ranges handed to one claim; a multiple of 64 so bottom-up members own whole words.
constexpr std::uint64_t vertex_grain = 1024;
/// Queue entries handed to one claim in a top-down step.
constexpr std::uint64_t queue_grain = 64;

/// The frontier as a queue: entries [0, size) of `ids`, appended by members in blocks.
template <class Id>
struct vertex_queue {
  std::vector<Id> ids;
  std::atomic<std::uint64_t> size{0};

  explicit vertex_queue(std::uint64_t n) : ids(n) {}
  /// Appends a member's discoveries; the region's end publishes them (see thread_team::run).
  void append(const std::vector<Id>& local) {
    const std::uint64_t at = size.fetch_add(local.size(), std::memory_order_relaxed);
    std::copy(local.begin(), local.end(), ids.begin() + static_cast<std::ptrdiff_t>(at));
  }
};

template <class Id>
class search {
 public:
  search(const csr_view<Id>& g, thread_team& team)
      : g_(g), team_(team), depth_(g.num_vertices(), bfs_unreached), queue_(g.num_vertices()),
        next_(g.num_vertices()), local_(team.size()) {}

  std::vector<std::uint32_t> run(std::uint64_t source, const bfs_options& options) {
    const std::uint64_t n = g_.num_vertices();
    depth_[source] = 0;
    queue_.ids[0] = static_cast<Id>(source);
    queue_.size = 1;
    std::uint64_t edges_to_check = g_.num_edges();
    std::uint64_t scout = g_.degree(source);
    std::uint32_t level = 0;
    while (queue_.size.load(std::memory_order_relaxed) != 0) {
      if (g_.symmetric && scout > edges_to_check / options.alpha) {
        bitmap front(n), curr(n);
        queue_to_bitmap(front);
        std::uint64_t awake = queue_.size.load(std::memory_order_relaxed);
        std::uint64_t old_awake = 0;
        do {
          old_awake = awake;
          awake = bottom_up(front, curr, level++);
          front.swap(curr);
        } while (awake >= old_awake || awake > n / options.beta);
        bitmap_to_queue(front);
        scout = 1;
      } else {
        edges_to_check -= std::min(edges_to_check, scout);
        scout = top_down(level++);
      }
    }
    return std::move(depth_);
  }

 private:
  /// Expands queue_ into next_ (then swaps them); returns the new frontier's edge count.
  std::uint64_t top_down(std::uint32_t level) {
    const std::uint64_t size = queue_.size.load(std::memory_order_relaxed);
    next_.size = 0;
    std::atomic<std::uint64_t> scout{0};
    team_.run([&](team_member& m) {
      std::vector<Id>& found = local_[m.rank()];
      found.clear();
      std::uint64_t edges = 0;
      m.for_ranges(size, queue_grain, [&](std::uint64_t a, std::uint64_t z) {
        for (std::uint64_t i = a; i < z; ++i) {
          bfs_expand(g_, queue_.ids[i], level, std::span(depth_), [&](Id v) {
            found.push_back(v);
            edges += g_.degree(v);
          });
        }
      });
      next_.append(found);
      scout.fetch_add(edges, std::memory_order_relaxed);
    });
    std::swap(queue_.ids, next_.ids);
    queue_.size = next_.size.load(std::memory_order_relaxed);
    return scout.load(std::memory_order_relaxed);
  }

  /// Every unreached vertex with a neighbor in `front` gets depth level + 1 and a bit in
  /// `next`; returns how many did. Each member owns the vertices (and words) of its ranges.
  std::uint64_t bottom_up(const bitmap& front, bitmap& next, std::uint32_t level) {
    std::fill(next.words().begin(), next.words().end(), 0);
    std::atomic<std::uint64_t> awake{0};
    team_.run([&](team_member& m) {
      std::uint64_t mine = 0;
      m.for_ranges(g_.num_vertices(), vertex_grain, [&](std::uint64_t a, std::uint64_t z) {
        for (std::uint64_t v = a; v < z; ++v) {
          if (depth_[v] != bfs_unreached) continue;
          for (const Id u : g_.neighbors_of(v)) {
            if (front.get(u)) {
              depth_[v] = level + 1;
              next.set_owned(v);
              ++mine;
              break;
            }
          }
        }
      });
      awake.fetch_add(mine, std::memory_order_relaxed);
    });
    return awake.load(std::memory_order_relaxed);
  }

  void queue_to_bitmap(bitmap& out) {
    const std::uint64_t size = queue_.size.load(std::memory_order_relaxed);
    team_.run([&](team_member& m) {
      m.for_ranges(size, vertex_grain, [&](std::uint64_t a, std::uint64_t z) {
        for (std::uint64_t i = a; i < z; ++i) out.set_shared(queue_.ids[i]);
      });
    });
  }

  void bitmap_to_queue(bitmap& in) {
    queue_.size = 0;
    const std::span<std::uint64_t> words = in.words();
    team_.run([&](team_member& m) {
      std::vector<Id>& found = local_[m.rank()];
      found.clear();
      m.for_ranges(words.size(), vertex_grain / 64, [&](std::uint64_t a, std::uint64_t z) {
        for (std::uint64_t w = a; w < z; ++w) {
          for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1) {
            found.push_back(static_cast<Id>(w * 64 + static_cast<std::uint64_t>(std::countr_zero(bits))));
          }
        }
      });
      queue_.append(found);
    });
  }

  const csr_view<Id>& g_;
  thread_team& team_;
  std::vector<std::uint32_t> depth_;
  vertex_queue<Id> queue_;
  vertex_queue<Id> next_;
  std::vector<std::vector<Id>> local_;  ///< per-member discoveries, reused between steps
};

}  // namespace

template <class Id>
std::vector<std::uint32_t> bfs(const csr_view<Id>& g, std::uint64_t source, thread_team& team,
                               const bfs_options& options) {
  check_source("BFS", source, g.num_vertices());
  return search<Id>(g, team).run(source, options);
}

template std::vector<std::uint32_t> bfs(const csr_view<std::uint32_t>&, std::uint64_t,
                                        thread_team&, const bfs_options&);
template std::vector<std::uint32_t> bfs(const csr_view<std::uint64_t>&, std::uint64_t,
                                        thread_team&, const bfs_options&);

}  // namespace bam::graph::cpu_fast

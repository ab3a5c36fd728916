// SPDX-License-Identifier: Apache-2.0
// Reference connected components: Shiloach-Vishkin hooking and shortcutting (GAP's cc_sv), as
// the per-edge and per-vertex steps a GPU kernel runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "apps/graph/csr_view.hpp"

namespace bam::graph {

/**
 * @brief Hooking step for edge (u, v): if their labels differ and the larger label is still a
 *        root, point it at the smaller one.
 * @return true when a label changed (another round is needed).
 * @note Invariant: comp[x] <= x, and comp[x] is a vertex of x's component, so the labels form a
 *       forest whose roots are each component's smallest vertex. Concurrent hooks of one root
 *       may overwrite each other (relaxed loads and stores): any winner keeps the invariant.
 */
template <class Id>
bool cc_hook(std::span<Id> comp, Id u, Id v) {
  const Id cu = std::atomic_ref(comp[u]).load(std::memory_order_relaxed);
  const Id cv = std::atomic_ref(comp[v]).load(std::memory_order_relaxed);
  if (cu == cv) return false;
  const Id high = cu > cv ? cu : cv;
  const Id low = cu > cv ? cv : cu;
  std::atomic_ref<Id> root(comp[high]);
  if (root.load(std::memory_order_relaxed) != high) return false;
  root.store(low, std::memory_order_relaxed);
  return true;
}

/** @brief Shortcutting step: follows labels until x points straight at a root. */
template <class Id>
void cc_shortcut(std::span<Id> comp, Id x) {
  std::atomic_ref<Id> cx(comp[x]);
  Id label = cx.load(std::memory_order_relaxed);
  for (Id up = std::atomic_ref(comp[label]).load(std::memory_order_relaxed); up != label;
       up = std::atomic_ref(comp[label]).load(std::memory_order_relaxed)) {
    label = up;
  }
  cx.store(label, std::memory_order_relaxed);
}

/**
 * @brief Component of every vertex, named by its smallest vertex id. Edges are taken as
 *        undirected, so a directed graph gets its weakly connected components.
 */
template <class Id>
std::vector<Id> connected_components(const csr_view<Id>& g, unsigned threads = 0);

extern template std::vector<std::uint32_t> connected_components(const csr_view<std::uint32_t>&,
                                                                unsigned);
extern template std::vector<std::uint64_t> connected_components(const csr_view<std::uint64_t>&,
                                                                unsigned);

}  // namespace bam::graph

// SPDX-License-Identifier: Apache-2.0
// bam::vec::gpu: turning a list_source into the *store* kernels are instantiated for — a
// rows_view<T> over VRAM or a bam::array<T> — and bounding how many blocks may hold cache pins.
#pragma once

#include "apps/vector/gpu_search.hpp"
#include "apps/vector/rows_view.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

namespace bam::vec::gpu {

/// Calls f(store, T{}) with the source as a store of its element type T.
template <class F>
void visit_store(const list_source& src, F&& f) {
  std::visit(
      [&](const auto& s) {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, const vram_vectors*>) {
          visit_scalar(s->scalar(), [&](auto tag) {
            using T = decltype(tag);
            f(rows_view<T>(static_cast<const T*>(s->data()), s->rows() * s->dim()), tag);
          });
        } else {
          f(s, typename S::value_type{});
        }
      },
      src);
}

/// The page cache's slots behind `src`; 0 for VRAM.
[[nodiscard]] inline std::uint64_t cache_slots(const list_source& src) {
  std::uint64_t slots = 0;
  std::visit(
      [&](const auto& s) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(s)>, const vram_vectors*>) slots = s.cache().n_slots();
      },
      src);
  return slots;
}

/**
 * @brief How many blocks of `warps` warps may run at once over `src`: unbounded (`wanted`) for
 * VRAM; for a bam::array, few enough that the warps' pins (one page each at a time) use at most
 * half of the cache's slots, so evictions always find a victim.
 */
[[nodiscard]] inline std::uint64_t resident_blocks(const list_source& src, unsigned warps, std::uint64_t wanted) {
  const std::uint64_t slots = cache_slots(src);
  if (slots == 0) return wanted;
  return std::max<std::uint64_t>(1, std::min(wanted, slots / (2 * warps)));
}

}  // namespace bam::vec::gpu

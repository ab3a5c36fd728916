// SPDX-License-Identifier: Apache-2.0
#include <bam/host/memory/heap_memory.hpp>

#include <bam/error.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

namespace bam::host {

dma_buffer heap_memory::allocate(std::size_t bytes, memory_kind, std::size_t alignment) {
  BAM_EXPECTS(bytes > 0, "heap_memory::allocate: zero bytes requested");
  BAM_EXPECTS(alignment >= alignof(std::max_align_t) && (alignment & (alignment - 1)) == 0,
              "heap_memory::allocate: alignment must be a power of two, got " + std::to_string(alignment));
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* p = std::aligned_alloc(alignment, rounded);
  if (p == nullptr) throw error("heap_memory::allocate: out of memory for " + std::to_string(bytes) + " bytes");
  std::memset(p, 0, rounded);
  auto* b = static_cast<std::byte*>(p);
  return dma_buffer(dma_span{b, b, bytes}, {reinterpret_cast<std::uint64_t>(b)}, rounded,
                    [](dma_span s) { std::free(s.host); });
}

}  // namespace bam::host

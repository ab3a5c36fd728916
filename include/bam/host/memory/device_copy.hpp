// SPDX-License-Identifier: Apache-2.0
// Copies between host memory and a dma_buffer of any kind: plain memcpy where the CPU reaches
// the buffer, the CUDA runtime where it is VRAM.
#pragma once

#include <bam/memory.hpp>

#include <cstddef>

namespace bam::host {

/// Copies `bytes` from `src` to `dst` at `offset`. @throw bam::error for unreachable memory
void copy_to(const dma_buffer& dst, std::size_t offset, const void* src, std::size_t bytes);
/// Copies `bytes` from `src` at `offset` to `dst`.
void copy_from(void* dst, const dma_buffer& src, std::size_t offset, std::size_t bytes);

}  // namespace bam::host

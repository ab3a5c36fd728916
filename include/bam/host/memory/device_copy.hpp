// SPDX-License-Identifier: Apache-2.0
// Copies between host memory and a dma_buffer of any kind: plain memcpy where the CPU reaches
// the buffer, the CUDA runtime where it is VRAM; ordered after the work queued on a stream.
#pragma once

#include <bam/memory.hpp>
#include <bam/stream.hpp>

#include <cstddef>

namespace bam::host {

/// Waits for the work queued on `stream`; nothing for the default stream (nullptr).
/// @throw bam::invalid_argument naming `who` for a stream in a build without the CUDA runtime
void await_stream(stream_handle stream, const char* who);

/**
 * @brief Copies `bytes` from `src` to `dst` at `offset` and returns once the copy is done.
 * Given a stream, the copy comes after the work queued on it (waiting for that stream only);
 * with the default stream, VRAM is copied after the default stream's work and memory the CPU
 * reaches at once (the caller orders it with kernels).
 * @throw bam::error for unreachable memory, bam::invalid_argument for a stream in a build
 * without the CUDA runtime
 */
void copy_to(const dma_buffer& dst, std::size_t offset, const void* src, std::size_t bytes,
             stream_handle stream = nullptr);
/// Copies `bytes` from `src` at `offset` to `dst`, as copy_to() does.
void copy_from(void* dst, const dma_buffer& src, std::size_t offset, std::size_t bytes,
               stream_handle stream = nullptr);

}  // namespace bam::host

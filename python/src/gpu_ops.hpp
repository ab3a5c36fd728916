// SPDX-License-Identifier: Apache-2.0
// The array operations of the Python package as CUDA kernels on the caller's stream, for caches
// whose queues GPU threads drive. Each call queues its kernels and returns; the caller then
// checks the cache on the same stream (page_cache::check), which waits for that stream only.
#pragma once

#include "mapped_array.hpp"

#include <bam/stream.hpp>

#include <cstdint>

namespace bam::python::gpu {

/// The CUDA device current on this thread (the one a cache built now lives on).
int current_device();
/// CUDA devices present; 0 when there is no driver or no GPU.
int device_count();

/**
 * @brief Position of the first entry of device array index[0, n) outside [0, rows), or n when
 * all are in range; `*bad_value` gets that entry. Waits for `stream` (ordered after its work).
 */
std::uint64_t first_out_of_range(const std::int64_t* index, std::uint64_t n, std::uint64_t rows,
                                 std::int64_t* bad_value, stream_handle stream);

/// out[k * row + j] = a[index[k] * row + j] for k < n, j < row (device pointers).
void gather(const mapped_array::view& a, const std::int64_t* index, std::uint64_t n, std::uint64_t row, void* out,
            stream_handle stream);
/// out[j] = a[first + j] for j < n.
void read(const mapped_array::view& a, std::uint64_t first, std::uint64_t n, void* out, stream_handle stream);
/// a[index[k] * row + j] = values[k * row + j]; with repeated indices one of the rows wins.
void write(const mapped_array::view& a, const std::int64_t* index, std::uint64_t n, std::uint64_t row,
           const void* values, stream_handle stream);
/// a[index[k] * row + j] += values[k * row + j] atomically; float32, int32 and int64 arrays.
void scatter_add(const mapped_array::view& a, const std::int64_t* index, std::uint64_t n, std::uint64_t row,
                 const void* values, stream_handle stream);

}  // namespace bam::python::gpu

// SPDX-License-Identifier: Apache-2.0
// bam::stream_handle: the CUDA stream host operations are ordered with, without the CUDA headers.
#pragma once

struct CUstream_st;  // the CUDA runtime's stream type: cudaStream_t is CUstream_st*

namespace bam {

/**
 * @brief A CUDA stream as bam's host API takes it: a `cudaStream_t` (or torch's
 * `Stream.cuda_stream`, CuPy's `Stream.ptr`, cast), nullptr being the default stream.
 *
 * A host operation given a stream is ordered after the work queued on it before the call and
 * waits for that stream only, never for the whole device. In a build without the CUDA runtime
 * only the default stream exists.
 */
using stream_handle = CUstream_st*;

}  // namespace bam

// SPDX-License-Identifier: Apache-2.0
// Fills benchmark data with bam's synthetic content, so every read can be verified.
#pragma once

#include <bam/host/emulator/namespace_store.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bam::bench {

/// Writes the synthetic content of `seed` into every block of `ns` (all host threads), and the
/// same bytes into `copy` (if not null) and into the file `file_path` (if not empty).
void fill_synthetic(host::namespace_store& ns, std::uint64_t seed, std::byte* copy = nullptr,
                    const std::string& file_path = {});

}  // namespace bam::bench

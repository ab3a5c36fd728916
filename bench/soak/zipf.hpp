// SPDX-License-Identifier: Apache-2.0
// bench/soak: Zipf draws for lanes that cannot afford a CDF search — a table of ranks drawn on
// the host (the CDF method of bench/array_read), which lanes index with a random word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bam::bench::soak {

/**
 * @brief `entries` ranks in [0, units) drawn from a Zipf law of exponent `s` (rank r has weight
 * 1 / (r + 1)^s).
 * @throw bam::invalid_argument when units is 0 or does not fit 32 bits
 */
[[nodiscard]] std::vector<std::uint32_t> zipf_ranks(std::uint64_t units, std::size_t entries, double s,
                                                    std::uint64_t seed);

}  // namespace bam::bench::soak

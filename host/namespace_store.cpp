// SPDX-License-Identifier: Apache-2.0
#include "host/namespace_store.hpp"

#include <string>

namespace bam::host {

void namespace_store::check_block_size(const char* who, std::uint32_t block_size) {
  BAM_EXPECTS(block_size >= 512 && block_size <= 65536 && (block_size & (block_size - 1)) == 0,
              std::string(who) + ": block size " + std::to_string(block_size) +
                  " is not a power of two from 512 to 65536");
}

}  // namespace bam::host

// SPDX-License-Identifier: Apache-2.0
// API placeholder, implemented on main: page_cache::take_recoveries() is declared so that
// bench/soak compiles and links on this branch. Queue-pair recovery does not exist here, so
// there is never an event to report. Delete this file when main's implementation is merged.
#include <bam/page_cache.hpp>

namespace bam {

std::vector<recovery_event> page_cache::take_recoveries() { return {}; }

}  // namespace bam

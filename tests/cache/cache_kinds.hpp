// SPDX-License-Identifier: Apache-2.0
// Test support for cache/: the two test caches as a GoogleTest type list, for typed suites that
// run every case over the unstaged fake and over the staged one (the path that ships).
#pragma once

#include "tests/cache/test_cache.hpp"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

namespace bam::test {

/// test_cache and staged_test_cache.
using cache_kinds = ::testing::Types<test_cache, staged_test_cache>;

/// Names the instances of a typed suite: `Suite/unstaged.Case` and `Suite/staged.Case`.
struct cache_kind_names {
  template <class Cache>
  static std::string GetName(int) {
    return std::is_same_v<Cache, staged_test_cache> ? "staged" : "unstaged";
  }
};

}  // namespace bam::test

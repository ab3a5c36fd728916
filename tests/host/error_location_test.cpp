// SPDX-License-Identifier: Apache-2.0
// Error messages name where they were raised relative to the repository root ("host/x.cpp:12"),
// never by the build machine's absolute path (cmake/bam_compile_options.cmake maps __FILE__).
#include <bam/error.hpp>
#include <bam/page_cache.hpp>

#include <bam/host/emulator/ram_store.hpp>
#include "tests/array/array_rig.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

using namespace bam;

/// The file of the "(file:line)" a BAM_EXPECTS message ends with.
std::string location_file(const std::string& what) {
  const auto open = what.rfind('(');
  const auto colon = what.rfind(':');
  if (open == std::string::npos || colon == std::string::npos || colon < open) return "<no location in: " + what + ">";
  return what.substr(open + 1, colon - open - 1);
}

std::string message_of_failed_expectation() {
  try {
    BAM_EXPECTS(false, "a refused argument");
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ErrorLocation, AnExpectationInATestNamesItsFileFromTheRepositoryRoot) {
  const std::string what = message_of_failed_expectation();
  EXPECT_EQ(location_file(what), "tests/host/error_location_test.cpp") << what;
}

TEST(ErrorLocation, AnExpectationInTheHostLibraryNamesItsFileFromTheRepositoryRoot) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  test::rig r({{ram}}, test::small_cache(4096, 4));
  try {
    (void)r.cache->stats(5);  // no array 5: refused in host/page_cache.cpp
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    const std::string file = location_file(e.what());
    EXPECT_EQ(file.rfind("host/", 0), 0u) << e.what();
    EXPECT_EQ(file.find(".."), std::string::npos) << e.what();
    EXPECT_NE(file.front(), '/') << e.what();
  }
}

TEST(ErrorLocation, AnExpectationInAPublicHeaderNamesItsFileFromTheRepositoryRoot) {
  auto ram = std::make_shared<host::ram_store>(512, 1 << 12);
  test::rig r({{ram}}, test::small_cache(4096, 4));
  struct twelve_bytes {
    std::uint32_t w[3];
  };
  try {
    (void)r.cache->map<twelve_bytes>({.name = "odd", .nsid = 1, .start_lba = 0, .count = 10});  // 12 does not divide 4096
    FAIL() << "expected invalid_argument";
  } catch (const invalid_argument& e) {
    EXPECT_EQ(location_file(e.what()), "include/bam/page_cache.hpp") << e.what();
  }
}

}  // namespace

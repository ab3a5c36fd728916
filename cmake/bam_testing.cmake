# SPDX-License-Identifier: Apache-2.0
# The one way a test is registered (tests/, tests/vector, tests/apps, bench/soak): included from
# the top-level CMakeLists.txt when BAM_BUILD_TESTS is on.

set(BAM_TEST_TIMEOUT 600 CACHE STRING "Seconds before ctest kills a test that names no TIMEOUT")

#[[ bam_add_test(NAME <name> SOURCES <files...> [LIBS <targets...>]
                 [LABELS <labels...>] [TIMEOUT <seconds>] [PROPERTIES <test properties...>])
    A GoogleTest executable <name> linking bam::bam; each TEST in it becomes a ctest test.
    bam_add_test(NAME <name> COMMAND <command...>
                 [LABELS <labels...>] [TIMEOUT <seconds>] [PROPERTIES <test properties...>])
    One ctest test running <command> (a target name as its first word runs that target).
    Every test gets LABELS (label `concurrency` marks what the ThreadSanitizer configuration
    runs, `gpu` the tests needing a GPU, `slow` what can be left out with -LE slow) and TIMEOUT
    (default BAM_TEST_TIMEOUT). ]]
function(bam_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "SOURCES;COMMAND;LIBS;LABELS;PROPERTIES" ${ARGN})
  if(NOT T_NAME OR (NOT T_SOURCES AND NOT T_COMMAND) OR (T_SOURCES AND T_COMMAND))
    message(FATAL_ERROR "bam_add_test(${T_NAME}): give NAME and either SOURCES or COMMAND")
  endif()
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "bam_add_test(${T_NAME}): unknown arguments ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${BAM_TEST_TIMEOUT})
  endif()
  # Property values are lists: escaped, so that several labels stay one LABELS value.
  string(REPLACE ";" "\\;" _labels "${T_LABELS}")
  set(_properties TIMEOUT ${T_TIMEOUT} ${T_PROPERTIES})
  if(T_LABELS)
    list(APPEND _properties LABELS "${_labels}")
  endif()
  if(T_COMMAND)
    add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
    set_tests_properties(${T_NAME} PROPERTIES ${_properties})
    return()
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE bam::bam GTest::gtest_main ${T_LIBS})
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR})
  gtest_discover_tests(${T_NAME} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60 PROPERTIES ${_properties})
endfunction()

# SPDX-License-Identifier: Apache-2.0
# Every third-party dependency of bam, found once, each as an imported target. Included from the
# top-level CMakeLists.txt after BAM_ENABLE_CUDA is settled; nothing else calls find_package or
# find_path for these.
#
#   target                         needed by                                      Debian package
#   Threads::Threads               everything                                     (libc)
#   CCCL::CCCL                     the portable core, CPU builds too               CUDA 13 toolkit
#   CUDA::cudart, CUDA::cublas     CUDA builds (host/, apps/vector, bench)        CUDA 13 toolkit
#   nlohmann_json::nlohmann_json   host/ (statistics JSON), apps, bench            nlohmann-json3-dev
#   CLI11::CLI11                   apps, bench                                    libcli11-dev
#   fmt::fmt                       apps/graph and the graph apps                  libfmt-dev
#   ZLIB::ZLIB                     apps/graph (gzip-compressed edge lists)        zlib1g-dev
#   Boost::headers                 tests/apps (the Boost Graph Library reference) libboost-graph-dev
#   Python3 (interpreter)          tests/qemu, found there only when BAM_QEMU_TESTS is on
#   Python, nanobind (+ pytest, numpy to test)  python/ (BAM_BUILD_PYTHON): python3-dev; pip install nanobind
#   GTest::gtest, GTest::gtest_main  tests                                        libgtest-dev
#
# Header-only libraries fall back to a bare include directory (machines without a package
# manager carry the headers); GoogleTest falls back to building BAM_GTEST_SOURCE_DIR.

find_package(Threads REQUIRED)

# ---- CUDA toolkit and CCCL -------------------------------------------------------------------
# CCCL (libcu++, CUB, Thrust) comes with the CUDA toolkit; CPU-only builds need it too, for
# cuda::atomic_ref in the portable core. Debian's libcu++-dev is far too old.
if(BAM_ENABLE_CUDA)
  find_package(CUDAToolkit REQUIRED)
else()
  find_package(CUDAToolkit QUIET)
endif()
set(_bam_cccl_hints "")
if(CUDAToolkit_LIBRARY_DIR)
  list(APPEND _bam_cccl_hints "${CUDAToolkit_LIBRARY_DIR}/cmake")
endif()
list(APPEND _bam_cccl_hints /usr/local/cuda/lib64/cmake)
find_package(CCCL 3.0 CONFIG HINTS ${_bam_cccl_hints})
if(NOT CCCL_FOUND)
  message(FATAL_ERROR "bam needs CCCL >= 3.0 (shipped with the CUDA 13 toolkit under lib64/cmake/cccl); "
                      "set CCCL_DIR or CUDAToolkit_ROOT. Debian's libcu++-dev is too old.")
endif()

#[[ _bam_header_only(TARGET <imported target> PACKAGE <config package> HEADER <header> DEBIAN <package>)
    Finds a header-only library through its CMake package, else through its header alone, and
    makes TARGET either way. ]]
function(_bam_header_only)
  cmake_parse_arguments(H "" "TARGET;PACKAGE;HEADER;DEBIAN" "" ${ARGN})
  find_package(${H_PACKAGE} CONFIG QUIET)
  if(TARGET ${H_TARGET})
    return()
  endif()
  string(TOUPPER "BAM_${H_PACKAGE}_INCLUDE" _var)
  find_path(${_var} ${H_HEADER})
  if(NOT ${_var})
    message(FATAL_ERROR "bam: ${H_HEADER} not found: install ${H_DEBIAN} or set ${_var}")
  endif()
  add_library(${H_TARGET} INTERFACE IMPORTED GLOBAL)
  target_include_directories(${H_TARGET} INTERFACE ${${_var}})
endfunction()

_bam_header_only(TARGET nlohmann_json::nlohmann_json PACKAGE nlohmann_json HEADER nlohmann/json.hpp
                 DEBIAN nlohmann-json3-dev)

# ---- what only the apps, benchmarks and tests use ---------------------------------------------
if(BAM_BUILD_APPS OR BAM_BUILD_BENCH OR BAM_BUILD_TESTS)
  _bam_header_only(TARGET CLI11::CLI11 PACKAGE CLI11 HEADER CLI/CLI.hpp DEBIAN libcli11-dev)
  find_package(fmt CONFIG REQUIRED)
  find_package(ZLIB REQUIRED)
endif()

if(BAM_BUILD_TESTS AND BAM_BUILD_APPS)
  find_package(Boost REQUIRED)  # the Boost Graph Library is header-only; tests/apps only
endif()
if(BAM_BUILD_TESTS)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    # The GPU box cannot download: scripts/gpu-run.sh carries Debian's GoogleTest sources.
    set(BAM_GTEST_SOURCE_DIR "" CACHE PATH "GoogleTest source tree to build when no package is installed")
    if(NOT BAM_GTEST_SOURCE_DIR)
      message(FATAL_ERROR "bam: GoogleTest not found: install libgtest-dev or set BAM_GTEST_SOURCE_DIR")
    endif()
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    add_subdirectory(${BAM_GTEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
  include(GoogleTest)
endif()

# ---- the Python package (python/) -------------------------------------------------------------
# BAM_BUILD_PYTHON: AUTO builds it when Python and nanobind are found, ON requires them, OFF skips.
# Sets BAM_PYTHON (the package is built) and BAM_PYTHON_TESTS (pytest and numpy importable).
set(BAM_PYTHON OFF)
set(BAM_PYTHON_TESTS OFF)
if(NOT BAM_BUILD_PYTHON STREQUAL "OFF")
  set(_bam_python_required "")
  if(BAM_BUILD_PYTHON STREQUAL "ON")
    set(_bam_python_required REQUIRED)
  endif()
  find_package(Python 3.9 COMPONENTS Interpreter Development.Module ${_bam_python_required})
  if(Python_FOUND)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                    OUTPUT_VARIABLE _bam_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_bam_nanobind_dir)
      list(APPEND CMAKE_PREFIX_PATH "${_bam_nanobind_dir}")
    endif()
    find_package(nanobind CONFIG QUIET)
  endif()
  if(nanobind_FOUND)
    set(BAM_PYTHON ON)
    message(STATUS "bam: Python package with nanobind from ${_bam_nanobind_dir}")
    if(BAM_BUILD_TESTS)
      execute_process(COMMAND "${Python_EXECUTABLE}" -c "import pytest, numpy" RESULT_VARIABLE _bam_pytest_missing
                      OUTPUT_QUIET ERROR_QUIET)
      if(_bam_pytest_missing)
        message(STATUS "bam: Python tests skipped (${Python_EXECUTABLE} lacks pytest or numpy)")
      else()
        set(BAM_PYTHON_TESTS ON)
      endif()
    endif()
  elseif(_bam_python_required)
    message(FATAL_ERROR "BAM_BUILD_PYTHON=ON needs Python 3.9+ and nanobind (pip install nanobind)")
  else()
    message(STATUS "bam: Python package skipped (no Python with nanobind)")
  endif()
endif()

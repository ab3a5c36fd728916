#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What bam needs on a machine, found or installed: the one list of bam's Debian packages.
#
#   scripts/setup.sh [demo|test|ci]   checks (and, as root with apt-get, installs) what that job needs
#   source scripts/setup.sh; bam_setup demo|test|ci   the same from scripts/demo.sh and scripts/test.sh
#
# Each need is looked for as the file or program itself, not in dpkg's records, so the check works
# where there is no package manager (the GPU box, whose carried GoogleTest sources in
# .carry/googletest and headers in .carry/include count as found). Then:
#   - nothing required is missing: returns 0, with BAM_SETUP_CMAKE_ARGS holding the CMake flags that
#     point at carried sources and headers (and optional misses named on stderr);
#   - apt-get is there and we are root: installs the missing packages, then checks again;
#   - apt-get is there, not root: prints the one command to run and returns 1;
#   - no apt-get: names what is missing and where it looked, returns 1 when any of it is required.
# To test this script: BAM_SETUP_PRETEND_MISSING="pkg ..." treats those packages as absent (and
# installs nothing), BAM_SETUP_APT=none pretends there is no apt-get.
# The CUDA 13 toolkit (CCCL is needed even for CPU builds) is not a Debian package: its absence
# stops every job, with where to get it.

bam_setup_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bam_cuda_root=${CUDA_HOME:-/usr/local/cuda}

# need: "package|job,job,...|required|probe" where probe is cmd:NAME, header:PATH (under the
# include folders), dir:PATH[:PATH...] (any of them) or python:MODULE. Jobs: demo, test, ci.
bam_setup_needs=(
  "cmake|demo,test,ci|yes|cmd:cmake"
  "ninja-build|demo,test,ci|yes|cmd:ninja"
  "g++|demo,test,ci|yes|cmd:g++"
  "libcli11-dev|demo,test,ci|yes|header:CLI/CLI.hpp"
  "nlohmann-json3-dev|demo,test,ci|yes|header:nlohmann/json.hpp"
  "libfmt-dev|demo,test,ci|yes|header:fmt/format.h"
  "zlib1g-dev|demo,test,ci|yes|header:zlib.h"
  "python3|demo,test,ci|no|cmd:python3"
  "python3-matplotlib|demo|no|python:matplotlib"
  "libgtest-dev|test,ci|yes|dir:/usr/src/googletest/googletest:$bam_setup_root/.carry/googletest/googletest"
  "libgmock-dev|test,ci|yes|dir:/usr/src/googletest/googlemock:$bam_setup_root/.carry/googletest/googlemock"
  "libboost-graph-dev|test,ci|yes|header:boost/graph/adjacency_list.hpp"
  "python3-numpy|test,ci|no|python:numpy"
  "python3-faiss|test,ci|no|python:faiss"
  "python3-dev|test,ci|no|cmd:python3-config"
  "python3-pytest|test,ci|no|python:pytest"
  "python3-pip|test,ci|no|python:pip"
  "libopenblas0-pthread|test,ci|no|dir:/usr/lib/x86_64-linux-gnu/openblas-pthread:/usr/lib/aarch64-linux-gnu/openblas-pthread"
  "dataset-fashion-mnist|test,ci|no|dir:/usr/share/datasets/fashion-mnist:$bam_setup_root/.carry/fashion-mnist"
  "make|ci|yes|cmd:make"
)
bam_include_dirs=(/usr/include /usr/local/include "$bam_setup_root/.carry/include")

# bam_python: Debian's python3 (where python3-* packages install), else the first on PATH.
bam_python() {
  if [ -x /usr/bin/python3 ]; then echo /usr/bin/python3; else command -v python3 || echo python3; fi
}

# bam_probe PROBE: 0 when what PROBE names is on this machine.
bam_probe() {
  local kind=${1%%:*} what=${1#*:}
  case $kind in
    cmd) command -v "$what" >/dev/null 2>&1 ;;
    header)
      local d
      for d in "${bam_include_dirs[@]}"; do [ -f "$d/$what" ] && return 0; done
      return 1 ;;
    dir)
      local d
      IFS=: read -ra dirs <<< "$what"
      for d in "${dirs[@]}"; do [ -d "$d" ] && return 0; done
      return 1 ;;
    python) "$(bam_python)" -c "import $what" >/dev/null 2>&1 ;;
    *) echo "setup.sh: unknown probe '$1'" >&2; return 2 ;;
  esac
}

# bam_describe PROBE: what PROBE looks for, in words.
bam_describe() {
  local kind=${1%%:*} what=${1#*:}
  case $kind in
    cmd) echo "the program '$what' on PATH" ;;
    header) echo "$what under ${bam_include_dirs[*]}" ;;
    dir) echo "one of the folders ${what//:/, }" ;;
    python) echo "the module '$what' of $(bam_python)" ;;
  esac
}

# bam_missing JOB REQUIRED(yes|no): prints "package<TAB>probe" for every need of JOB, of that
# kind, that is absent (or named in BAM_SETUP_PRETEND_MISSING).
bam_missing() {
  local job=$1 want=$2 entry pkg jobs required probe
  for entry in "${bam_setup_needs[@]}"; do
    IFS='|' read -r pkg jobs required probe <<< "$entry"
    [[ ",$jobs," == *",$job,"* && $required == "$want" ]] || continue
    if [[ " ${BAM_SETUP_PRETEND_MISSING:-} " == *" $pkg "* ]] || ! bam_probe "$probe"; then
      printf '%s\t%s\n' "$pkg" "$probe"
    fi
  done
}

# bam_cmake_args: flags that point CMake at what only the carried copies provide.
bam_cmake_args() {
  BAM_SETUP_CMAKE_ARGS=()
  if ! compgen -G "/usr/lib/*/cmake/GTest/GTestConfig.cmake" >/dev/null && ! [ -f /usr/lib/cmake/GTest/GTestConfig.cmake ]; then
    if [ -d /usr/src/googletest/googletest ]; then
      BAM_SETUP_CMAKE_ARGS+=(-DBAM_GTEST_SOURCE_DIR=/usr/src/googletest)
    elif [ -d "$bam_setup_root/.carry/googletest" ]; then
      BAM_SETUP_CMAKE_ARGS+=(-DBAM_GTEST_SOURCE_DIR="$bam_setup_root/.carry/googletest")
    fi
  fi
  [ -d "$bam_setup_root/.carry/include" ] && BAM_SETUP_CMAKE_ARGS+=(-DCMAKE_INCLUDE_PATH="$bam_setup_root/.carry/include")
  # The Python package (python/) builds for the interpreter the python3-* packages serve.
  BAM_SETUP_CMAKE_ARGS+=(-DPython_EXECUTABLE="$(bam_python)")
  return 0
}

# bam_nanobind: the Python package's binding library, which Debian does not package: installed
# with pip when root (as the Python tests need it), else named; never required.
bam_nanobind() {
  local py
  py=$(bam_python)
  "$py" -c "import nanobind" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" -eq 0 ] && "$py" -m pip --version >/dev/null 2>&1 && [ -z "${BAM_SETUP_PRETEND_MISSING:-}" ]; then
    echo "setup: installing nanobind with pip (for the Python package)" >&2
    "$py" -m pip install -q --break-system-packages nanobind >&2 && return 0
  fi
  echo "setup: optional, not found: nanobind for $py ('$py -m pip install nanobind'); the Python package is skipped" >&2
}

# bam_check_cuda: the CUDA 13 toolkit's CCCL, which every build needs.
bam_check_cuda() {
  if [ -d "$bam_cuda_root/lib64/cmake/cccl" ] || [ -d "$bam_cuda_root/lib/cmake/cccl" ]; then
    export PATH="$bam_cuda_root/bin:$PATH"
    return 0
  fi
  echo "setup: the CUDA 13 toolkit is missing: no CCCL under $bam_cuda_root/lib64/cmake/cccl." >&2
  echo "       bam needs its headers even for CPU-only builds; install it from" >&2
  echo "       https://developer.nvidia.com/cuda-downloads (or set CUDA_HOME to where it is)." >&2
  return 1
}

# bam_check_cmake_version: CMake >= 3.22.
bam_check_cmake_version() {
  local v
  v=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
  if [ -z "$v" ] || [ "$(printf '%s\n3.22\n' "$v" | sort -V | head -n1)" != 3.22 ]; then
    echo "setup: CMake ${v:-?} is older than the 3.22 bam needs" >&2
    return 1
  fi
}

# bam_setup JOB: see the top of this file.
bam_setup() {
  local job=${1:-test}
  case $job in demo|test|ci) ;; *) echo "setup: unknown job '$job' (demo, test or ci)" >&2; return 2 ;; esac
  bam_check_cuda || return 1
  local required optional
  required=$(bam_missing "$job" yes)
  optional=$(bam_missing "$job" no)
  local packages
  packages=$(printf '%s\n%s\n' "$required" "$optional" | cut -f1 | { grep -v '^$' || true; } | tr '\n' ' ')
  if [ -n "$packages" ] && [ "${BAM_SETUP_APT:-apt-get}" != none ] && command -v apt-get >/dev/null 2>&1; then
    local cmd="apt-get install -y --no-install-recommends $packages"
    if [ "$(id -u)" -ne 0 ]; then
      echo "setup: bam's $job needs Debian packages that are missing. Run, then try again:" >&2
      echo "  sudo apt-get update && sudo $cmd" >&2
      return 1
    fi
    echo "setup: installing what $job needs: $packages" >&2
    if [ -n "${BAM_SETUP_PRETEND_MISSING:-}" ]; then
      echo "setup: (BAM_SETUP_PRETEND_MISSING is set: not installing) $cmd" >&2
      return 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2 && apt-get install -y -q --no-install-recommends $packages >&2 || {
      echo "setup: apt-get failed; the command was: $cmd" >&2
      return 1
    }
    required=$(bam_missing "$job" yes)
    optional=$(bam_missing "$job" no)
  fi
  if [ -n "$optional" ]; then
    while IFS=$'\t' read -r pkg probe; do
      echo "setup: optional, not found: $pkg (looked for $(bam_describe "$probe")); what needs it is skipped" >&2
    done <<< "$optional"
  fi
  if [ -n "$required" ]; then
    echo "setup: bam's $job cannot build here; missing (no apt-get to install them):" >&2
    while IFS=$'\t' read -r pkg probe; do
      echo "  $pkg: looked for $(bam_describe "$probe")" >&2
    done <<< "$required"
    return 1
  fi
  bam_check_cmake_version || return 1
  [ "$job" = demo ] || bam_nanobind
  bam_cmake_args
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  bam_setup "${1:-test}" && echo "setup: everything ${1:-test} needs is here"
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test command (README.md): installs what is missing (scripts/setup.sh), builds bam for the
# CPU, runs every CPU test, runs the concurrency tests again under ThreadSanitizer, and
# compile-checks the GPU code with nvcc. Usage: scripts/test.sh [build-root]   (default: build/)
# BAM_SETUP_JOB=ci (.ci/run) also installs what CI needs beyond the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build}
source "$root/scripts/setup.sh"
bam_setup "${BAM_SETUP_JOB:-test}" || exit 1
jobs=$(nproc)
cmake_args=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${BAM_SETUP_CMAKE_ARGS[@]}")

step() { printf '\n== %s\n' "$*"; }

step "CPU build and tests"
cmake -S "$root" -B "$out/cpu" "${cmake_args[@]}" -DBAM_ENABLE_CUDA=OFF
cmake --build "$out/cpu" -j "$jobs"
(cd "$out/cpu" && ctest --output-on-failure -j "$jobs" --timeout 900)

step "ThreadSanitizer: concurrency tests"
cmake -S "$root" -B "$out/tsan" "${cmake_args[@]}" -DBAM_ENABLE_CUDA=OFF -DBAM_SANITIZE=thread \
  -DBAM_BUILD_BENCH=OFF -DBAM_BUILD_APPS=OFF -DBAM_BUILD_EXAMPLES=OFF
cmake --build "$out/tsan" -j "$jobs"
(cd "$out/tsan" && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  ctest --output-on-failure -j "$jobs" -L concurrency --timeout 900)

if command -v nvcc >/dev/null 2>&1; then  # setup.sh put the toolkit's bin/ on PATH
  step "nvcc compile check (sm_90): every .cu file builds; GPU tests skip without a GPU"
  cmake -S "$root" -B "$out/cuda" "${cmake_args[@]}" -DBAM_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_COMPILER="$(command -v nvcc)"
  cmake --build "$out/cuda" -j "$jobs"
  (cd "$out/cuda" && ctest --output-on-failure -j "$jobs" -L gpu --timeout 900 --no-tests=ignore)
else
  step "nvcc not found: GPU code not compile-checked"
fi

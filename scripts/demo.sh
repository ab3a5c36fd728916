#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job (README.md): install what is missing (scripts/setup.sh), build bam and run bam-demo
# on the embedded default: GPU threads (or CPU threads when there is no GPU) read and write a
# terabyte-scale bam::array through a small page cache over the emulated NVMe controller, verify
# every value, print the cache statistics and write the cache profile (JSON, PNG) to build/demo/out;
# then a BFS on a generated graph through the cache beside the same BFS from memory.
# Extra arguments go to bam-demo (bam-demo --help). Usage: scripts/demo.sh [--seconds S] ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/setup.sh"
bam_setup demo || exit 1
out=$root/build/demo
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DBAM_BUILD_TESTS=OFF -DBAM_BUILD_BENCH=OFF -DBAM_BUILD_EXAMPLES=OFF
      "${BAM_SETUP_CMAKE_ARGS[@]}")
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  args+=(-DBAM_ENABLE_CUDA=OFF)  # no GPU here: a CPU build runs the same portable code
fi
mkdir -p "$out"
echo "building bam-demo in $out (log: $out/build.log)"
if ! { cmake -S "$root" -B "$out" "${args[@]}" && cmake --build "$out" --target bam-demo -j "$(nproc)"; } \
    > "$out/build.log" 2>&1; then
  tail -n 30 "$out/build.log" >&2
  echo "demo.sh: the build failed; the whole log is $out/build.log" >&2
  exit 1
fi
# The PNGs are drawn by the python3 that setup.sh checked for matplotlib (Debian's, where
# python3-matplotlib installs), ahead of any virtual environment's.
PATH="$(dirname "$(bam_python)"):$PATH" exec "$out/apps/bam-demo/bam-demo" --out "$out/out" "$@"

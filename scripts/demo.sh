#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job (README.md): build bam and run bam-demo on the embedded default — GPU threads (or
# CPU threads when there is no GPU) read a 1 TiB synthetic namespace through bam's NVMe queues,
# served by the emulated controller, and verify every byte. Extra arguments go to bam-demo
# (see bam-demo --help). Usage: scripts/demo.sh [--reads N] [--io-bytes B] ...
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/demo
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DBAM_BUILD_TESTS=OFF -DBAM_BUILD_BENCH=OFF)
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  args+=(-DBAM_ENABLE_CUDA=OFF)  # no GPU here: a CPU build runs the same portable code
fi
cmake -S "$root" -B "$out" "${args[@]}" >/dev/null
cmake --build "$out" --target bam-demo -j "$(nproc)" >/dev/null
exec "$out/apps/bam-demo/bam-demo" "$@"

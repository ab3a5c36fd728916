#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The vector search proof on the GPU box, in one command (device tool: carry .whl and .carry):
#   bash bench/vector_search/run.sh
# 1. installs the carried faiss-cpu wheel (.whl/) for the FAISS peer;
# 2. converts Fashion-MNIST (.carry/fashion-mnist/*.gz, Debian's dataset-fashion-mnist files)
#    into the ann-benchmarks split (60,000 base / 10,000 queries, .npy);
# 3. builds only the vector targets (Release, sm_90);
# 4. runs the GPU tests of the vector search (tests/vector/ivf_gpu_test.cu);
# 5. runs bench/vector_search, which writes vector_search-<gpu>-<date>.json and .png.
# Logs, JSON and PNG land in $OUT (or bench/results). Extra bench flags: VECTOR_SEARCH_ARGS.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$root/bench/results}
build=${BAM_BUILD_DIR:-$root/build-vector}  # scripts/gpu-run.sh passes its own configured build
work=/tmp/bam-vector-work
mkdir -p "$out" "$work"
export PATH=/usr/local/cuda/bin:$PATH
status=0
step() { printf '\n== %s\n' "$*" | tee -a "$out/vector_run.log"; }

step "faiss-cpu from .whl"
if ls "$root"/.whl/faiss_cpu-*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    "$root"/.whl/faiss_cpu-*.whl && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -c 'import faiss; print("faiss", faiss.__version__)' 2>&1 | tee -a "$out/vector_run.log"

step "Fashion-MNIST"
data=${FASHION_MNIST_DIR:-}
for d in "$root/.carry/fashion-mnist" /usr/share/datasets/fashion-mnist; do
  [ -z "$data" ] && [ -f "$d/train-images-idx3-ubyte.gz" ] && data=$d
done
[ -n "$data" ] || { echo "no Fashion-MNIST idx files (.carry/fashion-mnist or /usr/share/datasets/fashion-mnist)" >&2; exit 2; }
python3 "$root/bench/vector_search/fashion_mnist.py" "$data" "$work" | tee -a "$out/vector_run.log" || exit 2

step "build (vector targets only)"
gtest=()
[ -d /usr/src/googletest ] && gtest=(-DBAM_GTEST_SOURCE_DIR=/usr/src/googletest)
[ -d "$root/.carry/googletest" ] && gtest=(-DBAM_GTEST_SOURCE_DIR="$root/.carry/googletest")
{ { [ -f "$build/CMakeCache.txt" ] ||
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBAM_ENABLE_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DBAM_BUILD_APPS=OFF "${gtest[@]}"; } &&
  cmake --build "$build" -j "$(nproc)" --target vector_search vector_gpu_test; } > "$out/vector_build.log" 2>&1 ||
  { tail -n 60 "$out/vector_build.log"; exit 3; }

step "GPU tests"
"$build/tests/vector/vector_gpu_test" > "$out/vector_gpu_test.log" 2>&1 || status=4
tail -n 25 "$out/vector_gpu_test.log"

step "bench/vector_search"
"$build/bench/vector_search/vector_search" --base "$work/base.npy" --queries "$work/queries.npy" --work "$work" \
  --results "$out" ${VECTOR_SEARCH_ARGS:---large-rows 1000000} 2>&1 | tee "$out/vector_search.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=5
exit $status

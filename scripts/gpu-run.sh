#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Everything bam does on the GPU box, in one call of the device tool:
#   scripts/gpu-run.sh [build] [test] [sanitize] [bench NAME...] [vector] [python] [demo]
# (no argument: build test sanitize bench-all demo; `bench all` runs every bench/NAME/NAME that
# was built: queue_read, array_read, graphs, soak, vector_search; `vector` runs bench/vector_search/run.sh,
# which needs the carried .whl and .carry/fashion-mnist). BAM_GPU_BUILD names the build folder. It builds from the working tree with the
# box's own toolchain (the box cannot download; Debian's GoogleTest sources are carried in
# .carry/googletest when the box has none), runs the GPU tests, compute-sanitizer on the core
# kernels, and the benchmarks. $OUT gets summary.log, the bench JSON and logs.tar.gz (every step's
# full log), since the device tool returns at most 8 files.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/build/gpu-out}
build=${BAM_GPU_BUILD:-$root/build-gpu}
logs=$build/logs
mkdir -p "$out" "$logs"
export PATH=/usr/local/cuda/bin:$PATH
status=0

log() { printf '\n== %s\n' "$*" | tee -a "$out/summary.log"; }
run() {  # run NAME CMD...: output to $logs/NAME.log and, with BAM_GPU_LIVE=1, to stdout as it
  # comes; the last lines to the summary. BAM_STEP_TIMEOUT (seconds) bounds every step, so a
  # step that overruns still leaves its log in logs.tar.gz.
  local name=$1; shift
  log "$name: $*"
  local limit=()
  [ -n "${BAM_STEP_TIMEOUT:-}" ] && limit=(timeout "$BAM_STEP_TIMEOUT")
  if [ "${BAM_GPU_LIVE:-0}" = 1 ]; then
    "${limit[@]}" "$@" 2>&1 | tee "$logs/$name.log"
  else
    "${limit[@]}" "$@" > "$logs/$name.log" 2>&1
  fi
  local rc=${PIPESTATUS[0]}
  tail -n 40 "$logs/$name.log" >> "$out/summary.log"
  [ "${BAM_GPU_LIVE:-0}" = 1 ] || tail -n 40 "$logs/$name.log"
  [ $rc -eq 0 ] || { echo "!! $name failed with $rc" | tee -a "$out/summary.log"; status=1; }
  return $rc
}

do_build() {
  local gtest=()
  [ -d /usr/src/googletest ] && gtest=(-DBAM_GTEST_SOURCE_DIR=/usr/src/googletest)
  [ -d "$root/.carry/googletest" ] && gtest=(-DBAM_GTEST_SOURCE_DIR="$root/.carry/googletest")
  run configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBAM_ENABLE_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 "${gtest[@]}" && run build cmake --build "$build" -j 16
}
do_test() {
  run gpu-tests bash -c "cd '$build' && ctest --output-on-failure -L gpu --timeout 120"
}
do_sanitize() {
  for t in "$build"/tests/*_gpu_test; do
    [ -x "$t" ] || continue
    local n; n=$(basename "$t")
    # compute-sanitizer fails a binary that makes no CUDA call, as one whose filter matches nothing does.
    "$t" --gtest_list_tests --gtest_filter='*Sanitize*' | grep -q '^  ' || { log "sanitize: $n has no *Sanitize* tests"; continue; }
    run "memcheck-$n" timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 "$t" --gtest_filter='*Sanitize*'
    run "racecheck-$n" timeout 120 compute-sanitizer --tool racecheck --error-exitcode 3 "$t" --gtest_filter='*Sanitize*'
  done
}
do_bench() {
  local name=$1
  run "bench-$name" "$build/bench/$name/$name" --results "$out" ${BAM_BENCH_ARGS:-}
}
do_vector() {
  # Its logs go with the others into logs.tar.gz; its JSON and PNG come back beside the summary.
  run vector env BAM_BUILD_DIR="$build" OUT="$logs/vector" bash "$root/bench/vector_search/run.sh"
  cp "$logs"/vector/*.json "$logs"/vector/*.png "$out"/ 2>/dev/null
}
do_python() {
  # The GraphSAGE example (python/examples): trains on the GPU with features behind bam.pyg.
  run python-example env PYTHONPATH="$build/python" python3 "$root/python/examples/graphsage_feature_store.py"
}
do_demo() {
  # Its PNGs come back beside the summary; its JSON files are in logs.tar.gz.
  run demo "$build/apps/bam-demo/bam-demo" --out "$logs/demo"
  cp "$logs"/demo/*.png "$out"/ 2>/dev/null
}

[ $# -eq 0 ] && set -- build test sanitize bench all demo
while [ $# -gt 0 ]; do
  case $1 in
    build) do_build || exit 1 ;;
    test) do_test ;;
    sanitize) do_sanitize ;;
    demo) do_demo ;;
    vector) do_vector ;;
    python) do_python ;;
    bench)
      shift
      if [ "${1:-all}" = all ]; then
        for b in "$build"/bench/*/; do [ -x "$b/$(basename "$b")" ] && do_bench "$(basename "$b")"; done
      else
        do_bench "$1"
      fi ;;
    *) echo "unknown step $1" >&2; exit 2 ;;
  esac
  shift
done
tar czf "$out/logs.tar.gz" -C "$build" logs
exit $status

#!/usr/bin/env bash
# ReduceByKey on the GPU machine in one call: build its test, its example and fold-bench (Release, sm_90), run the
# test and the example, then `fold-bench --by-key` (fold beside cub; BYKEY_FULL=1: the full matrix). Run from the
# repository root with Catch2 and Google Benchmark unpacked under .deps/usr (see README). Logs and JSON to $OUT
# (default: out/); the summary is printed last. FOLD_COMMIT names the commit measured. SKIP_BENCH=1: tests only.
set -uo pipefail
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
BUILD=${BUILD:-build-gpu}
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv >"$OUT/device.txt"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$DEPS" -DFOLD_BUILD_PRECOMPILED=OFF \
  >"$OUT/by-key-configure.log" 2>&1 || { tail -30 "$OUT/by-key-configure.log"; exit 1; }
targets="device.device_reduce_by_key example.reduce_by_key ${EXTRA_TARGETS:-}"
[[ ${SKIP_BENCH:-0} == 1 ]] || targets="$targets fold-bench"
bash "$SCRIPTS/build-targets.sh" "$BUILD" $targets >"$OUT/by-key-build.log" 2>&1 \
  || { grep -E "error" "$OUT/by-key-build.log" | head -40; exit 1; }
timeout 300 "$BUILD/test/device.device_reduce_by_key" >"$OUT/by-key-test.log" 2>&1
test_rc=$?
timeout 60 "$BUILD/examples/example.reduce_by_key" >"$OUT/by-key-example.log" 2>&1
example_rc=$?
bench_rc=0
if [[ ${SKIP_BENCH:-0} != 1 ]]; then
  full=""
  [[ ${BYKEY_FULL:-0} == 1 ]] && full="--full"
  timeout 420 "$BUILD/benchmarks/fold-bench" --by-key $full --commit="${FOLD_COMMIT:-unknown}" \
    --benchmark_out="$OUT/by-key-bench.json" --benchmark_out_format=json >"$OUT/by-key-bench.txt" 2>"$OUT/by-key-bench.err"
  bench_rc=$?
fi
echo "== test (rc=$test_rc)"
grep -E "FAILED|REQUIRE|with expansion|passed|failed|test cases" "$OUT/by-key-test.log" | head -40
echo "== example (rc=$example_rc)"
cat "$OUT/by-key-example.log"
if [[ ${SKIP_BENCH:-0} != 1 ]]; then
  echo "== fold-bench --by-key (rc=$bench_rc)"
  sed -n '/^keys/,$p' "$OUT/by-key-bench.txt"
fi
exit $(( test_rc != 0 || example_rc != 0 || bench_rc != 0 ))

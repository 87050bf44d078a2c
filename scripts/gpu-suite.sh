#!/usr/bin/env bash
# The GPU check in one call: build (Release, sm_90), run the whole test suite and a long run of the property test,
# run fold-bench (BENCH=0: not). Meant for the GPU machine, from the repository root, with Catch2 and Google
# Benchmark unpacked under .deps/usr (see README).
# Logs go to $OUT (default: out/); the summary is printed last.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
BUILD=${BUILD:-build-gpu}
LOGS=$BUILD/logs # only the test log and fold-bench's table go to $OUT
mkdir -p "$LOGS"

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv | tee "$LOGS/device.txt"
if [[ ${PREBUILT:-0} != 1 ]]; then # PREBUILT=1: $BUILD holds a build already (scripts/gpu-tests-from-ci.sh)
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$DEPS" >"$LOGS/configure.log" 2>&1 \
    || { tail -30 "$LOGS/configure.log"; exit 1; }
  cmake --build "$BUILD" -j"$(nproc)" >"$LOGS/build.log" 2>&1 || { grep -E "error" "$LOGS/build.log" | head -40; exit 1; }
fi

# CTEST_ARGS: a selection, e.g. -L gpu
ctest --test-dir "$BUILD" ${CTEST_ARGS:-} -V -j4 --timeout 900 >"$OUT/ctest.log" 2>&1
ctest_rc=$?
# The property test's longer run: PROPERTY_CASES cases from a random first seed (ctest ran the fixed list).
# Not where the build lacks it (a pack of scripts/gpu-tests-from-ci.sh without it).
seed=${PROPERTY_SEED:-$(( (RANDOM << 15 | RANDOM) + 1000 ))}
property_rc=0
if [[ -x $BUILD/test/device.device_reduce_property ]]; then
  FOLD_PROPERTY_SEED=$seed FOLD_PROPERTY_CASES=${PROPERTY_CASES:-3000} "$BUILD/test/device.device_reduce_property" \
    >"$OUT/property.log" 2>&1
  property_rc=$?
else
  echo "property test: not in this build" >"$OUT/property.log"
fi
bench_rc=0
if [[ ${BENCH:-1} == 1 ]]; then
  "$BUILD/benchmarks/fold-bench" >"$OUT/bench.txt" 2>"$LOGS/bench.err"
  bench_rc=$?
fi

echo "== failures (if any)"
grep -E "FAILED|failed|Error" "$OUT/ctest.log" | head -40
echo "== each test's own summary"
grep -E "^[0-9]+: (All tests passed|test cases:|assertions:|device [0-9])" "$OUT/ctest.log" | sort -n | uniq
echo "== ctest"
grep -E "tests passed|tests failed|Skipped|Passed|\*\*\*Failed" "$OUT/ctest.log" | tail -20
echo "== property test, long run (rc=$property_rc)"
grep -E "^property test|All tests passed|test cases:|assertions:" "$OUT/property.log"
if [[ ${BENCH:-1} == 1 ]]; then
  echo "== fold-bench (rc=$bench_rc)"
  cat "$OUT/bench.txt"
fi
exit $(( ctest_rc != 0 || property_rc != 0 || bench_rc != 0 ))

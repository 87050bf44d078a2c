#!/usr/bin/env bash
# fold::nccl on the GPU machine in one call: build (Release, sm_90) the sharded reductions' tests, example and
# benchmark, run the tests (the virtual ranks on one GPU; NCCL's test and the example on every visible GPU, the test
# skipped with fewer than two), then fold-nccl-bench when there are two GPUs or more (BENCH=0: not). Meant for the
# GPU machine, from the repository root, with Catch2 and Google Benchmark unpacked under .deps/usr (see README) and
# NCCL installed (/usr/include/nccl.h; or NCCL_ROOT). Logs go to $OUT (default: out/); the summary is printed last.
set -uo pipefail
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0 # NVLink multicast off, always, on these machines
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
BUILD=${BUILD:-build-nccl}
mkdir -p "$BUILD"

nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv | tee "$OUT/nccl-device.txt"
nvidia-smi topo -m >>"$OUT/nccl-device.txt" 2>&1
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$DEPS" \
  -DFOLD_BUILD_NCCL=ON -DFOLD_BUILD_PRECOMPILED=OFF >"$OUT/nccl-configure.log" 2>&1 \
  || { tail -30 "$OUT/nccl-configure.log"; exit 1; }
grep "fold::nccl" "$OUT/nccl-configure.log"
targets=(nccl.sharded_plan nccl.sharded_reduce nccl.device_reduce_nccl example.nccl_sum fold-nccl-bench)
bash "$SCRIPTS/build-targets.sh" "$BUILD" "${targets[@]}" >"$OUT/nccl-build.log" 2>&1 \
  || { grep -E "error" "$OUT/nccl-build.log" | head -40; exit 1; }

ctest --test-dir "$BUILD" -V -R '^(nccl\.|example\.nccl_sum$)' --timeout 900 >"$OUT/nccl-ctest.log" 2>&1
ctest_rc=$?
bench_rc=0
if [[ ${BENCH:-1} == 1 && $gpus -ge 2 ]]; then
  "$BUILD/benchmarks/fold-nccl-bench" --benchmark_out="$OUT/nccl-bench.json" --benchmark_out_format=json \
    >"$OUT/nccl-bench.txt" 2>&1
  bench_rc=$?
fi

echo "== failures (if any)"
grep -E "FAILED|failed|Error|error:" "$OUT/nccl-ctest.log" | head -40
echo "== each test's own summary"
grep -E "^[0-9]+: (All tests passed|test cases:|assertions:|device [0-9]|[0-9]+ GPUs|.*skipped|sum of)" \
  "$OUT/nccl-ctest.log" | sort -n | uniq
echo "== ctest"
grep -E "tests passed|tests failed|Skipped|Passed|\*\*\*Failed|Not Run" "$OUT/nccl-ctest.log" | tail -20
if [[ ${BENCH:-1} == 1 && $gpus -ge 2 ]]; then
  echo "== fold-nccl-bench (rc=$bench_rc)"
  cat "$OUT/nccl-bench.txt"
fi
exit $(( ctest_rc != 0 || bench_rc != 0 ))

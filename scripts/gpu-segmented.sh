#!/usr/bin/env bash
# The segmented and axis benchmark run behind benchmarks/results/segmented-*: build fold-segmented-bench (Release,
# sm_90), run it, then time torch.sum over the same axis cases. Run on the GPU machine from the repository root,
# with Google Benchmark unpacked under .deps/usr (see README); JSON to $OUT (default: out/). Then, here:
#   python3 benchmarks/report.py segmented <that folder>
# FOLD_COMMIT names the commit measured (recorded in the JSON).
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
BUILD=${BUILD:-build-gpu}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$DEPS" >/dev/null 2>&1 || exit 1
cmake --build "$BUILD" -j"$(nproc)" --target fold-segmented-bench >"$OUT/segmented-build.log" 2>&1 \
  || { grep -E "error" "$OUT/segmented-build.log" | head -40; exit 1; }
"$BUILD/benchmarks/fold-segmented-bench" --benchmark_out="$OUT/segmented-bench.json" --benchmark_out_format=json \
  >"$OUT/segmented-bench.txt" 2>&1 || { tail -20 "$OUT/segmented-bench.txt"; exit 1; }
python3 benchmarks/torch_axes.py "$OUT/torch-axes.json" >"$OUT/torch-axes.txt" 2>&1 || tail -5 "$OUT/torch-axes.txt"
sed -n '/^case/,$p' "$OUT/segmented-bench.txt"
cat "$OUT/torch-axes.txt"

#!/usr/bin/env bash
# The segmented and axis benchmark run behind benchmarks/results/segmented-*: build fold-segmented-bench (Release,
# sm_90), run it (fold beside cub), then time torch on the same cases: torch.segment_reduce and torch.sum over the
# segmented cases (benchmarks/torch_segmented.py, on the lengths the bench writes to $LENGTHS) and torch.sum over
# the axis cases (benchmarks/torch_axes.py). Run on the GPU machine from the repository root, with Google Benchmark
# unpacked under .deps/usr (see README) or installed (the tests are not configured: no Catch2 needed); JSON and the
# printed tables to $OUT (default: out/), six files. Then, here:
#   python3 benchmarks/report.py segmented <that folder>
# FOLD_COMMIT names the commit measured (recorded in the JSON). BUILD (default build-gpu) is the build folder;
# LENGTHS (default $BUILD/segment-lengths) holds the random lengths (about 350 MB), kept out of $OUT. BINS: a folder
# holding fold-segmented-bench built elsewhere (for sm_90), used instead of building here.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
BUILD=${BUILD:-build-gpu}
LENGTHS=${LENGTHS:-$BUILD/segment-lengths}
LOGS=$BUILD/logs
mkdir -p "$LOGS"
# Only the JSON and the printed tables go to $OUT; the build's logs stay in $BUILD/logs.
if [[ -n ${BINS:-} ]]; then # a prebuilt fold-segmented-bench in $BINS
  mkdir -p "$BUILD/benchmarks" && cp "$BINS/fold-segmented-bench" "$BUILD/benchmarks/"
else
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$DEPS" -DFOLD_BUILD_TESTS=OFF \
    >"$LOGS/segmented-configure.log" 2>&1 || { tail -30 "$LOGS/segmented-configure.log"; exit 1; }
  cmake --build "$BUILD" -j"$(nproc)" --target fold-segmented-bench >"$LOGS/segmented-build.log" 2>&1 \
    || { grep -E "error" "$LOGS/segmented-build.log" | head -40; exit 1; }
fi
rm -rf "$LENGTHS" && mkdir -p "$LENGTHS"
FOLD_LENGTHS_DIR=$LENGTHS "$BUILD/benchmarks/fold-segmented-bench" --benchmark_out="$OUT/segmented-bench.json" \
  --benchmark_out_format=json >"$OUT/segmented-bench.txt" 2>&1 || { tail -20 "$OUT/segmented-bench.txt"; exit 1; }
python3 benchmarks/torch_segmented.py "$OUT/segmented-bench.json" "$LENGTHS" "$OUT/torch-segmented.json" \
  >"$OUT/torch-segmented.txt" 2>&1 || tail -5 "$OUT/torch-segmented.txt"
python3 benchmarks/torch_axes.py "$OUT/torch-axes.json" >"$OUT/torch-axes.txt" 2>&1 || tail -5 "$OUT/torch-axes.txt"
sed -n '/^case  *fold us/,$p' "$OUT/segmented-bench.txt"
cat "$OUT/torch-segmented.txt" "$OUT/torch-axes.txt"

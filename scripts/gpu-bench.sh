#!/usr/bin/env bash
# The benchmark run behind benchmarks/results/: build (Release, sm_90), then the full fold-vs-cub matrix and the
# optimisation ladder at 2^25 and 2^30 floats, their JSON written to $OUT (default: out/). Run on the GPU machine
# from the repository root, with Google Benchmark unpacked under .deps/usr (see README); then, here:
#   python3 benchmarks/report.py all <that folder>
# FOLD_COMMIT names the commit measured (recorded in the JSON). BINS: a folder holding fold-bench and fold-ladder
# built elsewhere (for sm_90), used instead of building here.
set -uo pipefail
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
BUILD=${BUILD:-build-gpu}

if [[ -n ${BINS:-} ]]; then # prebuilt fold-bench and fold-ladder in $BINS
  mkdir -p "$BUILD/benchmarks" && cp "$BINS/fold-bench" "$BINS/fold-ladder" "$BUILD/benchmarks/"
else
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$DEPS" -DFOLD_BUILD_TESTS=OFF >"$OUT/configure.log" 2>&1 \
    || { tail -30 "$OUT/configure.log"; exit 1; }
  bash "$SCRIPTS/build-targets.sh" "$BUILD" fold-bench fold-ladder >"$OUT/build.log" 2>&1 \
    || { grep -E "error" "$OUT/build.log" | head -40; exit 1; }
fi

# Only the JSON (and one summary) go to $OUT; logs stay in $BUILD/logs.
LOGS=$BUILD/logs
mkdir -p "$LOGS"
"$BUILD/benchmarks/fold-ladder" --log2=25 --json="$OUT/ladder-25.json" | tee "$LOGS/ladder-25.txt" || exit 1
"$BUILD/benchmarks/fold-ladder" --log2=30 --json="$OUT/ladder-30.json" | tee "$LOGS/ladder-30.txt" || exit 1
"$BUILD/benchmarks/fold-bench" ${BENCH_ARGS:---full} --benchmark_out="$OUT/fold-bench.json" --benchmark_out_format=json \
  >"$LOGS/fold-bench.txt" 2>"$LOGS/fold-bench.err" || { tail -20 "$LOGS/fold-bench.err"; exit 1; }
grep -v "^$" "$LOGS/fold-bench.err" | grep -v "^\.*$" | head -20
cp "$LOGS/fold-bench.txt" "$OUT/fold-bench.txt"
head -1 "$LOGS/fold-bench.txt"
awk 'NF == 11 && $7 ~ /^[0-9.]+$/ {total++; if ($7 > 1.03) slower++; if ($7 < 0.97) faster++}
     END {printf "fold-bench: %d cases; fold faster than cub beyond 3%%: %d, slower beyond 3%%: %d\n", total, faster, slower}' "$LOGS/fold-bench.txt"

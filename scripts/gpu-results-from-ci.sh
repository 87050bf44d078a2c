#!/usr/bin/env bash
# Every committed benchmark result from one build made here (CI's own: Release, sm_90), in two calls on the GPU
# machine, each inside its 10-minute limit (on an H100 at 8955454: part 1 about 150 s, part 2 about 470 s):
#
#   bash .ci/run                                          # here, on a clone: builds everything
#   bash scripts/gpu-results-from-ci.sh pack [BUILD]      # here: BUILD (default build/release) -> .bin/ci-bench/
#   PART=1 bash scripts/gpu-results-from-ci.sh run        # there, carrying .deps and .bin/ci-bench: gpu-bench.sh
#                                                         # (the ladder, fold-bench --full), torch's fused calls
#   PART=2 bash scripts/gpu-results-from-ci.sh run        # there: fold-segmented-bench with torch (gpu-segmented.sh),
#                                                         # then fold-bench --by-key --full
#   python3 benchmarks/report.py all <part 1's out>       # here: fold-bench.{md,png}, summary.txt, docs/ladder.md
#   python3 benchmarks/report.py fused <part 1's out>     #       fused-bench.{json,md}
#   python3 benchmarks/report.py segmented <part 2's out> #       segmented-bench.*, torch-*.json
#   cp <part 2's out>/by-key-bench.{json,txt} benchmarks/results/ &&
#     python3 benchmarks/report.py by-key benchmarks/results/by-key-bench.json
#
# FOLD_COMMIT names the commit measured (recorded in the JSON). JSON and logs go to $OUT (default: out/).
set -uo pipefail
mode=${1:-}
BINS=.bin/ci-bench

if [[ $mode == pack ]]; then
  build=${2:-build/release}
  mkdir -p "$BINS" || exit 1
  for b in fold-bench fold-ladder fold-segmented-bench; do
    cp "$build/benchmarks/$b" "$BINS/" && strip "$BINS/$b" || exit 1
  done
  du -ch "$BINS"/* | tail -1
  exit 0
fi
[[ $mode == run ]] || { sed -n '2,17p' "$0"; exit 2; }
[[ ${PART:-} == 1 || ${PART:-} == 2 ]] || { echo "run: PART=1 or PART=2"; exit 2; }

OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
commit=${FOLD_COMMIT:-unknown}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/device.txt"
t0=$(date +%s)
case ${PART:-} in
  1)
    FOLD_COMMIT=$commit BINS=$BINS BUILD=${BUILD:-build-gpu} OUT=$OUT bash scripts/gpu-bench.sh >"$OUT/bench.log" 2>&1 \
      || { tail -20 "$OUT/bench.log"; exit 1; }
    python3 benchmarks/torch_fused.py "$OUT/torch-fused.json" >"$OUT/torch-fused.txt" 2>&1 || tail -5 "$OUT/torch-fused.txt"
    tail -3 "$OUT/bench.log"
    ;;
  2)
    FOLD_COMMIT=$commit BINS=$BINS BUILD=${BUILD:-build-gpu} OUT=$OUT bash scripts/gpu-segmented.sh >"$OUT/segmented.log" 2>&1 \
      || { tail -20 "$OUT/segmented.log"; exit 1; }
    "$BINS/fold-bench" --by-key --full --commit="$commit" --benchmark_out="$OUT/by-key-bench.json" \
      --benchmark_out_format=json >"$OUT/by-key-bench.txt" 2>"$OUT/by-key-bench.err" || { tail -5 "$OUT/by-key-bench.err"; exit 1; }
    tail -3 "$OUT/by-key-bench.txt"
    ;;
esac
echo "part ${PART} done in $(( $(date +%s) - t0 )) s"

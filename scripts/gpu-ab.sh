#!/usr/bin/env bash
# A/B on the GPU machine: the benchmarks of a base tree (BASE_DIR, e.g. `git archive <commit>` unpacked into an
# ignored folder and carried) and of this work tree, built side by side and run alternately in one call, so that
# both meet the same GPU, clocks and lease: fold-bench's default subset (WHOLE=0: not; BENCH_ARGS: fold-bench's
# arguments instead, e.g. --full --benchmark_filter=...) and fold-segmented-bench (SEGMENTED=0: not) ROUNDS times
# each, alternating, then fold-bench --host once (HOST=0: not). Then benchmarks/ab_compare.py prints, per case,
# the work tree's fold time over the base's, next to cub's (the same code in both: its ratio is the drift between
# runs, the yardstick). BINS: a folder of prebuilt binaries, base/ and new/ (fold-bench, fold-segmented-bench), used
# instead of building the trees. Run from the repository root with Google Benchmark under .deps/usr.
set -uo pipefail
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
BASE_DIR=${1:-}
[[ -n $BASE_DIR || -n ${BINS:-} ]] || { echo "usage: gpu-ab.sh <base tree> (or BINS=<folder of base/ and new/ binaries>)"; exit 1; }
OUT=${OUT:-$PWD/out}
ROUNDS=${ROUNDS:-2}
mkdir -p "$OUT"
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
NEW_BUILD=${NEW_BUILD:-build-ab-new}
BASE_BUILD=$PWD/build-ab-base
WHOLE=${WHOLE:-1}
targets="fold-segmented-bench"
[[ $WHOLE == 1 ]] && targets="fold-bench $targets"

build() # <source> <build dir>
{
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$DEPS" -DFOLD_BUILD_TESTS=OFF \
    -DFOLD_BUILD_PRECOMPILED=OFF >"$2.configure.log" 2>&1 && bash "$SCRIPTS/build-targets.sh" "$2" $targets \
    >"$2.build.log" 2>&1 || { tail -30 "$2.build.log"; return 1; }
}
mkdir -p "$NEW_BUILD" "$BASE_BUILD"
if [[ -n ${BINS:-} ]]; then # prebuilt: $BINS/<base|new>/<benchmark>
  for side in base new; do
    dir=$BASE_BUILD; [[ $side == new ]] && dir=$NEW_BUILD
    mkdir -p "$dir/benchmarks" && cp "$BINS/$side"/fold-* "$dir/benchmarks/"
  done
else
  build "$BASE_DIR" "$BASE_BUILD" || exit 1
  build . "$NEW_BUILD" || exit 1
fi

for round in $(seq 1 "$ROUNDS"); do
  for side in base new; do
    dir=$BASE_BUILD; [[ $side == new ]] && dir=$NEW_BUILD
    if [[ $WHOLE == 1 ]]; then
      "$dir/benchmarks/fold-bench" ${BENCH_ARGS:-} >"$OUT/ab-$side-$round.txt" 2>/dev/null \
        || { echo "fold-bench ($side) failed"; exit 1; }
    fi
    if [[ ${SEGMENTED:-1} == 1 ]]; then
      "$dir/benchmarks/fold-segmented-bench" >"$OUT/ab-$side-segmented-$round.txt" 2>/dev/null \
        || { echo "fold-segmented-bench ($side) failed"; exit 1; }
    fi
  done
done
if [[ $WHOLE == 1 && ${HOST:-1} == 1 ]]; then
  for side in base new; do
    dir=$BASE_BUILD; [[ $side == new ]] && dir=$NEW_BUILD
    "$dir/benchmarks/fold-bench" --host >"$OUT/ab-$side-host.txt" 2>/dev/null \
      || { echo "fold-bench --host ($side) failed"; exit 1; }
  done
fi
python3 benchmarks/ab_compare.py "$OUT"

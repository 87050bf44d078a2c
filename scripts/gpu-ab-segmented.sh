#!/usr/bin/env bash
# A/B of fold-segmented-bench on the GPU machine. The trees named in SIDES (base: BASE_DIR, default .ab-base, e.g.
# `git archive <commit>` unpacked there and carried; new: this work tree; v2: V2_DIR) are built side by side
# (fold-segmented-bench, and on new the tests in TT unless TESTS=0); then fold-segmented-bench
# --benchmark_filter=FILTER runs ROUNDS times (default 3), alternating the trees, then ctest -R TR on new. Prints per
# case each tree's mean fold time (us), its ratio to the first tree's in kernel mode (one call) and in stream mode
# (10 calls back to back), and % of peak. BINS: a folder of prebuilt binaries, <side>/fold-segmented-bench, used
# instead of building (TESTS=0 then). Run from the repository root with Google Benchmark under .deps/usr.
set -uo pipefail
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.memory --format=csv > "$OUT/device.txt"
declare -A TREE=([base]=${BASE_DIR:-.ab-base} [new]=. [v2]=${V2_DIR:-.ab-v2})
SIDES=${SIDES:-"base new"}
FILTER=${FILTER:-'(fixed-[0-9]+/sized/|^axes/[0-9]+x[0-9]+/axis1)'}
TT=${TT:-"device.device_segmented_reduce device.device_reduce_axes device.device_segmented_reduce_ops"}
t0=$(date +%s)
for s in $SIDES; do
  b=$PWD/build-ab-$s
  if [[ -n ${BINS:-} ]]; then # prebuilt: $BINS/<side>/fold-segmented-bench
    mkdir -p $b/benchmarks && cp "$BINS/$s/fold-segmented-bench" $b/benchmarks/ && continue
  fi
  tests=OFF; [[ $s == new && ${TESTS:-1} == 1 ]] && tests=ON
  ( cmake -S ${TREE[$s]} -B $b -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$DEPS" -DFOLD_BUILD_TESTS=$tests -DFOLD_BUILD_PRECOMPILED=OFF > "$OUT/cfg-$s.log" 2>&1
    t=fold-segmented-bench; [[ $tests == ON ]] && t="$t $TT"
    make -C $b -f CMakeFiles/Makefile2 -j16 --no-print-directory $t > "$OUT/build-$s.log" 2>&1 || { echo "build $s failed"; grep -E "error" "$OUT/build-$s.log" | head; } ) &
done
wait
echo "build $(( $(date +%s) - t0 )) s"
for r in $(seq 1 ${ROUNDS:-3}); do for s in $SIDES; do
  ./build-ab-$s/benchmarks/fold-segmented-bench --benchmark_filter="$FILTER" --benchmark_out="$OUT/$s-$r.json" --benchmark_out_format=json > "$OUT/$s-$r.txt" 2>&1 || echo "bench $s $r failed"
done; done
echo "bench done $(( $(date +%s) - t0 )) s"
if [[ ${TESTS:-1} == 1 ]]; then
  (cd build-ab-new && ctest -R "${TR:-segmented|axes}" --output-on-failure -j2 --timeout 600 > "$OUT/ctest.log" 2>&1); echo "ctest rc=$?"
  grep -E "tests passed|Test +#|FAILED" "$OUT/ctest.log" | tail -12
fi
python3 - "$OUT" $SIDES <<'PY'
import sys,json,glob,collections,statistics as st
out=sys.argv[1]; sides=sys.argv[2:]
d=collections.defaultdict(lambda: collections.defaultdict(list))
for s in sides:
    for f in sorted(glob.glob(f"{out}/{s}-*.json")):
        for b in json.load(open(f))["benchmarks"]:
            d[b["name"]][s].append((b.get("fold_us",0),b.get("fold_stream_us",0),b.get("fold_peak_frac",0),b.get("cub_us",0)))
lines=["case".ljust(44)+"".join(f"{s:>9}" for s in sides)+"".join(f"{s+'/b':>9}" for s in sides[1:])+" | stream"+"".join(f"{s+'/b':>9}" for s in sides[1:])+" | %pk "+" ".join(sides)+" | fold/cub "+" ".join(sides)+" | each round's ratio"]
for n in d:
    m={s:st.mean(x[0] for x in d[n][s]) for s in sides if d[n][s]}
    ms={s:st.mean(x[1] for x in d[n][s]) for s in sides if d[n][s]}
    pk={s:100*st.mean(x[2] for x in d[n][s]) for s in sides if d[n][s]}
    if len(m)<len(sides): continue
    fc={s:st.mean(x[0]/x[3] for x in d[n][s] if x[3]) if any(x[3] for x in d[n][s]) else 0 for s in sides}
    rr={s:[a[0]/b[0] for a,b in zip(d[n][s],d[n][sides[0]]) if b[0]] for s in sides[1:]}
    lines.append(n[:44].ljust(44)+"".join(f"{m[s]:9.1f}" for s in sides)+"".join(f"{m[s]/m[sides[0]]:9.3f}" for s in sides[1:])+" |       "+"".join(f"{ms[s]/ms[sides[0]]:9.3f}" for s in sides[1:])+" | "+" ".join(f"{pk[s]:.1f}" for s in sides)+" | "+" ".join(f"{fc[s]:.3f}" for s in sides)+" | rounds "+" ".join(f"{min(rr[s]):.3f}-{max(rr[s]):.3f}" for s in sides[1:]))
open(f"{out}/ab-table.txt","w").write("\n".join(lines)+"\n"); print("\n".join(lines))
PY

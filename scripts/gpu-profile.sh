#!/usr/bin/env bash
# ncu profiles of chosen benchmark cases on the GPU machine, from benchmark binaries built elsewhere (BIN, default
# .bin: fold-segmented-bench, fold-bench; carry it) or in a build tree. Each case: one launch of the named kernel
# with ncu's full set (clocks left alone), then its details page and its per-SASS-line source page as text, all
# packed into $OUT/profiles.tar.gz (the device tool brings back few files). Run from the repository root with
# Google Benchmark under .deps/usr.
#   CASES: lines of "<label> <binary>[,<its arguments>,...] <benchmark filter> <kernel regex> [<launches>]"
#   (e.g. "argmax fold-bench,--full ^ArgMax/int8/268435456/kernel/ ^ReduceKernel")
set -uo pipefail
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT/prof"
BIN=${BIN:-.bin}
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.memory --format=csv > "$OUT/prof/device.txt"
while read -r label binary filter kernel count; do
  [[ -z $label || $label == \#* ]] && continue
  rep=$OUT/prof/$label
  IFS=, read -r -a command <<< "$binary"
  ncu --clock-control none --set full --import-source no -k "regex:$kernel" -c "${count:-1}" -f -o "$rep" \
    "$BIN/${command[0]}" "${command[@]:1}" --benchmark_filter="$filter" > "$rep.log" 2>&1 || echo "$label: ncu rc=$?"
  ncu --import "$rep.ncu-rep" --page details > "$rep-details.txt" 2>&1
  ncu --import "$rep.ncu-rep" --page source --print-source sass --csv > "$rep-sass.csv" 2>&1
  grep -E "^  [A-Za-z].*(Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc A)" \
    "$rep-details.txt" | sed "s/^/$label: /"
done <<< "$CASES"
tar -czf "$OUT/profiles.tar.gz" -C "$OUT" prof && rm -rf "$OUT/prof"

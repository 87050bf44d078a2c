#!/usr/bin/env bash
# Every GPU test of the suite under compute-sanitizer's memcheck (with leak checking), racecheck, synccheck and
# initcheck. Fails if any run reports anything, fails, or does not finish. Meant for the GPU machine, from the
# repository root, with Catch2 unpacked under .deps/usr (see README); builds the tests if $BUILD has none.
#
#   OUT=out bash scripts/gpu-sanitize.sh            # all four tools
#   TOOLS="memcheck initcheck" JOBS=4 bash scripts/gpu-sanitize.sh
#
# Each test case runs alone (the Catch2 test spec of its name) under each tool, JOBS at a time. One exception: the
# case that hands fold a stream CUDA refuses, on purpose, runs with --report-api-errors no, since the failing CUDA
# calls are the point of it. The table of results is kept in $OUT/sanitize.txt (and, as the runs finish, in
# $OUT/sanitize-progress.txt), the logs of runs that are not clean in $OUT/sanitize-failed; what is not clean is
# printed last. DEADLINE=<epoch seconds> stops starting runs after that time (the rest are listed as not run).
set -uo pipefail
OUT=${OUT:-$PWD/out}
BUILD=${BUILD:-build-gpu}
TOOLS=${TOOLS:-memcheck racecheck synccheck initcheck}
JOBS=${JOBS:-8}
LIMIT=${LIMIT:-420}       # seconds per run
DEADLINE=${DEADLINE:-0}   # epoch seconds after which no run starts (0: none); those runs are listed as not run
DEPS=$PWD/.deps/usr
LOGS=$BUILD/sanitize-logs # every run's log; the logs of runs that are not clean are copied to $OUT/sanitize-failed
rm -rf "$LOGS" "$OUT/sanitize-failed" "$OUT/sanitize-progress.txt"
mkdir -p "$LOGS" "$OUT/sanitize-failed"
# A clean run's line in the table: exit 0, nothing reported (racecheck: no hazard), every Catch2 test passed.
CLEAN='rc=0 .*(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)) \| All tests passed'
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer \
  /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)

if ! ctest --test-dir "$BUILD" -N -L gpu 2>/dev/null | grep -q "Test *#"; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$DEPS" -DFOLD_BUILD_BENCHMARKS=OFF \
    >"$OUT/sanitize-configure.log" 2>&1 || { tail -30 "$OUT/sanitize-configure.log"; exit 1; }
  cmake --build "$BUILD" -j"$(nproc)" >"$OUT/sanitize-build.log" 2>&1 \
    || { grep error "$OUT/sanitize-build.log" | head -40; exit 1; }
fi

# Every test case of every GPU test, one sanitizer run each (so that the runs spread over the cores): the tests
# from ctest itself, their cases from Catch2 (names escaped for its test spec: \ , [ ]).
mapfile -t tests < <(ctest --test-dir "$BUILD" -N -L gpu | sed -nE 's/^ *Test +#[0-9]+: +([^ ]+)$/\1/p')
runs=()
for test in "${tests[@]}"; do
  exe=$BUILD/test/$test
  while IFS= read -r name; do
    [[ -z $name ]] && continue
    spec=$(printf '%s' "$name" | sed -e 's/\\/\\\\/g' -e 's/,/\\,/g' -e 's/\[/\\[/g' -e 's/\]/\\]/g')
    for tool in $TOOLS; do
      runs+=("$tool"$'\t'"$test"$'\t'"$spec")
    done
  done < <("$exe" --list-test-names-only 2>/dev/null | grep -vE '^device [0-9]+: .*, sm_[0-9]+, [0-9]+ SMs$')
done
# The longest first.
mapfile -t runs < <(printf '%s\n' "${runs[@]}" | awk -F'\t' '{ w = ($1 == "racecheck") * 2 + ($2 ~ /huge|order|paths|reproducible|arg|min_max|semantics|concurrency/); print w "\t" $0 }' | sort -rn -s -k1,1 | cut -f2-)
run_one() {
  local tool test spec
  IFS=$'\t' read -r tool test spec <<<"$1"
  local name
  name=$tool.$test.$(printf '%s' "$spec" | md5sum | cut -c1-8)
  local flags=(--tool "$tool" --error-exitcode 99 --print-limit 100)
  case $tool in
    memcheck) flags+=(--leak-check full) ;;
    racecheck) flags+=(--racecheck-report all) ;;
  esac
  # racecheck kills the process (signal 9, no output) after some thousands of launches: 100 rather than 1000
  # repetitions in the concurrency test under it (docs/errors.md).
  local repetitions=1000
  [[ $tool == racecheck ]] && repetitions=100
  # The case that hands fold a stream CUDA refuses, on purpose: its failing CUDA calls are the point of it.
  [[ $spec == *"CUDA refuses"* ]] && flags+=(--report-api-errors no)
  if (( DEADLINE > 0 && $(date +%s) > DEADLINE )); then
    printf '%-9s %-34s %-60.60s not run (deadline)\n' "$tool" "$test" "$spec" | tee -a "$OUT/sanitize-progress.txt"
    return
  fi
  local start=$SECONDS
  { echo "# $tool $test \"$spec\""; FOLD_CONCURRENCY_REPETITIONS=$repetitions timeout "$LIMIT" "$SANITIZER" "${flags[@]}" "$BUILD/test/$test" "$spec"; } \
    >"$LOGS/$name.log" 2>&1
  local rc=$?
  local summary catch
  summary=$(grep -ahE "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/$name.log" | tail -1 | sed 's/^========= //')
  catch=$(grep -ahE "^(All tests passed|test cases:)" "$LOGS/$name.log" | tail -1)
  printf '%-9s %-34s %-60.60s rc=%-3s %4ss  %s | %s\n' "$tool" "$test" "$spec" "$rc" "$((SECONDS - start))" \
    "${summary:-no summary}" "${catch:-no catch2 summary}" | tee -a "$OUT/sanitize-progress.txt" | grep -qE \
    "$CLEAN" \
    || head -c 200000 "$LOGS/$name.log" >"$OUT/sanitize-failed/$name.log"
}
export -f run_one
export BUILD LOGS LIMIT SANITIZER DEADLINE OUT CLEAN

"$SANITIZER" --version | tail -1
if [[ -n ${ONLY:-} ]]; then # a regular expression over "tool test case": run only those
  selected=()
  for run in "${runs[@]}"; do
    [[ ${run//$'\t'/ } =~ $ONLY ]] && selected+=("$run")
  done
  runs=("${selected[@]}")
fi
printf '%s\n' "${runs[@]}" | xargs -d '\n' -n 1 -P "$JOBS" bash -c 'run_one "$1"' _ >/dev/null
sort "$OUT/sanitize-progress.txt" >"$OUT/sanitize.txt"
ls "$OUT/sanitize-failed" | head -30 | sed 's/^/failed log: /'
find "$OUT/sanitize-failed" -name '*.log' | tail -n +31 | xargs -r rm -f # at most 30 come back

# Clean: exit 0, a summary of 0 errors (racecheck: 0 hazards), and Catch2's "All tests passed".
bad=$(grep -vE "$CLEAN" \
  "$OUT/sanitize.txt")
echo "== compute-sanitizer: ${#tests[@]} GPU tests, ${#runs[@]} runs (each test case under each of: $TOOLS)"
for tool in $TOOLS; do
  printf '%-9s %4d runs, %4d clean\n' "$tool" "$(grep -c "^$tool " "$OUT/sanitize.txt")" \
    "$(grep "^$tool " "$OUT/sanitize.txt" | grep -cE "$CLEAN")"
done
if (( $(wc -l <"$OUT/sanitize.txt") != ${#runs[@]} )); then
  bad+=$'\n'"only $(wc -l <"$OUT/sanitize.txt") of ${#runs[@]} runs reported"
fi
if [[ -n $bad ]]; then
  echo "== NOT CLEAN ($(printf '%s\n' "$bad" | wc -l) runs):"
  printf '%s\n' "$bad" | cut -c1-250
  exit 1
fi
echo "== all clean"

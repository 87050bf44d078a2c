#!/usr/bin/env bash
# fold::nccl across 1, 2, 4 and 8 GPUs of one machine (issue 23), in one command from the repository root:
#   scripts/gpu-nccl-scaling.sh                      everything: build, bits, bench, report (4-10 minutes)
#   PHASE=bits scripts/gpu-nccl-scaling.sh           build, then the bits check and the NCCL test per GPU count
#   PHASE=bench scripts/gpu-nccl-scaling.sh          build, then weak and strong scaling and latency per GPU count
#   PHASE=report REPORT_FROM="dir1 dir2" OUT=dir scripts/gpu-nccl-scaling.sh
#                                                    no GPU: the table from the files earlier runs left in dir1, dir2
# For each G in 1 2 4 8 up to the machine's GPU count (GPUS="1 2" picks others), with CUDA_VISIBLE_DEVICES=0..G-1,
# one NCCL rank per GPU in one process (ncclCommInitAll, one host thread per rank):
# - bits: fold-nccl-bench --bits: Sum of float and double, ArgMax of float and a non-commutative operator (affine
#   maps composed in order), 2^20 to 2^32 items in all (BITS_MAX_LOG2; and a ragged total below each power), the
#   whole array on GPU 0 for one GPU's fold::DeviceReduce and each rank's shard on its GPU, cut at the granule
#   (Shards::even with Granule; 1 for ArgMax). Every G must give one GPU's bits, hence the same bits for every G.
#   Then the NCCL Catch2 test (test/nccl/test_device_reduce_nccl.cu) for G >= 2 (TESTS=0: not).
# - bench: fold-nccl-bench --strong: weak scaling (nccl_sum/float, 2^10 to 2^31 floats per GPU: 2^10 is the latency
#   case) and strong scaling (nccl_sum_total/float, 2^10 to 2^32 floats in all, cut at the granule), fold::nccl
#   beside cub::DeviceReduce::Sum on each rank + ncclAllReduce, one ncclAllReduce of a float, and one GPU's fold.
# - report: one table (G, bits identical per case, throughput per G) on stdout, $OUT/scaling.json, $OUT/scaling.md.
# Files in $OUT (default out/; at most 8, as the device tool brings back): nccl-scaling-bits.txt (one line per case
# and G), nccl-scaling-g<G>.json (Google Benchmark JSON per G), scaling.json, scaling.md, nccl-scaling-logs.tar.gz
# (configure/build logs, each run's output, nvidia-smi). Every phase ends with the report of what $OUT holds.
# Times on H200s (estimates, not yet measured): configure + build about 1-2 minutes (two translation units, about
# 30 and 50 s each on one core here); bits under 30 s per G (the 2^32 double and affine cases hold 32 GB on GPU 0);
# the NCCL test under a minute per G; bench under a minute per G (at G=8 GPU 0 holds 72 GB). Each run has a limit
# (BITS_TIMEOUT, TEST_TIMEOUT, BENCH_TIMEOUT seconds) so that a hung collective cannot eat the call. On 8 GPUs, to
# stay under a 10-minute call: PHASE=bits in one call, PHASE=bench in the next (each builds again on a fresh
# machine), then PHASE=report here over both calls' files (REPORT_FROM). With the device tool, carry .deps (Catch2
# and Google Benchmark under .deps/usr, see README); NCCL comes from the system, NCCL_ROOT, or the nvidia-nccl-cu13
# Python package (the GPU image has it). COMMIT=<hash> names the commit where git is absent. Exits non-zero when
# any bits differ or any run fails. NVLink multicast is off (NCCL_NVLS_ENABLE=0), always, on these machines.
set -uo pipefail
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
PHASE=${PHASE:-all}
BUILD=${BUILD:-build-nccl}
DEPS=$PWD/.deps/usr
export LD_LIBRARY_PATH=$DEPS/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
BITS_MAX_LOG2=${BITS_MAX_LOG2:-32}
TESTS=${TESTS:-1}
LOGS=$BUILD/scaling-logs
BITS=$OUT/nccl-scaling-bits.txt
has_phase() { [[ ,$PHASE, == *,all,* || ,$PHASE, == *,$1,* ]]; }
rc=0

if has_phase bits || has_phase bench; then
  rm -rf "$LOGS"
  mkdir -p "$BUILD" "$LOGS"
  gpus=$(nvidia-smi -L | wc -l)
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv | tee "$LOGS/device.txt"
  nvidia-smi topo -m >>"$LOGS/device.txt" 2>&1
  if [[ -z ${GPUS:-} ]]; then
    GPUS=""
    for g in 1 2 4 8; do
      ((g <= gpus)) && GPUS="$GPUS $g"
    done
  fi
  echo "== $gpus GPUs; runs on G =$GPUS; PHASE=$PHASE"
  targets=(fold-nccl-bench)
  has_phase bits && [[ $TESTS == 1 ]] && targets+=(nccl.device_reduce_nccl)
  SECONDS=0
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH="$DEPS" \
    -DFOLD_BUILD_NCCL=ON -DFOLD_BUILD_PRECOMPILED=OFF ${NCCL_ROOT:+-DNCCL_ROOT="$NCCL_ROOT"} \
    >"$LOGS/configure.log" 2>&1 || { tail -30 "$LOGS/configure.log"; exit 1; }
  grep "fold::nccl" "$LOGS/configure.log"
  bash "$SCRIPTS/build-targets.sh" "$BUILD" "${targets[@]}" >"$LOGS/build.log" 2>&1 \
    || { grep -E "error" "$LOGS/build.log" | head -40; exit 1; }
  echo "== built ${targets[*]} in ${SECONDS}s"
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
  has_phase bits && : >"$BITS"
  echo "device name=\"$name\" gpus=$gpus commit=$commit command=\"PHASE=$PHASE scripts/gpu-nccl-scaling.sh\"" >>"$BITS"
fi

visible() { seq -s, 0 $(($1 - 1)); }

if has_phase bits; then
  for G in $GPUS; do
    SECONDS=0
    CUDA_VISIBLE_DEVICES=$(visible "$G") timeout "${BITS_TIMEOUT:-180}" "$BUILD/benchmarks/fold-nccl-bench" \
      --bits="$BITS_MAX_LOG2" >"$LOGS/g$G-bits.txt" 2>&1
    run_rc=$?
    grep '^bits ' "$LOGS/g$G-bits.txt" >>"$BITS"
    echo "status run=bits gpus=$G rc=$run_rc seconds=$SECONDS" | tee -a "$BITS"
    ((run_rc != 0)) && { rc=1; tail -5 "$LOGS/g$G-bits.txt"; }
    if [[ $TESTS == 1 ]] && ((G >= 2)); then
      SECONDS=0
      CUDA_VISIBLE_DEVICES=$(visible "$G") timeout "${TEST_TIMEOUT:-240}" "$BUILD/test/nccl.device_reduce_nccl" \
        >"$LOGS/g$G-test.txt" 2>&1
      run_rc=$?
      summary=$(grep -E "All tests passed|test cases:" "$LOGS/g$G-test.txt" | tail -1 | tr -d '"')
      echo "status run=test gpus=$G rc=$run_rc seconds=$SECONDS summary=\"$summary\"" | tee -a "$BITS"
      ((run_rc != 0)) && { rc=1; grep -E "FAILED|failed|REQUIRE|skipped" "$LOGS/g$G-test.txt" | head -10; }
    fi
  done
fi

if has_phase bench; then
  for G in $GPUS; do
    SECONDS=0
    CUDA_VISIBLE_DEVICES=$(visible "$G") timeout "${BENCH_TIMEOUT:-240}" "$BUILD/benchmarks/fold-nccl-bench" --strong \
      ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} --benchmark_out="$OUT/nccl-scaling-g$G.json" \
      --benchmark_out_format=json >"$LOGS/g$G-bench.txt" 2>&1
    run_rc=$?
    echo "status run=bench gpus=$G rc=$run_rc seconds=$SECONDS" | tee -a "$BITS"
    ((run_rc != 0)) && { rc=1; tail -5 "$LOGS/g$G-bench.txt"; }
  done
fi

if has_phase bits || has_phase bench; then
  tar -czf "$OUT/nccl-scaling-logs.tar.gz" -C "$BUILD" scaling-logs
fi

# The report: from the bits lines and the per-G JSON of every folder in REPORT_FROM (default: $OUT).
export OUT REPORT_FROM=${REPORT_FROM:-$OUT}
python3 - <<'PY' || rc=1
import glob, json, os, re, shlex

dirs = os.environ["REPORT_FROM"].split()
out = os.environ["OUT"]
CASES = ["sum_float", "sum_double", "argmax_float", "reduce_affine"]

def fields(line):
    return dict(kv.split("=", 1) for kv in shlex.split(line)[1:] if "=" in kv)

bits, status, context = {}, {}, {}
for d in dirs:
    path = os.path.join(d, "nccl-scaling-bits.txt")
    if not os.path.exists(path):
        continue
    for line in open(path):
        kind = line.split(" ", 1)[0]
        f = fields(line)
        if kind == "bits":
            bits[(f["case"], int(f["total"]), int(f["gpus"]))] = f
        elif kind == "status":
            status[(f["run"], int(f["gpus"]))] = f
        elif kind == "device":
            context.update(f)

bench = {}  # (name, arg, G) -> the benchmark's fields
for d in dirs:
    for path in glob.glob(os.path.join(d, "nccl-scaling-g*.json")):
        G = int(re.search(r"g(\d+)\.json$", path).group(1))
        try:
            data = json.load(open(path))
        except (OSError, ValueError):
            continue
        context.setdefault("bench_device", data["context"].get("device"))
        context.setdefault("nccl", data["context"].get("nccl"))
        for b in data["benchmarks"]:
            if b.get("error_occurred"):
                continue
            parts = b["name"].split("/")  # nccl_sum/float/<n>/iterations:1/manual_time
            bench[(parts[0] + "/" + parts[1], int(parts[2]), G)] = b

Gs = sorted({g for (_, _, g) in bits} | {g for (_, _, g) in bench} | {g for (_, g) in status})
# Bits: per case and G, every total gives one GPU's bits, its ranks agree, and its bits are those of every other G.
first_fold = {}
for (case, total, G), f in sorted(bits.items(), key=lambda kv: kv[0][2]):
    first_fold.setdefault((case, total), f["fold"])
def bits_cell(case, G):
    rows = [f for (c, t, g), f in bits.items() if c == case and g == G]
    if not rows:
        return "-"
    ok = [f["same"] == "yes" and f["ranks_agree"] == "yes" and f["fold"] == first_fold[(f["case"], int(f["total"]))]
          for f in rows]
    return ("yes" if all(ok) else "NO") + " (%d/%d)" % (sum(ok), len(ok))

def pick(name, G, arg=None, largest=True):
    rows = {a: b for (n, a, g), b in bench.items() if n == name and g == G}
    if not rows:
        return None, None
    a = arg if arg in rows else (max(rows) if largest else min(rows))
    return a, rows[a]

def gbps(b, key):
    return b["total_items"] * 4 / (b[key] * 1e-6) / 1e9

summary = []
for G in Gs:
    s = {"gpus": G, "bits": {c: bits_cell(c, G) for c in CASES}}
    t = status.get(("test", G))
    s["test"] = "-" if t is None else ("pass" if t["rc"] == "0" else "FAIL rc=%s" % t["rc"])
    s["runs"] = ", ".join("%s rc=%s" % (r, f["rc"]) for (r, g), f in sorted(status.items())
                          if g == G and r != "test" and f["rc"] != "0") or "ok"
    a, w = pick("nccl_sum/float", G)
    if w:
        s["weak"] = dict(items_per_gpu=a, fold_GBps=w["fold_GBps"], cub_nccl_GBps=gbps(w, "cub_nccl_us"),
                         fold_over_cub_nccl=w["fold_over_cub_nccl"], speedup_vs_one_gpu=w["speedup_vs_one_gpu"])
    a, st = pick("nccl_sum_total/float", G)
    if st:
        _, st1 = pick("nccl_sum_total/float", 1, a)
        s["strong"] = dict(total=a, fold_GBps=st["fold_GBps"], cub_nccl_GBps=gbps(st, "cub_nccl_us"),
                           fold_over_cub_nccl=st["fold_over_cub_nccl"],
                           speedup_vs_g1=(st1["fold_us"] / st["fold_us"]) if st1 else None)
    a, l = pick("nccl_sum/float", G, largest=False)
    if l:
        s["latency"] = dict(items_per_gpu=a, fold_us=l["fold_us"], cub_nccl_us=l["cub_nccl_us"],
                            allreduce1_us=l["allreduce1_us"])
    summary.append(s)

def num(x, f="%.0f"):
    return "-" if x is None else f % x
def log2(n):
    return "2^%d" % (n.bit_length() - 1) if n & (n - 1) == 0 else str(n)

head = ["G"] + CASES + ["test", "runs", "weak GB/s fold/cub", "strong GB/s fold/cub", "strong x vs G=1",
                        "latency us fold/cub/allreduce1"]
lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
for s in summary:
    w, st, l = s.get("weak"), s.get("strong"), s.get("latency")
    lines.append("| " + " | ".join([str(s["gpus"])] + [s["bits"][c] for c in CASES] + [
        s["test"], s["runs"],
        "-" if not w else "%s/%s @%s/GPU" % (num(w["fold_GBps"]), num(w["cub_nccl_GBps"]), log2(w["items_per_gpu"])),
        "-" if not st else "%s/%s @%s" % (num(st["fold_GBps"]), num(st["cub_nccl_GBps"]), log2(st["total"])),
        "-" if not st else num(st["speedup_vs_g1"], "%.2f"),
        "-" if not l else "%s/%s/%s @%s/GPU" % (num(l["fold_us"], "%.1f"), num(l["cub_nccl_us"], "%.1f"),
                                                num(l["allreduce1_us"], "%.1f"), log2(l["items_per_gpu"]))]) + " |")
table = "\n".join(lines)

md = ["# fold::nccl across GPUs (issue 23)", "",
      "Device: %s; NCCL %s; commit `%s`; NCCL_NVLS_ENABLE=0. Generated by scripts/gpu-nccl-scaling.sh from %s." % (
          context.get("name", context.get("bench_device", "?")), context.get("nccl", "?"),
          context.get("commit", "?"), ", ".join(dirs)), "",
      "Bits: per case, the totals (2^20 to 2^32 and a ragged total below each) whose result on every rank has one "
      "GPU's fold::DeviceReduce bits and the bits of every other G. Weak: float sum at the largest count per GPU; "
      "strong: at the largest total; cub = cub::DeviceReduce::Sum on each rank + ncclAllReduce; latency: the "
      "smallest count per GPU.", "", table, ""]
for name, label in [("nccl_sum/float", "Weak scaling (items per GPU)"),
                    ("nccl_sum_total/float", "Strong scaling (items in all)")]:
    args = sorted({a for (n, a, g) in bench if n == name})
    if not args:
        continue
    md += ["## " + label + ": fold us / cub+allreduce us / allreduce1 us / one GPU us (fold GB/s, same bits)", "",
           "| items | " + " | ".join("G=%d" % G for G in Gs) + " |", "|---|" + "---|" * len(Gs)]
    for a in args:
        cells = []
        for G in Gs:
            b = bench.get((name, a, G))
            cells.append("-" if not b else "%.1f / %.1f / %.1f / %.1f (%.0f, %s)" % (
                b["fold_us"], b["cub_nccl_us"], b["allreduce1_us"], b["one_gpu_us"], b["fold_GBps"],
                {1: "yes", 0: "no"}.get(int(b["same_bits_as_one_gpu"]), "n/a")))
        md.append("| %s | %s |" % (log2(a), " | ".join(cells)))
    md.append("")
diff = [f for (c, t, g), f in sorted(bits.items()) if f["same"] != "yes" or f["fold"] != first_fold[(c, t)]]
md += ["## Bits that differ", ""] + (["- %s total=%s G=%s: fold %s, one GPU %s, G=%d's %s" % (
    f["case"], f["total"], f["gpus"], f["fold"], f["one_gpu"], min(Gs), first_fold[(f["case"], int(f["total"]))])
    for f in diff] or ["none"]) + [""]
open(os.path.join(out, "scaling.md"), "w").write("\n".join(md))
json.dump({"issue": 23, "context": context, "summary": summary,
           "bits": [dict(f, total=int(f["total"]), gpus=int(f["gpus"])) for f in bits.values()],
           "status": list(status.values()),
           "bench": [dict(name=n, arg=a, gpus=g, **{k: v for k, v in b.items() if isinstance(v, (int, float))})
                     for (n, a, g), b in sorted(bench.items())]},
          open(os.path.join(out, "scaling.json"), "w"), indent=1)
print("== fold::nccl scaling (%s)" % context.get("name", context.get("bench_device", "?")))
print(table)
print("== %d bits lines, %d differ; %s/scaling.md and scaling.json" % (len(bits), len(diff), out))
bad_runs = [s for s in status.values() if s["rc"] != "0"]
raise SystemExit(1 if diff or bad_runs else 0)
PY
exit $rc

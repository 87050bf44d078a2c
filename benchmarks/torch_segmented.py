#!/usr/bin/env python3
"""torch beside fold-segmented-bench, on the same segments: for each segmented case of the bench's JSON (Sum and
Min over float, half and int32, and ArgMax over float where the lengths are fixed; segments back to back), times

  torch.segment_reduce(x, "sum" | "min", lengths=lengths)             every distribution ("segment_reduce_us")
  torch.sum | torch.amin | torch.argmax(x.view(-1, L), dim=1)         fixed lengths L ("dense_us")

on the GPU with CUDA events: one call between the events, the median of 9 calls after a warm-up (3 where a call
takes over 5 ms), as fold-segmented-bench times fold and cub. The random lengths are the bench's own: it writes
them to $FOLD_LENGTHS_DIR (`<distribution>-<items>.i32`, int32), which this script reads; fixed lengths need no
file. Cases through the fixed-size overload (`/sized`), with 64-bit offsets (`/off64`) or with begins and ends
apart (shuffled, overlapping) are left out: torch has no form for them that differs from the base case, or none at
all. A form torch does not support for a type (segment_reduce over int32, for one) is recorded as null.

Usage, on the GPU machine (scripts/gpu-segmented.sh runs it):
  python3 benchmarks/torch_segmented.py <segmented-bench.json> <lengths dir> [torch-segmented.json]
"""
import json
import os
import sys

import numpy as np
import torch

DTYPES = {"float": (torch.float32, 4), "half": (torch.float16, 2), "int32": (torch.int32, 4)}


def median_us(call):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def once():
        start.record()
        call()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) * 1e3  # us

    warmup = once()
    samples = sorted(once() for _ in range(3 if warmup > 5e3 else 9))
    return samples[len(samples) // 2]


def cases(bench):
    """(name, op, type, distribution, items, segments, fixed length) of the cases torch can run."""
    for b in bench["benchmarks"]:
        if b.get("error_occurred") or "fold_us" not in b:
            continue
        name = b["name"].split("/iterations")[0]
        parts = name.split("/")
        if parts[0] != "segmented" or len(parts) != 4:
            continue  # axes, or a variant (/sized, /off64)
        _, op, type_, dist = parts
        if type_ not in DTYPES or dist.startswith(("shuffled", "overlap")):
            continue
        length = int(b.get("segment_length", 0))
        if op == "ArgMax" and length == 0:
            continue  # segment_reduce has no argmax
        yield name, op, type_, dist, int(b["items"]), int(b["segments"]), length


def data(type_, items, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    dtype, _ = DTYPES[type_]
    if dtype == torch.int32:
        return torch.randint(-(1 << 20), 1 << 20, (items,), device="cuda", dtype=torch.int32, generator=g)
    return (torch.rand(items, device="cuda", generator=g) * 2 - 1).to(dtype)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    with open(sys.argv[1]) as f:
        bench = json.load(f)
    lengths_dir = sys.argv[2]
    path = sys.argv[3] if len(sys.argv) > 3 else "torch-segmented.json"
    case_bytes = int(bench["context"].get("case_bytes", 256 << 20))
    results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cases": []}
    for name, op, type_, dist, items, segments, length in cases(bench):
        capacity = case_bytes // DTYPES[type_][1]
        if length > 0:
            lengths = torch.full((segments,), length, device="cuda", dtype=torch.int64)
        else:
            file = os.path.join(lengths_dir, "%s-%d.i32" % (dist, capacity))
            if not os.path.exists(file):
                print("%s: no %s, left out" % (name, file))
                continue
            host = np.fromfile(file, dtype=np.int32)
            if host.size != segments or int(host.sum(dtype=np.int64)) != items:
                print("%s: %s does not match the bench's case, left out" % (name, file))
                continue
            lengths = torch.from_numpy(host.astype(np.int64)).cuda()
        x = data(type_, items, 7)
        case = {"name": name, "segment_reduce_us": None, "dense_us": None}
        if op in ("Sum", "Min"):
            reduce = "sum" if op == "Sum" else "min"
            try:
                case["segment_reduce_us"] = median_us(
                    lambda: torch.segment_reduce(x, reduce, lengths=lengths, unsafe=True))
            except RuntimeError as e:  # not implemented for this type
                print("%s: torch.segment_reduce: %s" % (name, str(e).splitlines()[0]))
        if length > 0:
            rows = x.view(segments, length)
            dense = {"Sum": lambda: torch.sum(rows, dim=1, dtype=x.dtype),
                     "Min": lambda: torch.amin(rows, dim=1),
                     "ArgMax": lambda: torch.argmax(rows, dim=1)}[op]
            try:
                case["dense_us"] = median_us(dense)
            except RuntimeError as e:
                print("%s: dense: %s" % (name, str(e).splitlines()[0]))
        results["cases"].append(case)
        del x, lengths
        torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print("device: %s, torch %s" % (results["device"], results["torch"]))
    fmt = lambda v: "%12.1f" % v if v is not None else "%12s" % "-"
    print("%-48s %12s %12s" % ("case", "segm_red us", "dense us"))
    for c in results["cases"]:
        print("%-48s %s %s" % (c["name"], fmt(c["segment_reduce_us"]), fmt(c["dense_us"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

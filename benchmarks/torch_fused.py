#!/usr/bin/env python3
"""torch.aminmax and torch.var_mean on the GPU, the rivals of fold-bench's fused families (MinMax, ArgMinMax,
VarMean), over a whole 1-d tensor: the same types and power-of-two sizes as `fold-bench --full` (aminmax over
int8, int32, int64, float16, bfloat16, float32, float64; var_mean over the four floating types), timed with CUDA
events, median of 9 after a warm-up; and, for reference, torch's two separate calls (amin + amax; argmin + argmax,
which fold's ArgMinMax replaces; torch has no fused argminmax). Each case also reports GB/s and the ratio to the
peak given with --peak-gbps (fold-bench prints it). Writes JSON to the path given (default: torch-fused.json) and
prints a table. Run on the GPU machine: python3 benchmarks/torch_fused.py $OUT/torch-fused.json [--quick]"""
import json
import sys

import torch

TYPES = {
    "int8": torch.int8,
    "int32": torch.int32,
    "int64": torch.int64,
    "half": torch.float16,
    "bfloat16": torch.bfloat16,
    "float": torch.float32,
    "double": torch.float64,
}
FLOATS = ("half", "bfloat16", "float", "double")

CALLS = {
    "aminmax": lambda x: torch.aminmax(x),
    "amin+amax": lambda x: (torch.amin(x), torch.amax(x)),
    "argmin+argmax": lambda x: (torch.argmin(x), torch.argmax(x)),
    "var_mean": lambda x: torch.var_mean(x, correction=1),
}


def make(n, dtype):
    if dtype.is_floating_point:
        return torch.rand(n, device="cuda", dtype=torch.float32).to(dtype) * 2 - 1
    info = torch.iinfo(dtype)
    low, high = (info.min, info.max) if info.bits <= 16 else (-(1 << 20), 1 << 20)
    return torch.randint(low, high, (n,), device="cuda", dtype=dtype)


def time_us(call, x, start, stop):
    call(x)
    samples = []
    for _ in range(9):
        start.record()
        call(x)
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) * 1e3)
    samples.sort()
    return samples[len(samples) // 2]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    quick = "--quick" in sys.argv
    peak = next((float(a.split("=")[1]) for a in sys.argv if a.startswith("--peak-gbps=")), None)
    path = args[0] if args else "torch-fused.json"
    sizes = [1 << k for k in range(10, 31, 4 if quick else 1)]
    free = torch.cuda.mem_get_info()[0]
    results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "peak_GBps": peak, "cases": []}
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for type_name, dtype in TYPES.items():
        item_bytes = torch.empty(0, dtype=dtype).element_size()
        for n in sizes:
            if n * item_bytes > free // 4:
                continue
            x = make(n, dtype)
            for call_name, call in CALLS.items():
                if call_name == "var_mean" and type_name not in FLOATS:
                    continue
                us = time_us(call, x, start, stop)
                gbps = n * item_bytes / (us * 1e-6) / 1e9
                results["cases"].append({"call": call_name, "type": type_name, "n": n, "torch_us": us,
                                         "GBps": gbps, "peak_frac": gbps / peak if peak else None})
            del x
            torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"device: {results['device']}, torch {results['torch']}")
    for c in results["cases"]:
        frac = f"{100 * c['peak_frac']:6.1f} % peak" if c["peak_frac"] else ""
        print(f"{c['call']:14s} {c['type']:9s} {c['n']:12d} {c['torch_us']:11.1f} us {c['GBps']:8.0f} GB/s {frac}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""torch.sum(x, dim) on the GPU for the axis-reduction cases of fold-segmented-bench (float32; float16 and int32,
summed to their own type, for the cases whose name ends in /half or /int32), and torch.amax(x, dim) for those whose
name ends in /max (float32, or float16 for /half/max), timed with CUDA events, median of 9 after a warm-up. Writes
JSON to the path given (default: torch-axes.json) and prints a table.
Run on the GPU machine: python3 benchmarks/torch_axes.py $OUT/torch-axes.json"""
import json
import sys

import torch

CASES = [
    ((1 << 14, 1 << 14), (0,), "axes/16384x16384/axis0"),
    ((1 << 14, 1 << 14), (1,), "axes/16384x16384/axis1"),
    ((1 << 24, 16), (0,), "axes/16777216x16/axis0"),
    ((1 << 24, 16), (1,), "axes/16777216x16/axis1"),
    ((16, 1 << 24), (0,), "axes/16x16777216/axis0"),
    ((16, 1 << 24), (1,), "axes/16x16777216/axis1"),
    ((1 << 12, 1 << 16), (0,), "axes/4096x65536/axis0"),
    ((1 << 12, 1 << 16), (1,), "axes/4096x65536/axis1"),
    ((64, 56, 56, 256), (0, 1, 2), "axes/64x56x56x256/axes012"),
]
# Issue 19's shapes at 2^26 items, as fold-segmented-bench registers them.
for log2_cols in (1, 2, 6, 8):
    cols = 1 << log2_cols
    rows = (1 << 26) // cols
    CASES.append(((rows, cols), (1,), f"axes/{rows}x{cols}/axis1"))
    if log2_cols <= 6:
        CASES.append(((rows, cols), (0,), f"axes/{rows}x{cols}/axis0"))
CASES += [
    ((64, 4096, 256), (1,), "axes/64x4096x256/axis1"),
    ((4096, 64, 256), (1,), "axes/4096x64x256/axis1"),
    ((256, 256, 1024), (1,), "axes/256x256x1024/axis1"),
    ((256, 512, 512), (1, 2), "axes/256x512x512/axes12"),
]
# Sum over half and int32 for five of them, as fold-segmented-bench registers them.
for shape, dims, name in [c for c in CASES if c[2] in ("axes/16384x16384/axis0", "axes/16384x16384/axis1",
                                                        "axes/16777216x16/axis0", "axes/16777216x16/axis1",
                                                        "axes/64x4096x256/axis1")]:
    CASES += [(shape, dims, name + "/half"), (shape, dims, name + "/int32")]
# Max over float for seven of them and over half for two, as fold-segmented-bench registers them.
CASES += [(shape, dims, name + "/max") for shape, dims, name in CASES if name in (
    "axes/16384x16384/axis0", "axes/16384x16384/axis1", "axes/4096x65536/axis0", "axes/16777216x16/axis0",
    "axes/16777216x16/axis1", "axes/64x4096x256/axis1", "axes/64x56x56x256/axes012")]
CASES += [(shape, dims, name + "/half/max") for shape, dims, name in CASES if name in (
    "axes/16384x16384/axis0", "axes/16777216x16/axis1")]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "torch-axes.json"
    results = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cases": []}
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for shape, dims, name in CASES:
        parts = name.split("/")
        if "int32" in parts:
            x = torch.randint(-1000, 1000, shape, device="cuda", dtype=torch.int32)
        else:
            dtype = torch.float16 if "half" in parts else torch.float32
            x = torch.rand(shape, device="cuda", dtype=dtype) * 2 - 1
        if parts[-1] == "max":
            reduce = lambda: torch.amax(x, dim=dims)
        else:
            reduce = lambda: torch.sum(x, dim=dims, dtype=x.dtype)
        reduce()
        samples = []
        for _ in range(9):
            start.record()
            reduce()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) * 1e3)  # us
        samples.sort()
        results["cases"].append({"name": name, "torch_us": samples[len(samples) // 2]})
        del x
        torch.cuda.empty_cache()
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"device: {results['device']}, torch {results['torch']}")
    for c in results["cases"]:
        print(f"{c['name']:34s} torch {c['torch_us']:10.1f} us")


if __name__ == "__main__":
    main()

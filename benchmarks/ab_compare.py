#!/usr/bin/env python3
"""Compares the outputs of scripts/gpu-ab.sh: the work tree's fold against the base's, case by case.

For each case it prints new fold time / base fold time, and new cub time / base cub time: cub is the same code in
both runs, so its ratio is the drift between runs, the yardstick a fold ratio is read against. Every case is in
ab-compare.txt; the last lines (what a reader needs) are printed to stdout.
"""
import glob
import math
import os
import re
import statistics
import sys

TABLE = re.compile(r"^(\S+)\s+(\S+)\s+(\d+)\s+(kernel|stream|graph)\s+([\d.]+)\s+([\d.]+)\s")
HOST = re.compile(r"^(\S+)\s+(\S+)\s+2\^(\d+)\s+(fold|cub)\s+host\s+([\d.]+) us/call, until done\s+([\d.]+)")
SEGMENTED = re.compile(r"^(\S+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+[\d.]+$")


def parse(paths, pattern, key, values):
    """{key: [values...]} over every matching line of every file."""
    found = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                m = pattern.match(line.strip())
                if m:
                    found.setdefault(key(m), []).append(values(m))
    return found


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def compare(title, base, new, lines):
    """Appends to `lines` one row per case present in both; returns (fold ratios, cub ratios)."""
    fold_ratios, cub_ratios = [], []
    lines.append(f"== {title}: new/base fold time, new/base cub time (drift)")
    for key in sorted(set(base) & set(new), key=str):
        b_fold = statistics.median(v[0] for v in base[key])
        n_fold = statistics.median(v[0] for v in new[key])
        b_cub = statistics.median(v[1] for v in base[key])
        n_cub = statistics.median(v[1] for v in new[key])
        fold_ratio = n_fold / b_fold
        fold_ratios.append(fold_ratio)
        drift = "   no cub rival"
        if b_cub > 0 and n_cub > 0:  # axis-0 shapes have no cub rival (0 in the table)
            cub_ratios.append(n_cub / b_cub)
            drift = f"   cub {cub_ratios[-1]:6.3f}"
        lines.append(f"{' '.join(map(str, key)):<40} fold {b_fold:10.2f} -> {n_fold:10.2f} ({fold_ratio:6.3f})"
                     + drift)
    return fold_ratios, cub_ratios


def main(out):
    lines, summary = [], []
    side = lambda s, pattern: sorted(glob.glob(os.path.join(out, f"ab-{s}-{pattern}")))
    table = lambda paths: parse(paths, TABLE, lambda m: (m[1], m[2], int(m[3]), m[4]),
                                lambda m: (float(m[5]), float(m[6])))
    base, new = table(side("base", "[0-9]*.txt")), table(side("new", "[0-9]*.txt"))
    f, c = compare("fold-bench", base, new, lines)
    for mode in ("kernel", "stream", "graph"):
        keys = [k for k in sorted(set(base) & set(new), key=str) if k[3] == mode]
        fr = [statistics.median(v[0] for v in new[k]) / statistics.median(v[0] for v in base[k]) for k in keys]
        cr = [statistics.median(v[1] for v in new[k]) / statistics.median(v[1] for v in base[k]) for k in keys]
        if keys:
            summary.append(f"fold-bench {mode:6}: {len(keys)} cases, fold new/base geomean {geomean(fr):.3f} "
                           f"(range {min(fr):.3f}-{max(fr):.3f}); cub drift geomean {geomean(cr):.3f} "
                           f"(range {min(cr):.3f}-{max(cr):.3f})")
    host = lambda paths: {k: [(v[0][0], v[0][1])] for k, v in
                          parse(paths, HOST, lambda m: (m[1], m[2], int(m[3]), m[4]),
                                lambda m: (float(m[5]), float(m[6]))).items()}
    hb, hn = host(side("base", "host.txt")), host(side("new", "host.txt"))
    lines.append("== fold-bench --host: us per call issued (host), base -> new")
    for key in sorted(set(hb) & set(hn), key=str):
        lines.append(f"{' '.join(map(str, key)):<30} host {hb[key][0][0]:6.2f} -> {hn[key][0][0]:6.2f}   "
                     f"until done {hb[key][0][1]:6.2f} -> {hn[key][0][1]:6.2f}")
        summary.append(lines[-1])
    seg = lambda paths: parse(paths, SEGMENTED, lambda m: (m[1],), lambda m: (float(m[2]), float(m[3])))
    sb, sn = seg(side("base", "segmented*.txt")), seg(side("new", "segmented*.txt"))
    if sb and sn:
        f, c = compare("fold-segmented-bench", sb, sn, lines)
        summary.append(f"segmented: {len(f)} cases, fold new/base geomean {geomean(f):.3f} "
                       f"(range {min(f):.3f}-{max(f):.3f}); cub drift geomean {geomean(c):.3f} "
                       f"(range {min(c):.3f}-{max(c):.3f})")
    with open(os.path.join(out, "ab-compare.txt"), "w") as f:
        f.write("\n".join(lines + ["== summary"] + summary) + "\n")
    print("\n".join(["== summary"] + summary))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out")

"""Tables of arg-driver.cu's log: `python3 arg-compare.py <log> <base> <new>` (the labels of `== <label> round <r>`
lines). Per case, the lower fold time of the rounds on each side: new/base, cub's own new/base (its drift between the
runs, the yardstick), and fold/cub and % of peak on the new side."""
import re
import sys

log, base, new = sys.argv[1:4]
times = {}  # (side, case) -> [fold, cub, peak]
side = None
for line in open(log):
    m = re.match(r"== (\S+) round", line)
    if m:
        side = m.group(1)
        continue
    m = re.match(r"(\S+)\s+(\S+)\s+(2\^\d+|len \d+)\s+fold\s+([\d.]+) us cub\s+([\d.]+) us fold/cub [\d.]+ fold\s+([\d.]+) % peak", line)
    if m and side:
        case = " ".join(m.group(1, 2, 3))
        fold, cub, peak = float(m.group(4)), float(m.group(5)), float(m.group(6))
        old = times.get((side, case))
        times[(side, case)] = [min(old[0], fold), min(old[1], cub), max(old[2], peak)] if old else [fold, cub, peak]
print(f"{'case':<28} {'new/base':>9} {'cub drift':>9} {'fold/cub':>9} {'% peak':>7} (new)")
for (s, case), (fold, cub, peak) in times.items():
    if s != new or (base, case) not in times:
        continue
    b = times[(base, case)]
    print(f"{case:<28} {fold / b[0]:9.3f} {cub / b[1]:9.3f} {fold / cub:9.3f} {peak:7.1f}  (base fold/cub {b[0] / b[1]:.3f}, {b[2]:.1f} %)")

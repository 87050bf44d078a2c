# The summary of an A/B record from arg-wide-driver.cu or extremes-driver.cu output ("== round R tree T" headers,
# trees base, new, new2, new3): per case the mean over rounds of fold/cub by mode for base, then each tree's over base's,
# then % of the datasheet peak back to back.  python3 ab-summary.py <log>
import sys, re, collections
# fold/cub per (call, type, size, tree, mode) over rounds; prints the mean over rounds, and new/base, new2/base of it
d = collections.defaultdict(list); tree = None; pct = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"== round (\d) tree (\S+)", line)
    if m: tree = m.group(2); continue
    f = line.split()
    if len(f) < 14 or f[3] != "graph": continue
    k = (f[0], f[1], f[2])
    for mode, i in (("graph", 5), ("one", 8), ("b2b", 11)):
        d[(k, tree, mode)].append(float(f[i]))
    pct[(k, tree)].append(float(f[13]))
keys = sorted({k for (k, t, m) in d}, key=lambda k: (k[0], k[1], int(k[2][2:])))
mean = lambda v: sum(v) / len(v)
print("call type size | fold/cub base graph one b2b | new/base graph one b2b | new2/base graph one b2b | new3/base graph one b2b | b2b %peak base new new2 new3")
for k in keys:
    r = {(t, m): mean(d[(k, t, m)]) for t in ("base", "new", "new2", "new3") for m in ("graph", "one", "b2b") if (k, t, m) in d}
    if ("base", "graph") not in r: continue
    s = " ".join(k) + " | " + " ".join("%.3f" % r[("base", m)] for m in ("graph", "one", "b2b"))
    for t in ("new", "new2", "new3"):
        s += " | " + " ".join("%.3f" % (r[(t, m)] / r[("base", m)]) if (t, m) in r and r[("base", m)] > 0 else "-" for m in ("graph", "one", "b2b"))
    s += " | " + " ".join("%.1f" % mean(pct[(k, t)]) if (k, t) in pct else "-" for t in ("base", "new", "new2", "new3"))
    print(s)

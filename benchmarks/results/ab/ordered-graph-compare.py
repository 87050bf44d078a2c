# Tables of ordered-small-<base>.txt from the logs of ordered-graph-driver.cu: per case and tree the lower of the rounds
# per column, then new/base, the drift of the unchanged columns (commutative, cub), and new against cub and commutative.
# Usage: python3 ordered-graph-compare.py <log> <base tree label> <new tree label>
import re,collections,sys
f,A,B=sys.argv[1],sys.argv[2],sys.argv[3]
cur=None
d=collections.defaultdict(list); bits=collections.defaultdict(set)
for l in open(f):
    m=re.match(r'== (\w+) round (\d)',l)
    if m: cur=m.group(1); continue
    m=re.match(r'(\w+)\s+2\^(\d+)\s+(\w+)\s+ord32\s+([\d.]+) ord64\s+([\d.]+) comm32\s+([\d.]+) comm64\s+([\d.]+) cub\s+([\d.]+).*bits (\w+) (\w+)',l)
    if m:
        t,lg,mode=m.group(1),int(m.group(2)),m.group(3)
        d[(t,lg,mode,cur)].append(list(map(float,m.groups()[3:8])))
        bits[(t,lg)].add((cur,m.group(9),m.group(10)))
print("type lg mode | %s ord32 ord64 comm32 cub | %s ord32 ord64 | new/base ord32 ord64 | comm drift, cub drift | new ord32/cub ord64/cub, new ord32/comm32" % (A,B))
for (t,lg,mode,side),vs in sorted(d.items()):
    if side!=A: continue
    b=[min(x[i] for x in vs) for i in range(5)]
    g=[min(x[i] for x in d[(t,lg,mode,B)]) for i in range(5)]
    print(f"{t:6} {lg:2} {mode:5} | {b[0]:7.2f} {b[1]:7.2f} {b[2]:7.2f} {b[4]:7.2f} | {g[0]:7.2f} {g[1]:7.2f} | {g[0]/b[0]:.3f} {g[1]/b[1]:.3f} | {g[2]/b[2]:.3f} {g[4]/b[4]:.3f} | {g[0]/g[4]:.3f} {g[1]/g[4]:.3f} {g[0]/g[2]:.3f}")
same=all(len(set((x[1],x[2]) for x in s))==1 for s in bits.values())
print("ordered bits identical across trees and rounds:", same)

"""The block kernel's deal of units and block segments, simulated on the host (session 74).

Lengths drawn like fold-segmented-bench's lognormal-256-2 and powerlaw-0.7 (numpy's generator, not the bench's: the
same distributions, other draws), 2^26 floats; 528 blocks (132 SMs x 4); a job costs its tiles (4096 floats) plus
0.3 of a tile; a large segment's units (16 tiles, the last shorter) are dealt first, round-robin from block 0. Prints
the most loaded block over the mean for the block segments in the order the warps list them (now), sorted longest
first with the deal going on after the units (sorted), and the two-ended list: longer than `th` tiles first, then
the rest, the deal going on after the units (>th). Run: python3 segmented-deal-sim.py
"""
import numpy as np

rng = np.random.default_rng(1)
N, G, T, BM, WM = 1 << 26, 528, 4096, 65536, 4096


def draw(kind):
    out, tot = [], 0
    while tot < N:
        m = 2_000_000
        if kind == "lognormal-256-2":
            x = np.maximum(1, np.rint(256 * np.exp(2 * rng.standard_normal(m))))
        else:  # powerlaw-0.7
            x = np.floor((1 - rng.random(m)) ** (-1 / 0.7))
        x = np.minimum(x, 1 << 24).astype(np.int64)
        c = np.cumsum(x)
        k = np.searchsorted(c, N - tot)
        out.append(x[: k + 1])
        tot += c[min(k, len(c) - 1)]
    return np.concatenate(out)


for kind in ["lognormal-256-2", "powerlaw-0.7"]:
    res = {}
    for rep in range(4):
        L = draw(kind)
        blk, lg = L[(L > WM) & (L <= BM)], L[L > BM]
        tiles = np.ceil(blk / T)
        cost = tiles + 0.3
        ucosts = [min(16, np.ceil((l - k * 16 * T) / T)) + 0.3 for l in lg for k in range(int(np.ceil(l / (16 * T))))]
        units = len(ucosts)

        def deal(order, off):
            load = np.zeros(G)
            np.add.at(load, np.arange(units) % G, np.array(ucosts))
            np.add.at(load, (np.arange(len(order)) + off) % G, cost[order])
            return load.max() / load.mean()

        perm = rng.permutation(len(blk))
        res.setdefault("now", []).append(deal(perm, 0))
        res.setdefault("sorted", []).append(deal(np.argsort(-tiles), units % G))
        for th in [2, 4, 8]:
            order = np.concatenate([perm[tiles[perm] > th], perm[tiles[perm] <= th][::-1]])
            res.setdefault(f">{th}", []).append(deal(order, units % G))
    print(kind, " ".join(f"{k}:{np.mean(v):.2f}" for k, v in res.items()))

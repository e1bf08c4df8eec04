"""Crossing points of finite-size curves from spinflip summaries, with errors from Gaussian
resampling of every point (independent per temperature, which ignores their correlation)."""
import json, random, sys

def curve(path, kind, name):
    s = json.load(open(path))
    if kind == "sg":
        pts = [(1 / x["beta"], x[name]["mean"], x[name]["err"]) for x in s["spin_glass"]]
    else:
        pts = [(r["beta"], r[name]["mean"], r[name]["err"]) for r in s["runs"]]
    return sorted(pts)

def crossing(a, b):
    d = [(x, ya - yb) for (x, ya, _), (_, yb, _) in zip(a, b)]
    found = []
    for (x0, d0), (x1, d1) in zip(d, d[1:]):
        if d0 == 0 or d0 * d1 < 0:
            found.append(x0 + (x1 - x0) * d0 / (d0 - d1))
    return found

def resampled(c):
    return [(x, y + random.gauss(0, e), e) for x, y, e in c]

def report(kind, name, files, sizes):
    random.seed(1)
    curves = [curve(f, kind, name) for f in files]
    for (la, a), (lb, b) in zip(zip(sizes, curves), list(zip(sizes, curves))[1:]):
        central = crossing(a, b)
        samples = []
        for _ in range(2000):
            c = crossing(resampled(a), resampled(b))
            if len(c) == 1:
                samples.append(c[0])
        if samples:
            m = sum(samples) / len(samples)
            sd = (sum((x - m) ** 2 for x in samples) / (len(samples) - 1)) ** 0.5
            print(f"{name} L={la}/{lb}: crossing(s) {['%.5f' % c for c in central]}; resampled {m:.5f} ± {sd:.5f} ({len(samples)} of 2000 with one crossing)")
        else:
            print(f"{name} L={la}/{lb}: crossing(s) {['%.4f' % c for c in central]}; no unique crossing in resampling")

ea = [4, 6, 8, 12]
report("sg", "xi_over_l", [f"docs/validation/ea3d_L{l}.summary.json" for l in ea], ea)
report("sg", "g", [f"docs/validation/ea3d_L{l}.summary.json" for l in ea], ea)
ising = [8, 12, 16, 24, 32]
report("ising", "u4", [f"docs/validation/ising3d_L{l}.summary.json" for l in ising], ising)

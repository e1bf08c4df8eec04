#!/usr/bin/env python3
"""Tables of the cluster validation runs of run.sh (docs/VALIDATION.md): Kaufman's e and c
against Swendsen-Wang at 2D beta_c, the 3D Binder crossings, and the integrated autocorrelation
times against L with the fitted dynamic exponents. Usage: analyse.py OUT_DIR."""

import json
import math
import re
import sys
from pathlib import Path


def summaries(out, prefix):
    """(L, summary) of every finished run named prefix_L<L>, by L."""
    found = []
    for path in Path(out).glob(f"{prefix}_L*/summary.json"):
        size = int(re.search(r"_L(\d+)$", path.parent.name).group(1))
        found.append((size, json.loads(path.read_text())))
    return sorted(found, key=lambda item: item[0])


def kaufman(out):
    print("Swendsen-Wang, 2D beta_c: estimate, Kaufman, (estimate - exact) / error")
    for size, s in summaries(out, "kaufman"):
        run = s["runs"][0]
        line = [f"L = {size:4}"]
        for name in ("e", "c"):
            est, exact = run[name], run["exact"][name]
            dev = (est["mean"] - exact) / est["err"]
            line.append(f"{name} {est['mean']:.6f}({est['err']:.6f}) {exact:.6f} {dev:+.2f}")
        m2, improved = run["m2"], run["clusters"]["m2"]
        line.append(f"m2 {m2['mean']:.6f}({m2['err']:.6f}) improved {improved['mean']:.6f}({improved['err']:.6f})")
        print("  " + "; ".join(line))


def crossings(out):
    print("Swendsen-Wang, 3D: U4 crossings of consecutive L (linear between neighbour betas)")
    curves = [(size, [(r["beta"], r["u4"]["mean"]) for r in s["runs"]]) for size, s in summaries(out, "u4")]
    for (l1, a), (l2, b) in zip(curves, curves[1:]):
        diff = [(beta, u1 - u2) for (beta, u1), (_, u2) in zip(a, b)]
        for (b0, d0), (b1, d1) in zip(diff, diff[1:]):
            if d0 == 0 or d0 * d1 < 0:
                beta = b0 - d0 * (b1 - b0) / (d1 - d0)
                print(f"  L = {l1} / {l2}: beta = {beta:.6f} (beta_c = 0.2216546)")


def fit(points):
    """Least-squares slope of ln tau against ln L."""
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(tau) for _, tau in points]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else float("nan")


def taus(out):
    print("2D beta_c: tau_int of e and |m| (in updates, Wolff also in sweeps), and z from a fit")
    literature = {"sw": "about 0.25", "wolff": "about 0.25", "metropolis": "2.17"}
    for algorithm in ("sw", "wolff", "metropolis"):
        rows = []
        for size, s in summaries(out, f"tau_{algorithm}"):
            run = s["runs"][0]
            tau_e, tau_m = run["tau_e"], run["tau_abs_m"]
            if algorithm == "wolff":
                # 4 clusters a step of <|C|> sites each: a step is 4 <|C|> / N sweeps.
                sweeps = 4 * run["clusters"]["size"]["mean"] / size**2
                tau_e, tau_m = tau_e * sweeps, tau_m * sweeps
            rows.append((size, tau_e, tau_m))
            print(f"  {algorithm:10} L = {size:4}: tau_e {tau_e:9.3f}, tau_|m| {tau_m:9.3f}")
        if len(rows) >= 2:
            z_e = fit([(l, t) for l, t, _ in rows])
            z_m = fit([(l, t) for l, _, t in rows])
            print(f"  {algorithm:10} z from tau_e {z_e:.3f}, from tau_|m| {z_m:.3f} (literature {literature[algorithm]})")


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/cluster-validation"
    kaufman(out)
    crossings(out)
    taus(out)

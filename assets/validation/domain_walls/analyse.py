#!/usr/bin/env python3
"""Table of the domain-wall runs of run.sh (docs/VALIDATION.md): per size L and beta, the
domain-wall free energies dF = F_AP - F_P = N (ln z_P - ln z_AP) / beta of the samples (each the
mean of its two populations; ln z = ln Z / N from annealing_populations.csv), their mean over
the samples (zero by the disorder's gauge symmetry), their spread sigma (the samples' standard
deviation less the populations' own noise, estimated from the difference of each sample's two
populations) and [|dF|]; the populations' equilibration (largest rho_t / R, fewest families);
and the stiffness exponent theta of sigma ~ L^theta, fitted over every L and over the largest
three. Usage: analyse.py OUT_DIR [OUT_DIR ...] [BETA ...] (the sizes of every directory; at the
schedule's beta nearest each BETA, by default the last one)."""

import csv
import math
import re
import sys
from collections import defaultdict
from pathlib import Path


def populations(path):
    """{beta: {sample: [row of run 0, row of run 1]}} of one run's annealing_populations.csv."""
    rows = defaultdict(lambda: defaultdict(list))
    with open(path / "annealing_populations.csv") as f:
        for row in csv.DictReader(f):
            rows[float(row["beta"])][int(row["sample"])].append(row)
    return rows


def walls(periodic, twisted, sites, beta):
    """Per sample: (dF of run 0, dF of run 1)."""
    pairs = []
    for sample, p_runs in sorted(periodic[beta].items()):
        ap_runs = twisted[beta][sample]
        pairs.append(
            [
                sites * (float(p["ln_z"]) - float(ap["ln_z"])) / beta
                for p, ap in zip(p_runs, ap_runs)
            ]
        )
    return pairs


def spread(pairs):
    """mean, its error, sigma, sigma's error, [|dF|], the populations' noise per sample."""
    means = [sum(pair) / len(pair) for pair in pairs]
    n = len(means)
    mean = sum(means) / n
    variance = sum((m - mean) ** 2 for m in means) / (n - 1)
    # The mean of two populations differs from the sample's dF by (d0 - d1) / 2 at most in
    # expectation: its variance is (d0 - d1)^2 / 4.
    noise = sum((pair[0] - pair[1]) ** 2 / 4 for pair in pairs) / n
    sigma = math.sqrt(max(variance - noise, 0.0))
    sigma_err = sigma / math.sqrt(2 * (n - 1))
    absolute = sum(abs(m) for m in means) / n
    return mean, math.sqrt(variance / n), sigma, sigma_err, absolute, math.sqrt(noise)


def equilibration(runs, beta, replicas):
    """Largest rho_t / R and fewest families over the populations of both runs at beta."""
    rows = [row for run in runs for sample in run[beta].values() for row in sample]
    return (
        max(float(row["rho_t"]) for row in rows) / replicas,
        min(int(row["families"]) for row in rows),
    )


def exponent(points):
    """theta, its error: the weighted line through (ln L, ln sigma)."""
    xs = [math.log(size) for size, _, _ in points]
    ys = [math.log(sigma) for _, sigma, _ in points]
    ws = [(sigma / err) ** 2 for _, sigma, err in points]
    s0, s1 = sum(ws), sum(w * x for w, x in zip(ws, xs))
    s2 = sum(w * x * x for w, x in zip(ws, xs))
    sy = sum(w * y for w, y in zip(ws, ys))
    sxy = sum(w * x * y for w, x, y in zip(ws, xs, ys))
    det = s0 * s2 - s1 * s1
    return (s0 * sxy - s1 * sy) / det, math.sqrt(s0 / det)


def main():
    dirs = [Path(arg) for arg in sys.argv[1:] if Path(arg).is_dir()]
    wanted = [float(arg) for arg in sys.argv[1:] if not Path(arg).is_dir()]
    found = {}
    for out in dirs:
        for p in out.glob("p_L*"):
            if p.is_dir():
                found[int(re.search(r"_L(\d+)$", p.name).group(1))] = out
    # A size whose two runs have not both finished (a run stopped early) is left out.
    finished = lambda size: all(  # noqa: E731
        (found[size] / f"{edge}_L{size}" / "annealing_populations.csv").exists() for edge in ("p", "ap")
    )
    for size in [size for size in found if not finished(size)]:
        print(f"L = {size}: its periodic and twisted runs have not both finished; left out")
        del found[size]
    sizes = sorted(found)
    if not sizes:
        print("no finished size")
        return
    runs = {size: (populations(found[size] / f"p_L{size}"), populations(found[size] / f"ap_L{size}")) for size in sizes}
    schedule = sorted(runs[sizes[0]][0])
    betas = [min(schedule, key=lambda b: abs(b - w)) for w in wanted] or [schedule[-1]]
    print("| L | beta | samples | [dF] | sigma(dF) | [abs dF] | noise per sample | max rho_t / R | min families |")
    print("| ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: |")
    spreads = defaultdict(list)
    for beta in betas:
        for size in sizes:
            periodic, twisted = runs[size]
            config = (found[size] / f"p_L{size}.ron").read_text()
            dims = int(re.search(r"dims: (\d)", config).group(1))
            pairs = walls(periodic, twisted, size**dims, beta)
            mean, mean_err, sigma, sigma_err, absolute, noise = spread(pairs)
            replicas = int(re.search(r"replicas: (\d+)", config).group(1))
            rho, families = equilibration((periodic, twisted), beta, replicas)
            spreads[beta].append((size, sigma, sigma_err))
            print(
                f"| {size} | {beta:g} | {len(pairs)} | {mean:+.4f}({mean_err:.4f}) | "
                f"{sigma:.4f}({sigma_err:.4f}) | {absolute:.4f} | {noise:.4f} | {rho:.2e} | {families} |"
            )
    for beta, points in spreads.items():
        if len(points) < 2:
            continue
        theta, err = exponent(points)
        line = f"beta {beta:g}: theta = {theta:.3f}({err:.3f}) over L = {points[0][0]}..{points[-1][0]}"
        if len(points) > 3:
            theta, err = exponent(points[-3:])
            line += f"; {theta:.3f}({err:.3f}) over L = {points[-3][0]}..{points[-1][0]}"
        print(line)


if __name__ == "__main__":
    main()

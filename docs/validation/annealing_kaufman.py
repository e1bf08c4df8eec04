#!/usr/bin/env python3
"""Population annealing against Kaufman's exact 2D Ising solution, from the runs' annealing.csv.

Usage: python3 docs/validation/annealing_kaufman.py DIR [DIR ...]

Each DIR is the output of `spinflip run assets/validation/annealing/ising2d_L<L>.ron`. For e, c
and f it prints, over every beta of the schedule, the deviation from the exact value in units
of the error over the runs: the largest |dev|/err (and its beta), the mean dev/err, chi^2 per
beta, and the count beyond 2 and 3 errors; then the values at a few betas around beta_c. The
errors rest on `runs` populations (8 in the validation configs), so a few points beyond 2
errors are expected; a systematic sign (mean dev/err far from 0) is a bias.
"""

import csv
import math
import sys
from pathlib import Path

QUANTITIES = ("e", "c", "f")
SHOWN_BETAS = (0.2, 0.4, 0.43, 0.4406868, 0.45, 0.5, 0.6)


def rows(directory):
    with open(Path(directory) / "annealing.csv", newline="") as handle:
        return [{k: v for k, v in row.items()} for row in csv.DictReader(handle)]


def deviations(table, quantity):
    """(beta, value, err, exact, dev/err) for every beta with an exact value and an error."""
    out = []
    for row in table:
        exact = row.get(f"exact_{quantity}", "")
        if exact == "":
            continue
        value, err = float(row[quantity]), float(row[f"{quantity}_err"])
        dev = (value - float(exact)) / err if err > 0 else math.nan
        out.append((float(row["beta"]), value, err, float(exact), dev))
    return out


def summary(directory):
    table = rows(directory)
    print(f"== {directory}: {len(table)} betas, {table[0]['populations']} populations")
    for quantity in QUANTITIES:
        devs = [d for d in deviations(table, quantity) if not math.isnan(d[4])]
        if not devs:
            print(f"  {quantity}: no exact values")
            continue
        worst = max(devs, key=lambda d: abs(d[4]))
        mean = sum(d[4] for d in devs) / len(devs)
        chi2 = sum(d[4] ** 2 for d in devs) / len(devs)
        beyond2 = sum(abs(d[4]) > 2 for d in devs)
        beyond3 = sum(abs(d[4]) > 3 for d in devs)
        print(
            f"  {quantity}: max |dev|/err {abs(worst[4]):.2f} at beta {worst[0]:.5f}, "
            f"mean dev/err {mean:+.2f}, chi^2/beta {chi2:.2f}, "
            f"beyond 2 err {beyond2}/{len(devs)}, beyond 3 err {beyond3}"
        )
    print(f"  {'beta':>9} " + " ".join(f"{q + ' (exact)':>34}" for q in QUANTITIES))
    for target in SHOWN_BETAS:
        row = min(table, key=lambda r: abs(float(r["beta"]) - target))
        cells = []
        for quantity in QUANTITIES:
            value, err = float(row[quantity]), float(row[f"{quantity}_err"])
            exact = row.get(f"exact_{quantity}", "")
            cells.append(f"{value:.6f} +- {err:.6f} ({float(exact):.6f})" if exact else "")
        print(f"  {float(row['beta']):9.5f} " + " ".join(f"{c:>34}" for c in cells))


def main(directories):
    if not directories:
        sys.exit(__doc__)
    for directory in directories:
        summary(directory)


if __name__ == "__main__":
    main(sys.argv[1:])

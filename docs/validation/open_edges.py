#!/usr/bin/env python3
"""Open edges against the infinite lattice: population annealing of the 2D Ising model with
`boundaries: (Open, Open)` at several L, from the runs' annealing.csv.

Usage: python3 docs/validation/open_edges.py SPINFLIP DIR [DIR ...]

Each DIR is the output of `spinflip run assets/validation/annealing/open_L64.ron` with its
`size` changed; SPINFLIP is the binary, whose `spinflip exact` gives Kaufman's e and f of a
4096^2 torus (the infinite lattice to many digits at these betas). An open L x L square
differs from the infinite lattice by its four edges: L (f - f_inf) and L (e - e_inf) tend to
constants (twice the surface free energy and energy of a free edge, per site of edge) as L
grows, with 1/L corrections (the corners). Printed with their errors over the runs, and at
high temperature beside the series of the infinite square's edges: the open square lacks 2L of
the torus's bonds, 2L - 1 of its plaquettes (loops of 4 bonds) and 6L - 4 of its loops of 6,
so L (f - f_inf) -> (2 ln cosh beta + 2 t^4 + 6 t^6) / beta + O(t^8), t = tanh beta.
"""

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

SHOWN_BETAS = (0.2, 0.3, 0.4, 0.44, 0.5, 0.6)
# The series' next term, O(t^8) / beta, stays below 3e-4 up to here.
SERIES_BETA = 0.2


def infinite(binary, beta):
    out = subprocess.run(
        [binary, "exact", "--size", "4096", "--beta", str(beta)],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def by_beta(directory):
    with open(Path(directory) / "annealing.csv", newline="") as handle:
        return {round(float(row["beta"]), 9): row for row in csv.DictReader(handle)}


def main(args):
    if len(args) < 2:
        sys.exit(__doc__)
    binary, runs = args[0], [(d, by_beta(d)) for d in args[1:]]
    print("  beta   L     L (f - f_inf)          L (e - e_inf)          series (L -> inf)")
    for beta in SHOWN_BETAS:
        exact = infinite(binary, beta)
        for directory, rows in runs:
            config = (Path(directory) / "config.ron").read_text()
            size = int(config.split("size:")[1].split(",")[0])
            row = rows.get(round(beta, 9))
            if row is None:
                continue
            f, f_err = float(row["f"]), float(row["f_err"])
            e, e_err = float(row["e"]), float(row["e_err"])
            t = math.tanh(beta)
            series = (2 * math.log(math.cosh(beta)) + 2 * t**4 + 6 * t**6) / beta
            series = f"{series:.5f}" if beta <= SERIES_BETA else ""
            print(
                f"  {beta:.3f}  {size:4d}  {size * (f - exact['f']):9.5f} +- {size * f_err:.5f}"
                f"  {size * (e - exact['e']):9.5f} +- {size * e_err:.5f}  {series}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""The interface free energy of the 2D Ising model from population annealing, against Kaufman.

Usage: python3 docs/validation/interface_tension.py PERIODIC_DIR ANTIPERIODIC_DIR [...]

Each pair of DIRs is the output of `spinflip run assets/validation/annealing/interface_L<L>.ron`
(the antiperiodic torus) and of the same config with `boundaries: (Periodic, Periodic)`, one
schedule. At each beta of SHOWN_BETAS it prints the twist's free energy
dF = ln Z_periodic - ln Z_antiperiodic with its error over the runs, the exact value of the
finite torus (from the runs' exact_f columns: Kaufman's terms, with the twist's signs where they
keep their digits), the deviation in errors, dF / L beside Onsager's interface tension
tau = 2 beta + ln tanh beta, and the remainder dF - tau L + ln(L) / 2 (the wall's L positions
and its capillary waves' L^(-1/2)), which tends to a constant as L grows where the slope is tau.
"""

import csv
import math
import sys
from pathlib import Path

SHOWN_BETAS = (0.46, 0.48, 0.5, 0.52, 0.56, 0.6)


def by_beta(directory):
    with open(Path(directory) / "annealing.csv", newline="") as handle:
        return {round(float(row["beta"]), 9): row for row in csv.DictReader(handle)}


def ln_z(row, sites, beta):
    """ln Z with its error, and the exact ln Z where the run has it."""
    exact = row.get("exact_f", "")
    exact = -beta * sites * float(exact) if exact != "" else None
    return sites * float(row["ln_z"]), sites * float(row["ln_z_err"]), exact


def report(periodic_dir, antiperiodic_dir):
    periodic, antiperiodic = by_beta(periodic_dir), by_beta(antiperiodic_dir)
    config = (Path(antiperiodic_dir) / "config.ron").read_text()
    size = int(config.split("size:")[1].split(",")[0])
    sites = size * size
    print(f"L = {size}: {periodic_dir} against {antiperiodic_dir}")
    print("  beta    dF (runs)          exact dF     dev/err   dF/L      tau       remainder")
    for beta in SHOWN_BETAS:
        key = min(periodic, key=lambda b: abs(b - beta))
        if abs(key - beta) > 1e-6 or key not in antiperiodic:
            continue
        zp, ep, xp = ln_z(periodic[key], sites, key)
        za, ea, xa = ln_z(antiperiodic[key], sites, key)
        cost, err = zp - za, math.hypot(ep, ea)
        exact = xp - xa if xp is not None and xa is not None else None
        shown = f"{exact:11.5f}  {(cost - exact) / err:+7.2f}" if exact is not None else " " * 20
        tension = 2 * key + math.log(math.tanh(key))
        remainder = cost - tension * size + math.log(size) / 2
        print(
            f"  {key:.3f}  {cost:9.5f} +- {err:.5f}  {shown}  {cost / size:.5f}  {tension:.5f}"
            f"  {remainder:.3f}"
        )


def main(args):
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    for periodic_dir, antiperiodic_dir in zip(args[::2], args[1::2]):
        report(periodic_dir, antiperiodic_dir)


if __name__ == "__main__":
    main(sys.argv[1:])

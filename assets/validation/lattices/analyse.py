#!/usr/bin/env python3
"""Tables of the lattice validation runs of run.sh (docs/VALIDATION.md): the Ising
ferromagnet's U4 crossings of consecutive L on the triangular, honeycomb and kagome lattices
(by Metropolis sweeps and by Swendsen-Wang updates) against their exact K_c, the Ising antiferromagnet's crossings of the staggered U4 on the square
and honeycomb lattices against the ferromagnet's K_c, and the Ising antiferromagnet's entropy per spin at beta = 5 on the
triangular and kagome lattices against the residual entropies (Wannier 1950; Kano and Naya
1953).
Usage: analyse.py OUT_DIR."""

import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from analysis import local_crossing, summaries  # noqa: E402

HONEYCOMB_KC = math.log(2 + math.sqrt(3)) / 2
TRIANGULAR_KC = math.log(3) / 4
KAGOME_KC = math.log(3 + 2 * math.sqrt(3)) / 4
CRITICAL = {
    "tri": ("triangular", TRIANGULAR_KC),
    "honey": ("honeycomb", HONEYCOMB_KC),
    "honeyms": ("honeycomb (multispin engine)", HONEYCOMB_KC),
    "trims": ("triangular (multispin engine)", TRIANGULAR_KC),
    "kagms": ("kagome (multispin engine)", KAGOME_KC),
    "kagome": ("kagome", KAGOME_KC),
    "trisw": ("triangular (Swendsen-Wang)", TRIANGULAR_KC),
    "honeysw": ("honeycomb (Swendsen-Wang)", HONEYCOMB_KC),
    "kagomesw": ("kagome (Swendsen-Wang)", KAGOME_KC),
}
STAGGERED = {
    "squareaf": ("square", math.log(1 + math.sqrt(2)) / 2),
    "honeyaf": ("honeycomb", HONEYCOMB_KC),
    "squareafms": ("square (multispin engine)", math.log(1 + math.sqrt(2)) / 2),
    "honeyafms": ("honeycomb (multispin engine)", HONEYCOMB_KC),
}
RESIDUAL = {
    "triaf": ("triangular", 0.3230659669),
    "kagaf": ("kagome", 0.50183),
}


def crossings(out, prefix, name, reference, u4=lambda r: r["u4"]):
    runs = summaries(out, prefix)
    print(f"{name}: U4 crossings of consecutive L (K_c = {reference:.6f})")
    for (l1, s1), (l2, s2) in zip(runs, runs[1:]):
        first = sorted((r["beta"], u4(r)["mean"], u4(r)["err"]) for r in s1["runs"])
        second = sorted((r["beta"], u4(r)["mean"], u4(r)["err"]) for r in s2["runs"])
        found = local_crossing(first, second)
        if found is None:
            print(f"  L = {l1:4} / {l2:4}: no crossing in the range")
            continue
        x, err, _ = found
        print(
            f"  L = {l1:4} / {l2:4}: K = {x:.6f} +- {err:.6f} "
            f"({(x - reference) / err:+.2f} sigma, {(x - reference) / reference:+.2%})"
        )


def residual(out, prefix, name, reference):
    print(f"{name} Ising antiferromagnet: entropy per spin at the last beta (s_0 = {reference})")
    for path in sorted(Path(out).glob(f"{prefix}_L*/annealing.json")):
        size = int(path.parent.name.rsplit("_L", 1)[1])
        last = json.loads(path.read_text())["weighted"][-1]
        s, e = last["s"], last["e"]
        print(
            f"  L = {size:4}: beta {last['beta']:.2f}, e = {e['mean']:.6f}, "
            f"s = {s['mean']:.5f} +- {s['err']:.5f} ({(s['mean'] - reference) / s['err']:+.2f} sigma)"
        )


def main():
    out = sys.argv[1]
    for prefix, (name, reference) in CRITICAL.items():
        if summaries(out, prefix):
            crossings(out, prefix, f"{name} Ising ferromagnet", reference)
    for prefix, (name, reference) in STAGGERED.items():
        if summaries(out, prefix):
            # The vector engine's runs hold U4_s beside U4; the multispin engine's summary
            # says its magnetisation is the staggered one (`"staggered": true`).
            staggered = lambda r: r["staggered"]["u4"] if "staggered" in r else r["u4"]  # noqa: E731
            crossings(out, prefix, f"{name} Ising antiferromagnet, U4_s", reference, staggered)
    for prefix, (name, reference) in RESIDUAL.items():
        if list(Path(out).glob(f"{prefix}_L*/annealing.json")):
            residual(out, prefix, name, reference)


if __name__ == "__main__":
    main()

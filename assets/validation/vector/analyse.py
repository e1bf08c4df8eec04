#!/usr/bin/env python3
"""Tables of the vector-spin validation runs of run.sh (docs/VALIDATION.md): the U4 and
xi/L crossings of consecutive L for the 3D Heisenberg and XY models against their beta_c, the
2D XY helicity modulus on the square and honeycomb lattices against the BKT line 2T/pi, and
the 4-state clock model's e and c
against Kaufman's (from `BIN exact`, BIN the release build, default target/release/spinflip);
with --svg DIR their figures. Usage: analyse.py OUT_DIR [--svg DIR]."""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from analysis import against_half_beta_kaufman, local_crossing, summaries, svg_plot  # noqa: E402

CRITICAL = {
    "heisenberg3d": (0.693001, "Campostrini et al. 2002"),
    "xy3d": (0.4541652, "Campostrini et al. 2001"),
}
# The 2D XY parts' T_BKT and its source.
BKT = {
    "xy2d": (0.8929, "Hasenbusch 2005"),
    "xy_honeycomb": (0.576, "de Andrade et al. 2024"),
    "clock6sw": (0.9008, "the 6-state clock's upper transition, Tomita and Okabe 2002"),
}


def curve(summary, name):
    return [(r["beta"], r[name]["mean"], r[name]["err"]) for r in summary["runs"]]


def crossings(out, model):
    beta_c, source = CRITICAL[model]
    runs = summaries(out, model)
    if len(runs) < 2:
        return
    print(
        f"{model}: crossings of quadratics through the four betas around each sign change"
        f" (beta_c = {beta_c}, {source})"
    )
    for name in ("u4", "xi_over_l"):
        for (l1, s1), (l2, s2) in zip(runs, runs[1:]):
            found = local_crossing(curve(s1, name), curve(s2, name))
            if found is None:
                print(f"  {name:9} L = {l1:3} / {l2:3}: no crossing in the range")
                continue
            beta, sigma, (x0, x1) = found
            print(
                f"  {name:9} L = {l1:3} / {l2:3}: beta = {beta:.5f} +- {sigma:.5f}"
                f" ({(beta - beta_c) / sigma:+.2f} errors from beta_c; betas {x0}-{x1})"
            )


def helicity(out, part):
    """Where each L's helicity modulus crosses 2T/pi (linear between neighbour temperatures):
    T_L approaches T_BKT from above as 1/ln(L)^2 (Kosterlitz-Thouless)."""
    runs = summaries(out, part)
    if not runs:
        return
    t_bkt, source = BKT[part]
    print(f"{part}: T where the helicity modulus crosses 2T/pi (T_BKT = {t_bkt}, {source})")
    for size, s in runs:
        points = sorted((1 / r["beta"], r["helicity"]["mean"], r["helicity"]["err"]) for r in s["runs"])
        diff = [(t, y - 2 * t / math.pi, e) for t, y, e in points]
        found = []
        for (t0, d0, e0), (t1, d1, e1) in zip(diff, diff[1:]):
            if d0 == 0 or d0 * d1 < 0:
                t = t0 + (t1 - t0) * d0 / (d0 - d1)
                slope = (d1 - d0) / (t1 - t0)
                sigma = math.hypot(e0, e1) / 2 / abs(slope)
                log_squared = math.log(size) ** 2
                found.append(
                    f"T = {t:.4f} +- {sigma:.4f}, (T - T_BKT) ln(L)^2 = {(t - t_bkt) * log_squared:.2f}"
                )
        print(f"  L = {size:4}: {', '.join(found) or 'no crossing in the range'}")


def clock4(out, part):
    """The 4-state clock model is two Ising models at half the coupling: per site e(beta) =
    e_Ising(beta / 2) and c(beta) = 2 c_Ising(beta / 2) of the same L (Kaufman)."""
    lines = against_half_beta_kaufman(out, part, lambda e: e, lambda c: 2 * c)
    if lines:
        print(f"{part}: e and c against Kaufman's at beta / 2, in units of the error")
        print("\n".join(lines))


def figures(out, folder):
    """U4 and xi/L against beta for each 3D model, the helicity modulus against T in 2D with
    the line 2T/pi, one curve per L, as SVG files in `folder`."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    names = {"u4": "U4", "xi_over_l": "xi/L"}
    for model, (beta_c, _) in CRITICAL.items():
        runs = summaries(out, model)
        for name, label in names.items():
            series = [(f"L = {size}", k, curve(s, name), None, True) for k, (size, s) in enumerate(runs)]
            if series:
                title = f"{model}: {label} against beta (beta_c = {beta_c})"
                svg_plot(Path(folder) / f"{model}_{name}.svg", title, ("beta", label), series)
    for part, (t_bkt, _) in BKT.items():
        runs = summaries(out, part)
        if not runs:
            continue
        series = []
        for k, (size, s) in enumerate(runs):
            points = sorted((1 / r["beta"], r["helicity"]["mean"], r["helicity"]["err"]) for r in s["runs"])
            series.append((f"L = {size}", k, points, [(t, y) for t, y, _ in points], True))
        temperatures = [t for t, _, _ in series[0][2]]
        line = [(t, 2 * t / math.pi) for t in (min(temperatures), max(temperatures))]
        series.append(("2T/pi", len(runs), [], line, False))
        title = f"{part}: helicity modulus against T (T_BKT = {t_bkt})"
        svg_plot(Path(folder) / f"{part}_helicity.svg", title, ("T", "helicity modulus"), series)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    out = arguments[0] if arguments and arguments[0] != "--svg" else "/tmp/vector-validation"
    for model in CRITICAL:
        crossings(out, model)
    for part in BKT:
        helicity(out, part)
    for part in ("clock4", "clock4sw"):
        clock4(out, part)
    if "--svg" in arguments:
        figures(out, arguments[arguments.index("--svg") + 1])

#!/usr/bin/env python3
"""Tables of the discrete-state validation runs of run.sh (docs/VALIDATION.md): the 3-state
Potts model's U4 and xi/L crossings of consecutive L against beta_c = ln(1 + sqrt 3) and its energy at
beta_c extrapolated in L^-0.8 against u_c = -(1 + 1/sqrt 3); the 10-state Potts model's energy
histogram at beta_c (from the time series), its two peaks against Baxter's latent heat 0.696;
the Blume-Capel model's U4 and xi/L crossings at D = 1 against T_c = 1.3986 (Beale 1986) and
at D_t = 1.966 against the tricritical T_t = 0.6080 (Kwak et al. 2015); the 3D Gaussian
Edwards-Anderson glass's xi_L/L crossings against T_c = 0.951 (Katzgraber, Koerner and Young
2006); the Swendsen-Wang runs: the 2-state Potts model's e and c against Kaufman's Ising model
at beta / 2 (`spinflip exact`, the binary BIN), the 3-state model's crossings and critical
energy as potts3's, the 4-state model's e(beta_c) extrapolated in L^-0.5 against u_c = -3/2,
and every Swendsen-Wang run's improved estimator of <|m|^2> against the direct one.
Usage: analyse.py OUT_DIR."""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from analysis import against_half_beta_kaufman, line, local_crossing, summaries  # noqa: E402

BETA_C3 = math.log(1 + math.sqrt(3))
U_C3 = -(1 + 1 / math.sqrt(3))
BETA_C4 = math.log(3)
U_C4 = -1.5
U_C10 = -(1 + 1 / math.sqrt(10))
LATENT_HEAT10 = 0.696
T_C_BC = 1.3986
T_TRICRITICAL = 0.6080
T_C_GAUSS3D = 0.951


def curve(summary, name, scale=lambda beta: beta, entries="runs"):
    return [(scale(r["beta"]), r[name]["mean"], r[name]["err"]) for r in summary[entries]]


def crossings(out, prefix, reference, scale, label, name, entries="runs"):
    runs = summaries(out, prefix)
    print(f"{prefix}: {name} crossings of consecutive L ({label}_c = {reference:.5f})")
    for (l1, s1), (l2, s2) in zip(runs, runs[1:]):
        first = sorted(curve(s1, name, scale, entries))
        second = sorted(curve(s2, name, scale, entries))
        found = local_crossing(first, second)
        if found is None:
            print(f"  L = {l1:4} / {l2:4}: no crossing in the range")
            continue
        x, err, _ = found
        print(f"  L = {l1:4} / {l2:4}: {label} = {x:.5f} +- {err:.5f} ({(x - reference) / err:+.2f} sigma)")


def critical_energy(out, prefix="potts3", beta_c=BETA_C3, u_c=U_C3, power=0.8):
    """e(beta_c) = u_c + a L^-power, weighted straight line in L^-power."""
    points = []
    for size, s in summaries(out, prefix):
        at = min(s["runs"], key=lambda r: abs(r["beta"] - beta_c))
        points.append((size ** -power, at["e"]["mean"], at["e"]["err"]))
        print(f"  L = {size:4}: e(beta_c) = {at['e']['mean']:.5f} +- {at['e']['err']:.5f}")
    if len(points) >= 3:
        a, _, (var_a, _, _), chi2 = line(points, 0.0)
        err = math.sqrt(var_a)
        print(f"  u_c = {a:.5f} +- {err:.5f} (chi2/dof {chi2:.2f}) against {u_c:.5f}: "
              f"{(a - u_c) / err:+.2f} sigma")


def potts2_against_kaufman(out):
    """The 2-state Potts model, H = -sum delta, is the Ising model at beta / 2 shifted: per site
    e = (e_Ising - 2) / 2 and c = c_Ising of the same L (Kaufman)."""
    lines = against_half_beta_kaufman(out, "sw2", lambda e: (e - 2) / 2, lambda c: c)
    if lines:
        print("sw2: e and c against Kaufman's at beta / 2, in units of the error")
        print("\n".join(lines))


def improved_estimators(out, prefix):
    """The improved estimator of <|m|^2> from the cluster sizes (summary "clusters") against the
    direct one of the same runs (the simplex vectors' for q > 2, m2 for q = 2): their
    difference in units of the direct error, and the ratio of the errors."""
    rows = []
    for size, s in summaries(out, prefix):
        for run, clusters in zip(s["runs"], s.get("clusters", [])):
            direct = run.get("simplex_m2") or run["m2"]
            improved = clusters["m2"]
            rows.append(f"  L = {size:4}, beta {run['beta']:.5f}: direct {direct['mean']:.6f} +- "
                        f"{direct['err']:.6f}, clusters {improved['mean']:.6f} +- "
                        f"{improved['err']:.6f} ({(improved['mean'] - direct['mean']) / direct['err']:+.2f} "
                        f"sigma, errors {improved['err'] / direct['err']:.2f} of the direct)")
    if rows:
        print(f"{prefix}: <|m|^2> from the cluster sizes against the direct estimate")
        print("\n".join(rows))


def histogram_peaks(out):
    """The run's exact energy histogram (energy_histogram_*.csv: E, e, count) in 60 bins of e:
    the two largest local maxima (the ordered and the disordered phase) and their distance."""
    print(f"potts10: energy histogram at beta_c, peaks against the latent heat {LATENT_HEAT10} "
          f"and u_c = {U_C10:.4f}")
    for path in sorted(Path(out).glob("potts10_L*/energy_histogram_*.csv"),
                       key=lambda p: int(p.parent.name.split("_L")[1])):
        size = int(path.parent.name.split("_L")[1])
        rows = [r.split(",") for r in path.read_text().splitlines()[1:]]
        levels = [(float(e), int(n)) for _, e, n in rows]
        lo, hi = levels[0][0], levels[-1][0]
        bins = 60
        counts = [0] * bins
        for e, n in levels:
            counts[min(int((e - lo) / (hi - lo) * bins), bins - 1)] += n
        measurements = sum(counts)
        smooth = [sum(counts[max(0, k - 1):k + 2]) for k in range(bins)]
        maxima = [k for k in range(1, bins - 1) if smooth[k] >= smooth[k - 1] and smooth[k] > smooth[k + 1]]
        top = sorted(sorted(maxima, key=lambda k: -smooth[k])[:2])
        centre = lambda k: lo + (k + 0.5) * (hi - lo) / bins  # noqa: E731
        if len(top) < 2:
            print(f"  L = {size:4}: one peak at e = {centre(top[0]):.3f} ({measurements} measurements)")
            continue
        ordered, disordered = centre(top[0]), centre(top[1])
        valley = min(smooth[top[0]:top[1] + 1]) / max(smooth[top[0]], smooth[top[1]])
        print(f"  L = {size:4}: peaks at e = {ordered:.3f} and {disordered:.3f}, distance "
              f"{disordered - ordered:.3f}, mean {(ordered + disordered) / 2:.3f}, valley/peak "
              f"{valley:.3f} ({measurements} measurements)")


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/discrete-validation"
    for name in ["u4", "xi_over_l"]:
        crossings(out, "potts3", BETA_C3, lambda beta: beta, "beta", name)
    print("potts3: e at beta_c")
    critical_energy(out)
    histogram_peaks(out)
    for name in ["u4", "xi_over_l"]:
        crossings(out, "bc", T_C_BC, lambda beta: 1 / beta, "T", name)
    for name in ["u4", "xi_over_l"]:
        crossings(out, "bctri", T_TRICRITICAL, lambda beta: 1 / beta, "T", name)
    for name in ["g", "xi_over_l"]:
        crossings(out, "gauss3d", T_C_GAUSS3D, lambda beta: 1 / beta, "T", name, "spin_glass")
    potts2_against_kaufman(out)
    for prefix in ["sw2", "sw3", "sw4"]:
        improved_estimators(out, prefix)
    for name in ["u4", "xi_over_l"]:
        crossings(out, "sw3", BETA_C3, lambda beta: beta, "beta", name)
    print("sw3: e at beta_c")
    critical_energy(out, "sw3")
    print("sw4: e at beta_c")
    critical_energy(out, "sw4", BETA_C4, U_C4, 0.5)

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
    print("Swendsen-Wang, 3D: U4 crossings of consecutive L (linear between neighbour betas;")
    print("  error: the difference's error over its slope)")
    curves = [
        (size, [(r["beta"], r["u4"]["mean"], r["u4"]["err"]) for r in s["runs"]])
        for size, s in summaries(out, "u4")
    ]
    for (l1, a), (l2, b) in zip(curves, curves[1:]):
        diff = [(beta, u1 - u2, math.hypot(e1, e2)) for (beta, u1, e1), (_, u2, e2) in zip(a, b)]
        for (b0, d0, s0), (b1, d1, s1) in zip(diff, diff[1:]):
            if d0 == 0 or d0 * d1 < 0:
                beta = b0 - d0 * (b1 - b0) / (d1 - d0)
                slope = (d1 - d0) / (b1 - b0)
                sigma = s0 + (s1 - s0) * (beta - b0) / (b1 - b0)
                print(
                    f"  L = {l1} / {l2}: beta = {beta:.6f} +- {sigma / abs(slope):.6f}"
                    f" ({(beta - 0.2216546) / (sigma / abs(slope)):+.2f} errors from beta_c = 0.2216546)"
                )


def line(points, centre):
    """Weighted straight line u = a + b (beta - centre) through (beta, u, err): a, b and their
    covariance (var a, var b, cov ab)."""
    ws = [1 / err**2 for _, _, err in points]
    xs = [beta - centre for beta, _, _ in points]
    s0, s1 = sum(ws), sum(w * x for w, x in zip(ws, xs))
    s2 = sum(w * x * x for w, x in zip(ws, xs))
    sy = sum(w * u for w, (_, u, _) in zip(ws, points))
    sxy = sum(w * x * u for w, x, (_, u, _) in zip(ws, xs, points))
    det = s0 * s2 - s1 * s1
    a, b = (s2 * sy - s1 * sxy) / det, (s0 * sxy - s1 * sy) / det
    chi2 = sum(w * (u - a - b * x) ** 2 for w, x, (_, u, _) in zip(ws, xs, points))
    return a, b, (s2 / det, s0 / det, -s1 / det), chi2 / (len(points) - 2)


def fitted_crossings(out):
    print("  the same from straight lines fitted to each U4 curve over all its betas:")
    centre = 0.22165
    curves = [
        (size, line([(r["beta"], r["u4"]["mean"], r["u4"]["err"]) for r in s["runs"]], centre))
        for size, s in summaries(out, "u4")
    ]
    for (l1, (a1, b1, c1, chi1)), (l2, (a2, b2, c2, chi2)) in zip(curves, curves[1:]):
        d, slope = a1 - a2, b1 - b2
        var_d, var_s, cov = c1[0] + c2[0], c1[1] + c2[1], c1[2] + c2[2]
        beta = centre - d / slope
        var = var_d / slope**2 + d**2 * var_s / slope**4 - 2 * d * cov / slope**3
        sigma = math.sqrt(var)
        print(
            f"  L = {l1} / {l2}: beta = {beta:.6f} +- {sigma:.6f}"
            f" ({(beta - 0.2216546) / sigma:+.2f} errors from beta_c; chi2/dof of the lines"
            f" {chi1:.2f}, {chi2:.2f})"
        )


def tau_error(tau, measurements, replicas):
    """Madras-Sokal error of tau_int with Sokal's window M = 6 tau, n measurements a replica:
    sigma^2 = 2 (2M + 1) / n tau^2, the mean over independent replicas reducing it by sqrt(R)."""
    return tau * math.sqrt(2 * (2 * 6 * tau + 1) / measurements / replicas)


def fit(points):
    """Weighted least-squares fit of ln tau = a + z ln L, points (L, tau, err): (z, its error
    from the weights, chi^2 per degree of freedom)."""
    xs = [math.log(size) for size, _, _ in points]
    ys = [math.log(tau) for _, tau, _ in points]
    ws = [(tau / err) ** 2 for _, tau, err in points]
    sw = sum(ws)
    mx = sum(w * x for w, x in zip(ws, xs)) / sw
    my = sum(w * y for w, y in zip(ws, ys)) / sw
    sxx = sum(w * (x - mx) ** 2 for w, x in zip(ws, xs))
    if sxx <= 0:
        return float("nan"), float("nan"), float("nan")
    z = sum(w * (x - mx) * (y - my) for w, x, y in zip(ws, xs, ys)) / sxx
    chi2 = sum(w * (y - my - z * (x - mx)) ** 2 for w, x, y in zip(ws, xs, ys))
    dof = len(points) - 2
    return z, 1 / math.sqrt(sxx), chi2 / dof if dof > 0 else float("nan")


def replicas_of(out, name, summary):
    """Replicas of a run: from the summary's config, else from the run's .ron."""
    config = summary.get("config", {})
    if isinstance(config, dict) and "replicas" in config:
        return int(config["replicas"])
    text = (Path(out) / f"{name}.ron").read_text()
    return int(re.search(r"replicas:\s*(\d+)", text).group(1))


def taus(out):
    print("2D beta_c: tau_int of e and |m| (in updates, Wolff in sweeps), errors Madras-Sokal;")
    print("  z from a weighted fit of ln tau against ln L (all L, then without the smallest),")
    print("  and the local slopes between neighbour L")
    literature = {"sw": "about 0.25 (or log L)", "wolff": "about 0.25", "metropolis": "2.17"}
    for algorithm in ("sw", "wolff", "metropolis"):
        rows = []
        for size, s in summaries(out, f"tau_{algorithm}"):
            run = s["runs"][0]
            replicas = replicas_of(out, f"tau_{algorithm}_L{size}", s)
            n = run["samples"] / replicas
            tau_e, tau_m = run["tau_e"], run["tau_abs_m"]
            err_e, err_m = tau_error(tau_e, n, replicas), tau_error(tau_m, n, replicas)
            note = ""
            if algorithm == "wolff":
                # 4 clusters a step of <|C|> sites each: a step is 4 <|C|> / N sweeps.
                sweeps = 4 * run["clusters"]["size"]["mean"] / size**2
                note = f" (steps: {tau_e:.3f}, {tau_m:.3f}; a step = {sweeps:.4f} sweeps)"
                tau_e, tau_m, err_e, err_m = tau_e * sweeps, tau_m * sweeps, err_e * sweeps, err_m * sweeps
            rows.append((size, tau_e, err_e, tau_m, err_m))
            print(
                f"  {algorithm:10} L = {size:4}: tau_e {tau_e:9.3f} +- {err_e:.3f}, "
                f"tau_|m| {tau_m:9.3f} +- {err_m:.3f}; {replicas} replicas of {n:.0f} measurements,"
                f" {n / max(run['tau_e'], run['tau_abs_m']):.0f} x the larger tau each{note}"
            )
        for label, subset in (("all L", rows), ("without the smallest L", rows[1:])):
            if len(subset) >= 2:
                z_e, dz_e, chi_e = fit([(l, t, e) for l, t, e, _, _ in subset])
                z_m, dz_m, chi_m = fit([(l, t, e) for l, _, _, t, e in subset])
                print(
                    f"  {algorithm:10} {label}: z from tau_e {z_e:.3f} +- {dz_e:.3f} (chi2/dof {chi_e:.2f}),"
                    f" from tau_|m| {z_m:.3f} +- {dz_m:.3f} (chi2/dof {chi_m:.2f})"
                    f" (literature {literature[algorithm]})"
                )
        for a, b in zip(rows, rows[1:]):
            ratio = math.log(b[0] / a[0])
            local_e = math.log(b[1] / a[1]) / ratio
            local_m = math.log(b[3] / a[3]) / ratio
            err_e = math.hypot(a[2] / a[1], b[2] / b[1]) / ratio
            err_m = math.hypot(a[4] / a[3], b[4] / b[3]) / ratio
            print(
                f"  {algorithm:10} local z, L = {a[0]} / {b[0]}: tau_e {local_e:.3f} +- {err_e:.3f},"
                f" tau_|m| {local_m:.3f} +- {err_m:.3f}"
            )


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/cluster-validation"
    kaufman(out)
    crossings(out)
    fitted_crossings(out)
    taus(out)

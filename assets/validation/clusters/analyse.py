#!/usr/bin/env python3
"""Tables of the cluster validation runs of run.sh (docs/VALIDATION.md): Kaufman's e and c
against Swendsen-Wang at 2D beta_c and against both updates on the torus twisted along y, the 3D
Binder crossings, and the integrated autocorrelation times against L with the fitted dynamic
exponents; with --svg PATH the figure of tau against L,
with --bench FILE... (lines of `spinflip bench --json`) the table of wall time per independent
configuration at L = 1024 and 4096. Usage: analyse.py OUT_DIR [--svg PATH] [--bench FILE...]."""

import json
import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from analysis import crossing, summaries, svg_plot  # noqa: E402


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


def fitted_crossings(out):
    print("  the same from straight lines fitted to each U4 curve over all its betas:")
    curves = [
        (size, [(r["beta"], r["u4"]["mean"], r["u4"]["err"]) for r in s["runs"]])
        for size, s in summaries(out, "u4")
    ]
    for (l1, first), (l2, second) in zip(curves, curves[1:]):
        beta, sigma, chi1, chi2 = crossing(first, second, 0.22165)
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
    from the weights, chi^2 per degree of freedom, tau at L from the line)."""
    xs = [math.log(size) for size, _, _ in points]
    ys = [math.log(tau) for _, tau, _ in points]
    ws = [(tau / err) ** 2 for _, tau, err in points]
    sw = sum(ws)
    mx = sum(w * x for w, x in zip(ws, xs)) / sw
    my = sum(w * y for w, y in zip(ws, ys)) / sw
    sxx = sum(w * (x - mx) ** 2 for w, x in zip(ws, xs))
    if sxx <= 0:
        nan = float("nan")
        return nan, nan, nan, lambda size: nan
    z = sum(w * (x - mx) * (y - my) for w, x, y in zip(ws, xs, ys)) / sxx
    chi2 = sum(w * (y - my - z * (x - mx)) ** 2 for w, x, y in zip(ws, xs, ys))
    dof = len(points) - 2
    line = lambda size: math.exp(my + z * (math.log(size) - mx))  # noqa: E731
    return z, 1 / math.sqrt(sxx), chi2 / dof if dof > 0 else float("nan"), line


def config_value(out, name, summary, key):
    """An integer setting of a run (`replicas`, `every`): from the summary's config, else from
    the run's .ron."""
    config = summary.get("config", {})
    if isinstance(config, dict) and key in config:
        return int(config[key])
    text = (Path(out) / f"{name}.ron").read_text()
    return int(re.search(rf"{key}:\s*(\d+)", text).group(1))


LITERATURE = {"sw": "about 0.25 (or log L)", "wolff": "about 0.25", "metropolis": "2.17"}


def tau_rows(out, algorithm):
    """(L, tau_e, err, tau_|m|, err) of every tau_<algorithm> run, in updates (sweeps for
    Metropolis and Wolff, steps for SW), by L."""
    rows = []
    for size, s in summaries(out, f"tau_{algorithm}"):
        name = f"tau_{algorithm}_L{size}"
        if s.get("warnings"):
            # A run whose e or c misses Kaufman's value was not in equilibrium (or is wrong):
            # its tau measures the drift, not the dynamics.
            print(f"  {algorithm:10} L = {size:4}: left out, the run warns: {s['warnings'][0]}")
            continue
        run = s["runs"][0]
        replicas = config_value(out, name, s, "replicas")
        # Measurements are `every` updates apart: tau in measurements times `every` is tau in
        # updates (for tau much longer than `every`).
        every = config_value(out, name, s, "every")
        n = run["samples"] / replicas
        tau_e, tau_m = run["tau_e"], run["tau_abs_m"]
        err_e, err_m = tau_error(tau_e, n, replicas), tau_error(tau_m, n, replicas)
        scale, note = every, ""
        if algorithm == "wolff":
            # `clusters` clusters a step of <|C|> sites each: a step is that many sites over N.
            clusters = config_value(out, name, s, "clusters")
            scale = every * clusters * run["clusters"]["size"]["mean"] / size ** s["dims"]
            note = f" (steps: {tau_e:.3f}, {tau_m:.3f}; a step = {scale / every:.4f} sweeps)"
        print(
            f"  {algorithm:10} L = {size:4}: tau_e {tau_e * scale:9.3f} +- {err_e * scale:.3f}, "
            f"tau_|m| {tau_m * scale:9.3f} +- {err_m * scale:.3f}; {replicas} replicas of {n:.0f}"
            f" measurements {every} apart, {n / max(tau_e, tau_m):.0f} x the larger tau each{note}"
        )
        rows.append((size, tau_e * scale, err_e * scale, tau_m * scale, err_m * scale))
    return rows


def taus(out):
    """Print tau against L and the fitted z; return, by algorithm, the rows and the fitted
    line of tau_|m| without the smallest L (for the wall-time table and the figure)."""
    print("2D beta_c: tau_int of e and |m| (in updates: SW steps, Wolff and Metropolis sweeps),")
    print("  errors Madras-Sokal; z from a weighted fit of ln tau against ln L (all L, then")
    print("  without the smallest), and the local slopes between neighbour L")
    fitted = {}
    for algorithm in ("sw", "wolff", "metropolis"):
        rows = tau_rows(out, algorithm)
        for label, subset in (("all L", rows), ("without the smallest L", rows[1:])):
            if len(subset) >= 2:
                z_e, dz_e, chi_e, line_e = fit([(l, t, e) for l, t, e, _, _ in subset])
                z_m, dz_m, chi_m, line_m = fit([(l, t, e) for l, _, _, t, e in subset])
                fitted[algorithm] = (rows, line_e, line_m)
                print(
                    f"  {algorithm:10} {label}: z from tau_e {z_e:.3f} +- {dz_e:.3f} (chi2/dof {chi_e:.2f}),"
                    f" from tau_|m| {z_m:.3f} +- {dz_m:.3f} (chi2/dof {chi_m:.2f})"
                    f" (literature {LITERATURE[algorithm]})"
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
    return fitted


def bench_rows(paths):
    """The JSON lines of `spinflip bench --json` in the files `paths`."""
    rows = []
    for path in paths:
        for text in Path(path).read_text().splitlines():
            if text.startswith("{"):
                rows.append(json.loads(text))
    return rows


def update_time(rows, size, algorithm):
    """(ns per update of an L x L lattice, the bench row) of the fastest 2D CUDA row at `size`
    for `algorithm` ("sw": Swendsen-Wang rows, "metropolis": rows without clusters)."""
    def wanted(row):
        update = row.get("clusters", {}).get("update")
        kind = {"SwendsenWang": "sw", "Wolff": "wolff", None: "metropolis"}.get(update)
        return row["dims"] == 2 and row["size"] == size and row["model"] == "Ising" and kind == algorithm
    found = [row for row in rows if wanted(row)]
    if not found:
        return None, None
    best = max(found, key=lambda row: row["flips_per_ns"])
    return size * size / best["flips_per_ns"], best


def wall_times(fitted, benches, sizes=(1024, 4096)):
    """The table of wall time per statistically independent configuration at 2D
    beta_c, 2 tau_int(|m|) updates times the time of an update, SW against Metropolis."""
    rows = bench_rows(benches)
    print("Wall time per independent configuration at 2D beta_c: 2 tau_|m| updates x time per update")
    print("| L | algorithm | tau_abs_m (updates) | time per update | wall time per independent configuration |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for size in sizes:
        for algorithm in ("sw", "metropolis"):
            if algorithm not in fitted:
                continue
            measured, _, line_m = fitted[algorithm]
            at = [row for row in measured if row[0] == size]
            tau, source = (at[0][3], "measured") if at else (line_m(size), "fit")
            ns, bench = update_time(rows, size, algorithm)
            if ns is None:
                time, wall = "no bench row", "-"
            else:
                engine = bench["engine"] + f", {bench['flips_per_ns']:.1f} spins/ns"
                time = f"{ns / 1e6:.4g} ms ({bench['backend']} {engine})"
                wall = f"{2 * tau * ns / 1e9:.3g} s"
            print(f"| {size} | {algorithm} | {tau:.4g} ({source}) | {time} | {wall} |")


def svg_tau(fitted, path):
    """tau_|m| (filled, solid fit) and tau_e (open, dashed fit) against L on log-log axes, each
    algorithm's measurements and its fitted line without the smallest L."""
    series = []
    for index, (algorithm, (rows, line_e, line_m)) in enumerate(fitted.items()):
        for name, column, line, filled in (("tau_|m|", 3, line_m, True), ("tau_e", 1, line_e, False)):
            points = [(row[0], row[column], row[column + 1]) for row in rows]
            curve = [(row[0], line(row[0])) for row in rows]
            series.append((f"{algorithm}: {name}", index, points, curve, filled))
    svg_plot(path, "2D Ising at beta_c: tau_int against L", ("L", "tau_int (updates)"), series, log=True)


def twisted(out):
    print("The torus twisted along y: estimate, Kaufman's twisted torus, (estimate - exact) / error")
    for update in ("sw", "wolff"):
        for size, s in summaries(out, f"twisted_{update}"):
            for run in s["runs"]:
                beta = run["beta"]
                line = [f"{update:5} L = {size:4} beta {beta:.7f}"]
                path = Path(out, f"twisted_exact_L{size}_{beta!r}.json")
                if not path.exists():
                    print("  " + line[0] + ": no exact value (its terms cancel past a double's digits)")
                    continue
                exact = json.loads(path.read_text())
                for name in ("e", "c"):
                    est = run[name]
                    dev = (est["mean"] - exact[name]) / est["err"]
                    line.append(f"{name} {est['mean']:.6f}({est['err']:.6f}) {exact[name]:.6f} {dev:+.2f}")
                print("  " + "; ".join(line))
    print("The twisted torus's m2, direct and from the clusters' magnetisations (difference / combined error)")
    for update in ("sw", "wolff"):
        for size, s in summaries(out, f"twisted_{update}"):
            for run, improved in zip(s["runs"], s.get("clusters", [])):
                direct, improved = run["m2"], improved["m2"]
                dev = (improved["mean"] - direct["mean"]) / math.hypot(direct["err"], improved["err"])
                print(f"  {update:5} L = {size:4} beta {run['beta']:.7f}: m2 {direct['mean']:.6f}({direct['err']:.6f}) "
                      f"improved {improved['mean']:.6f}({improved['err']:.6f}) {dev:+.2f}")


def arguments(argv):
    """OUT_DIR [--svg PATH] [--bench FILE ...]."""
    out, svg, benches, k = "/tmp/cluster-validation", None, [], 0
    while k < len(argv):
        if argv[k] == "--svg":
            svg, k = argv[k + 1], k + 2
        elif argv[k] == "--bench":
            k += 1
            while k < len(argv) and not argv[k].startswith("--"):
                benches.append(argv[k])
                k += 1
        else:
            out, k = argv[k], k + 1
    return out, svg, benches


if __name__ == "__main__":
    out, svg, benches = arguments(sys.argv[1:])
    kaufman(out)
    twisted(out)
    crossings(out)
    fitted_crossings(out)
    fitted = taus(out)
    if svg:
        svg_tau(fitted, svg)
    if benches:
        wall_times(fitted, benches)

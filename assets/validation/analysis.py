"""What the validation scripts' analyses share (assets/validation/*/analyse.py): the runs'
summaries by L, straight lines through finite-size curves and where two of them cross, and the
local crossing of two curves too curved for one line over the whole range, and models that
map onto the 2D Ising model at half the coupling against Kaufman's solution."""

import json
import math
import os
import random
import re
import subprocess
from pathlib import Path


def summaries(out, prefix):
    """(L, summary) of every finished run named prefix_L<L> under `out`, by L."""
    found = []
    for path in Path(out).glob(f"{prefix}_L*/summary.json"):
        size = int(re.search(r"_L(\d+)$", path.parent.name).group(1))
        found.append((size, json.loads(path.read_text())))
    return sorted(found, key=lambda item: item[0])


def line(points, centre):
    """Weighted straight line y = a + b (x - centre) through (x, y, err): a, b, their
    covariance (var a, var b, cov ab) and chi^2 per degree of freedom."""
    ws = [1 / err**2 for _, _, err in points]
    xs = [x - centre for x, _, _ in points]
    s0, s1 = sum(ws), sum(w * x for w, x in zip(ws, xs))
    s2 = sum(w * x * x for w, x in zip(ws, xs))
    sy = sum(w * y for w, (_, y, _) in zip(ws, points))
    sxy = sum(w * x * y for w, x, (_, y, _) in zip(ws, xs, points))
    det = s0 * s2 - s1 * s1
    a, b = (s2 * sy - s1 * sxy) / det, (s0 * sxy - s1 * sy) / det
    chi2 = sum(w * (y - a - b * x) ** 2 for w, x, (_, y, _) in zip(ws, xs, points))
    dof = len(points) - 2
    return a, b, (s2 / det, s0 / det, -s1 / det), chi2 / dof if dof > 0 else float("nan")


def crossing(first, second, centre):
    """Where straight lines fitted to two curves of points (x, y, err) cross: (x, its error
    from the lines' covariances, chi^2/dof of each line)."""
    a1, b1, c1, chi1 = line(first, centre)
    a2, b2, c2, chi2 = line(second, centre)
    d, slope = a1 - a2, b1 - b2
    var_d, var_s, cov = c1[0] + c2[0], c1[1] + c2[1], c1[2] + c2[2]
    var = var_d / slope**2 + d**2 * var_s / slope**4 - 2 * d * cov / slope**3
    return centre - d / slope, math.sqrt(var), chi1, chi2


def polynomial(points, degree):
    """Weighted least-squares polynomial of `degree` through (x, y, err): its coefficients,
    lowest first (normal equations, solved by Gaussian elimination)."""
    n = degree + 1
    a = [[0.0] * (n + 1) for _ in range(n)]
    for x, y, err in points:
        w, powers = 1 / err**2, [x**k for k in range(n)]
        for i in range(n):
            for j in range(n):
                a[i][j] += w * powers[i] * powers[j]
            a[i][n] += w * powers[i] * y
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [v - f * p for v, p in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] for i in range(n)]


def local_crossing(first, second, resamples=400):
    """Where two curves of points (x, y, err) at the same x cross, from quadratics through the
    (up to) four points around the first sign change of their difference, each point's error
    carried by resampling (fixed seed): (x, its error, the window's x range), or None where
    they do not cross."""
    diff = [y1 - y2 for (_, y1, _), (_, y2, _) in zip(first, second)]
    change = next((k for k in range(len(diff) - 1) if diff[k] * diff[k + 1] <= 0), None)
    if change is None:
        return None
    lo, hi = max(0, change - 1), min(len(diff), change + 3)
    near = (first[change][0] + first[change + 1][0]) / 2
    x0, x1 = first[lo][0], first[hi - 1][0]
    # The fits take x relative to the window (centred on the sign change, unit width): in x
    # itself the normal equations of a window 0.1% wide lose every digit of the quadratic.
    scale = x1 - x0
    local = lambda c: [((x - near) / scale, y, e) for x, y, e in c]  # noqa: E731
    window = (local(first[lo:hi]), local(second[lo:hi]))
    degree = min(2, hi - lo - 1)
    grid = [(x0 - near) / scale + k / 200 for k in range(201)]

    def root(curves):
        """The fitted curves' crossing in the window nearest the data's sign change."""
        c1, c2 = (polynomial(c, degree) for c in curves)
        f = lambda x: sum((p - q) * x**k for k, (p, q) in enumerate(zip(c1, c2)))  # noqa: E731
        brackets = [(a, b) for a, b in zip(grid, grid[1:]) if f(a) * f(b) <= 0]
        if not brackets:
            return None
        a, b = min(brackets, key=lambda ab: abs(ab[0]))
        for _ in range(60):
            m = (a + b) / 2
            a, b = (m, b) if f(a) * f(m) > 0 else (a, m)
        return near + scale * (a + b) / 2

    centre = root(window)
    if centre is None:
        return None
    rng = random.Random(0)
    noisy = lambda c: [(x, y + rng.gauss(0, e), e) for x, y, e in c]  # noqa: E731
    spread = [r for r in (root([noisy(c) for c in window]) for _ in range(resamples)) if r is not None]
    mean = sum(spread) / len(spread)
    sigma = math.sqrt(sum((r - mean) ** 2 for r in spread) / (len(spread) - 1))
    return centre, sigma, (x0, x1)


COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]


def svg_plot(path, title, labels, series, log=False):
    """An SVG figure of `series`, each (label, colour index, points (x, y, err), line [(x, y)]
    or None, filled markers and solid line or open and dashed), the points with error bars, on
    linear or log-log axes; labels = (x label, y label)."""
    width, height, margin = 640, 440, 64
    xs = [x for _, _, points, line, _ in series for x, *_ in points + (line or [])]
    ys = [y for _, _, points, line, _ in series for _, y, *_ in points + (line or [])]
    ys += [y + e for _, _, points, _, _ in series for _, y, e in points]
    ys += [y - e for _, _, points, _, _ in series for _, y, e in points if not log]
    scale = (lambda v: math.log10(v)) if log else (lambda v: v)  # noqa: E731
    if log:
        (x0, x1), (y0, y1) = (
            (math.floor(min(map(scale, vs))), math.ceil(max(map(scale, vs)))) for vs in (xs, ys)
        )
        xticks, yticks = [10.0**d for d in range(x0, x1 + 1)], [10.0**d for d in range(y0, y1 + 1)]
    else:
        (x0, x1), (y0, y1) = ((min(vs), max(vs)) for vs in (xs, ys))
        pad = (y1 - y0) * 0.05 or 1
        y0, y1 = y0 - pad, y1 + pad
        xticks = [x0 + k * (x1 - x0) / 5 for k in range(6)]
        yticks = [y0 + k * (y1 - y0) / 5 for k in range(6)]
    sx = lambda v: margin + (scale(v) - x0) / (x1 - x0) * (width - 2 * margin)  # noqa: E731
    sy = lambda v: height - margin - (scale(v) - y0) / (y1 - y0) * (height - 2 * margin)  # noqa: E731
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="14">{title}</text>',
        f'<text x="{width / 2}" y="{height - 14}" text-anchor="middle">{labels[0]}</text>',
        f'<text x="16" y="{height / 2}" transform="rotate(-90 16 {height / 2})" text-anchor="middle">{labels[1]}</text>',
    ]
    for x in xticks:
        out.append(f'<line x1="{sx(x):.1f}" y1="{margin}" x2="{sx(x):.1f}" y2="{height - margin}" stroke="#ddd"/>')
        out.append(f'<text x="{sx(x):.1f}" y="{height - margin + 16}" text-anchor="middle">{x:.4g}</text>')
    for y in yticks:
        out.append(f'<line x1="{margin}" y1="{sy(y):.1f}" x2="{width - margin}" y2="{sy(y):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{margin - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:.4g}</text>')
    for k, (label, index, points, line, filled) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        if line:
            d = " ".join(f"{'M' if j == 0 else 'L'}{sx(x):.1f},{sy(y):.1f}" for j, (x, y) in enumerate(line))
            dash = "" if filled else ' stroke-dasharray="4 3"'
            out.append(f'<path d="{d}" fill="none" stroke="{colour}"{dash}/>')
        for x, y, err in points:
            low = max(y - err, y * 1e-3) if log else y - err
            out.append(f'<line x1="{sx(x):.1f}" y1="{sy(y + err):.1f}" x2="{sx(x):.1f}" y2="{sy(low):.1f}" stroke="{colour}"/>')
            fill = colour if filled else "white"
            out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3.5" fill="{fill}" stroke="{colour}"/>')
        out.append(f'<text x="{margin + 10}" y="{margin + 14 + 16 * k}" fill="{colour}">{label}</text>')
    out.append("</svg>")
    Path(path).write_text("\n".join(out) + "\n")
    print(f"figure: {path}")


def against_half_beta_kaufman(out, prefix, energy, heat):
    """Each run of `prefix` (a model that maps onto the Ising model at beta / 2), e and c in
    units of their errors against energy(e_Ising) and heat(c_Ising) of Kaufman's Ising model of
    the same L at beta / 2, from `spinflip exact` (the binary BIN); None where there are no
    runs, else a line per L."""
    runs = summaries(out, prefix)
    if not runs:
        return None
    binary = os.environ.get("BIN", "target/release/spinflip")
    lines = []
    for size, s in runs:
        cells = []
        for r in s["runs"]:
            command = [binary, "exact", "--size", str(size), "--beta", str(r["beta"] / 2)]
            exact = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
            de = (r["e"]["mean"] - energy(exact["e"])) / r["e"]["err"]
            dc = (r["c"]["mean"] - heat(exact["c"])) / r["c"]["err"]
            cells.append(f"{r['beta']:.4f}: {de:+.2f} / {dc:+.2f}")
        lines.append(f"  L = {size:4}: {', '.join(cells)}")
    return lines

"""What the validation scripts' analyses share (assets/validation/*/analyse.py): the runs'
summaries by L, straight lines through finite-size curves and where two of them cross."""

import json
import math
import re
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

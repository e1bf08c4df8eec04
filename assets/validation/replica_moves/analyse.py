"""The replica moves' effect on equilibration (assets/validation/replica_moves/run.sh): per run
pair (with the moves, and parallel tempering alone) at each L, at the lowest temperature, the
sweeps after which every logarithmic bin's q^2 agrees with the last bin's (within two combined
errors), the integrated autocorrelation time of q^2 in sweeps, the final q^2, the run's wall
time, and the ratios; the sweeps after which the moves' q^2 passes tempering alone's last bin
(for runs that do not settle: how much sooner the moves get as far); then the moves'
acceptance and mean cluster at that temperature. With
--svg DIR, the figure of q^2 at the lowest temperature in the logarithmic bins of every run.
Usage: analyse.py OUT_DIR [--svg DIR]."""

import math
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from analysis import summaries, svg_plot  # noqa: E402


def measure_every(out, run):
    """Sweeps between measurements of run `run`, from its config ($OUT/run.ron)."""
    config = (Path(out) / f"{run}.ron").read_text()
    return int(re.search(r"sweeps: \(.*every: (\d+)", config).group(1))


def settled(bins, key="q2"):
    """First sweep of the earliest bin from which every bin agrees with the last within 2
    sigma; the last bin's first sweep where none before it does."""
    last = bins[-1]["averages"][key]
    start = bins[-1]["first_sweep"]
    for b in reversed(bins[:-1]):
        a = b["averages"][key]
        if abs(a["mean"] - last["mean"]) > 2 * (a["err"] ** 2 + last["err"] ** 2) ** 0.5:
            break
        start = b["first_sweep"]
    return start


def coldest_bins(summary):
    """The logarithmic bins of the equilibration check at the lowest temperature."""
    return max(summary["equilibration"], key=lambda c: c["beta"])["bins"]


def catch_up(moved, plain):
    """(sweeps, plain's q2, plain's sweeps): the last sweep of the first bin of the moves' run
    whose q2 reaches that of tempering alone's last bin, that q2 and the last sweep of plain's
    run; sweeps None where the moves never reach it."""
    last = coldest_bins(plain)[-1]
    target = last["averages"]["q2"]["mean"]
    reached = (b["last_sweep"] for b in coldest_bins(moved) if b["averages"]["q2"]["mean"] >= target)
    return next(reached, None), target, last["last_sweep"]


def row(summary, every):
    """(T, sweeps to settle, tau of q2 in sweeps, q2 and its error, wall seconds) at the
    lowest temperature, of a run measured every `every` sweeps."""
    glass = max(summary["spin_glass"], key=lambda t: t["beta"])
    q2 = glass.get("q2") or glass["overlaps"]["q2"]
    wall = summary["provenance"]["wall_seconds"]
    return (1 / glass["beta"], settled(coldest_bins(summary)), glass["tau_q2"] * every, q2, wall)


def main(out):
    print(f"{'run':<6} {'L':>4} {'T':>6} {'settled (sweeps)':>17} {'tau_q2 (sweeps)':>16} "
          f"{'q2':>18} {'wall (s)':>9} {'speed-up (sweeps, tau)':>24}")
    for name in ("ea2d", "ea3d"):
        plain = dict(summaries(out, f"{name}_plain"))
        for size, moved in summaries(out, f"{name}_moves"):
            lines = []
            for kind, summary in (("moves", moved), ("plain", plain.get(size))):
                if summary is None:
                    continue
                t, start, tau, q2, wall = row(summary, measure_every(out, f"{name}_{kind}_L{size}"))
                lines.append((kind, t, start, tau, q2, wall))
            ratio = ""
            if len(lines) == 2:
                ratio = (f"{lines[1][2] / max(lines[0][2], 1):.1f}x, "
                         f"{lines[1][3] / max(lines[0][3], 1e-9):.1f}x")
            for kind, t, start, tau, q2, wall in lines:
                print(f"{name:<6} {size:>4} {t:>6.3f} {start:>17} {tau:>16.1f} "
                      f"{q2['mean']:>9.4f} ± {q2['err']:.4f} {wall:>9.1f} "
                      f"{ratio if kind == 'plain' else kind:>24}")
            if size in plain:
                sweeps, target, total = catch_up(moved, plain[size])
                reached = f"by sweep {sweeps} ({total / sweeps:.0f}x sooner)" if sweeps else "never"
                print(f"{'':<11} tempering alone's last q2 {target:.4f} (of {total} sweeps): "
                      f"the moves reach it {reached}")
            moves = moved.get("replica_moves", [])
            if moves:
                coldest = max(moves, key=lambda m: m["beta"])
                print(f"{'':<11} moves at T {1 / coldest['beta']:.3f}: "
                      f"{coldest['acceptance']:.3f} moved, |C|/N {coldest['cluster_fraction']:.3f}")


def figure(out, folder):
    """q^2 at the lowest temperature in the logarithmic bins against log2 of each bin's last
    sweep: the moves' runs filled and solid, tempering alone open and dashed."""
    series = []
    for k, (name, size) in enumerate(
        (name, size) for name in ("ea2d", "ea3d") for size, _ in summaries(out, f"{name}_moves")
    ):
        for kind, filled in (("moves", True), ("plain", False)):
            summary = dict(summaries(out, f"{name}_{kind}")).get(size)
            if summary is None:
                continue
            check = max(summary["equilibration"], key=lambda c: c["beta"])
            points = [
                (math.log2(b["last_sweep"]), b["averages"]["q2"]["mean"], b["averages"]["q2"]["err"])
                for b in check["bins"]
            ]
            label = f"{name[2:]} L = {size}, {'moves' if filled else 'tempering alone'}"
            series.append((label, k, points, [(x, y) for x, y, _ in points], filled))
    title = "q^2 at T = 0.2 in the logarithmic bins"
    svg_plot(Path(folder) / "replica_moves_bins.svg", title, ("log2 sweeps", "q^2"), series)


if __name__ == "__main__":
    arguments = sys.argv[1:]
    out = arguments[0] if arguments and arguments[0] != "--svg" else "/tmp/replica-moves-validation"
    main(out)
    if "--svg" in arguments:
        figure(out, arguments[arguments.index("--svg") + 1])

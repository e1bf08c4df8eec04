//! What each figure shows, as numbers: the builders take a run's data and return the curves that
//! [`super::svg`] draws (and embeds in the SVG), so tests compare them with `summary.json`.

use serde::Serialize;

use super::{TemperatureSeries, Trace};
use crate::annealing::AnnealingSummary;
use crate::annealing::{AnnealingAverage, ReweightedAverage};
use crate::exact::{ExactIsing2d, kaufman_twisted};
use crate::io::output::{temperature_file, temperature_tags};
use crate::io::run_dir::RunDescription;
use crate::metropolis::Summary;
use crate::stats::{
    Estimate, IsingEstimates, SpinGlassEstimates, TensorGlassEstimates, VectorEstimates,
};
use crate::vector::VectorSummary;

/// Points of the exact curves, evenly spaced in beta over the measured range.
const EXACT_CURVE_POINTS: usize = 201;
/// Most points of a time-series line: longer series are drawn at every k-th measurement.
const MAX_TRACE_POINTS: usize = 1000;

/// One SVG file: panels stacked vertically, sharing the x axis.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    /// The file name in the output directory.
    pub file: String,
    pub title: String,
    pub x_label: String,
    pub panels: Vec<Panel>,
    /// Time series: the sweep of the last thermalisation measurement, drawn as a vertical line
    /// where production starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub production_from: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Panel {
    pub y_label: String,
    pub curves: Vec<Curve>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Curve {
    /// The legend entry.
    pub label: String,
    pub style: Style,
    pub points: Vec<Point>,
}

/// How a curve is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Style {
    /// Measured values: a marker with its error bar at every point.
    Measured,
    /// Measured values joined by a thin line, to follow a curve among others (overlays).
    MeasuredJoined,
    /// A continuous line (exact values, time series): `err` is not drawn.
    Line,
}

/// A plotted value; `err` is its one-sigma error (NaN where unknown, 0 for exact values).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub err: f64,
}

impl Point {
    fn of(x: f64, estimate: Estimate) -> Self {
        Point {
            x,
            y: estimate.mean,
            err: estimate.err,
        }
    }

    fn exact(x: f64, y: f64) -> Self {
        Point { x, y, err: 0.0 }
    }
}

/// An observable of a summary's per-temperature entries `E`: file key (as in `summary.json`),
/// axis label, its estimate (`None` where the entry has none, such as the helicity of
/// Heisenberg spins).
type Observable<E> = (&'static str, &'static str, fn(&E) -> Option<Estimate>);

const FERROMAGNET: [Observable<IsingEstimates>; 5] = [
    ("e", "e", |t| Some(t.e)),
    ("c", "c", |t| Some(t.c)),
    ("abs_m", "|m|", |t| Some(t.abs_m)),
    ("chi", "chi", |t| Some(t.chi)),
    ("u4", "U4", |t| Some(t.u4)),
];

/// The bipartite antiferromagnet's, whose magnetisation is the staggered one.
const STAGGERED: [Observable<IsingEstimates>; 5] = [
    ("e", "e", |t| Some(t.e)),
    ("c", "c", |t| Some(t.c)),
    ("abs_ms", "|m_s|", |t| Some(t.abs_m)),
    ("chi_s", "chi_s", |t| Some(t.chi)),
    ("u4_s", "U4_s", |t| Some(t.u4)),
];

const SPIN_GLASS: [Observable<SpinGlassEstimates>; 6] = [
    ("e", "e", |t| Some(t.e)),
    ("c", "c", |t| Some(t.c)),
    ("q2", "q^2", |t| Some(t.overlaps.q2)),
    ("g", "g", |t| Some(t.overlaps.g)),
    ("chi_sg", "chi_SG", |t| Some(t.overlaps.chi_sg)),
    ("xi_over_l", "xi_L/L", |t| Some(t.overlaps.xi_over_l)),
];

/// Vector spins: the ferromagnet's, and a glass's energy (its overlaps in
/// [`TENSOR_GLASS`]).
const VECTOR: [Observable<VectorEstimates>; 10] = [
    ("e", "e", |t| Some(t.e)),
    ("c", "c", |t| Some(t.c)),
    ("abs_m", "|m|", |t| Some(t.abs_m)),
    ("chi", "chi", |t| Some(t.chi)),
    ("u4", "U4", |t| Some(t.u4)),
    ("xi_over_l", "xi/L", |t| Some(t.xi_over_l)),
    ("helicity", "helicity modulus", |t| t.helicity),
    ("zeros", "density of s = 0", |t| t.zeros),
    ("abs_ms", "|m_s|", |t| t.staggered.map(|s| s.abs_m)),
    ("u4_s", "U4_s", |t| t.staggered.map(|s| s.u4)),
];

const TENSOR_GLASS: [Observable<TensorGlassEstimates>; 3] = [
    ("q2", "q^2", |t| Some(t.q2)),
    ("g", "g", |t| Some(t.g)),
    ("xi_over_l", "xi_L/L", |t| Some(t.xi_over_l)),
];

/// What several runs of one model at different L are overlaid on, for finite-size crossings.
const FERROMAGNET_OVERLAYS: &[&str] = &["u4", "e"];
const STAGGERED_OVERLAYS: &[&str] = &["u4_s", "e"];
const SPIN_GLASS_OVERLAYS: &[&str] = &["g", "xi_over_l"];
const VECTOR_OVERLAYS: &[&str] = &["u4", "xi_over_l", "helicity", "u4_s"];

/// A run's estimates as its figures show them, whichever model ran.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEstimates {
    pub run: RunDescription,
    /// A disordered model's figures are drawn versus T, a ferromagnet's versus beta.
    pub spin_glass: bool,
    /// The inverse temperatures, in run order.
    pub betas: Vec<f64>,
    pub thermalization_measurements: u64,
    /// One per figure, in file order.
    pub observables: Vec<Measured>,
    /// The keys of the observables that overlays of several sizes show.
    pub overlaid: &'static [&'static str],
    /// Kaufman's exact `e` and `c` beside the estimates, where the summary has them.
    pub exact: ExactValues,
}

/// Where a run's figures take Kaufman's exact values from.
#[derive(Debug, Clone, PartialEq)]
pub enum ExactValues {
    /// The model has none.
    None,
    /// The Ising model's summary (2D ferromagnet, no field): Kaufman's solution of its lattice,
    /// drawn densely over the measured range.
    Kaufman,
    /// A vector run's summary (the Ising model as two states, the 2-state Potts model): its
    /// values at the run's betas, in beta order.
    At(Vec<(f64, ExactIsing2d)>),
}

/// One observable's points versus the figures' x axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    pub key: &'static str,
    pub label: &'static str,
    pub points: Vec<Point>,
}

/// The observables of `table` that every entry of `entries` has, each entry's point at
/// `x_of(entry)`.
fn measured_table<E>(
    table: &[Observable<E>],
    entries: &[E],
    x_of: impl Fn(&E) -> f64,
) -> Vec<Measured> {
    table
        .iter()
        .filter_map(|&(key, label, of)| {
            let points = entries
                .iter()
                .map(|e| of(e).map(|estimate| Point::of(x_of(e), estimate)))
                .collect::<Option<Vec<Point>>>()?;
            Some(Measured { key, label, points })
        })
        .collect()
}

impl From<&Summary> for RunEstimates {
    fn from(summary: &Summary) -> Self {
        let spin_glass = !summary.spin_glass.is_empty();
        let (betas, observables, overlaid) = match spin_glass {
            true => (
                summary.spin_glass.iter().map(|t| t.beta).collect(),
                measured_table(&SPIN_GLASS, &summary.spin_glass, |t| 1.0 / t.beta),
                SPIN_GLASS_OVERLAYS,
            ),
            false => {
                let estimates: Vec<IsingEstimates> =
                    summary.runs.iter().map(|r| r.estimates.clone()).collect();
                let (table, overlaid) = match summary.staggered {
                    true => (&STAGGERED, STAGGERED_OVERLAYS),
                    false => (&FERROMAGNET, FERROMAGNET_OVERLAYS),
                };
                (
                    estimates.iter().map(|t| t.beta).collect(),
                    measured_table(table, &estimates, |t| t.beta),
                    overlaid,
                )
            }
        };
        RunEstimates {
            run: summary.run.clone(),
            spin_glass,
            betas,
            thermalization_measurements: summary.thermalization_measurements,
            observables,
            overlaid,
            exact: match !summary.runs.is_empty() && summary.runs.iter().all(|r| r.exact.is_some())
            {
                true => ExactValues::Kaufman,
                false => ExactValues::None,
            },
        }
    }
}

impl From<&VectorSummary> for RunEstimates {
    /// The ferromagnet's e, |m|, U4, xi/L and (XY) helicity versus beta; a glass's e and its
    /// overlaps' q^2, g and xi_L/L versus T.
    fn from(summary: &VectorSummary) -> Self {
        let spin_glass = !summary.spin_glass.is_empty();
        let (observables, overlaid) = match spin_glass {
            true => {
                // e, the first of VECTOR: the rest is the ferromagnet's.
                let energy = measured_table(&VECTOR[..1], &summary.runs, |t| 1.0 / t.beta);
                let glass = measured_table(&TENSOR_GLASS, &summary.spin_glass, |t| 1.0 / t.beta);
                (
                    energy.into_iter().chain(glass).collect(),
                    SPIN_GLASS_OVERLAYS,
                )
            }
            false => (
                measured_table(&VECTOR, &summary.runs, |t| t.beta),
                VECTOR_OVERLAYS,
            ),
        };
        RunEstimates {
            run: summary.run.clone(),
            spin_glass,
            betas: summary.runs.iter().map(|t| t.beta).collect(),
            thermalization_measurements: summary.thermalization_measurements,
            observables,
            overlaid,
            exact: vector_exact_values(summary),
        }
    }
}

impl RunEstimates {
    /// Per temperature, the tag of its files (`t01_T0.950`), in the scale the run's config gave.
    pub fn tags(&self) -> Vec<String> {
        temperature_tags(&self.betas, self.run.temperature_scale)
    }

    /// Sites of one lattice of the run that hold a spin (the energies are per such site).
    pub fn sites(&self) -> usize {
        self.run.lattice().spins() as usize
    }

    /// The x axis of a model's figures: beta for the ferromagnet, T for the spin glass.
    fn x_label(&self) -> &'static str {
        if self.spin_glass { "T" } else { "beta" }
    }

    /// "Ising 2D, L = 64" and, for the spin glass, its number of samples.
    fn name(&self) -> String {
        let name = format!("{}, L = {}", self.run.model, self.run.size);
        if self.spin_glass {
            format!("{name}, {} samples", self.run.samples)
        } else {
            name
        }
    }

    fn observable(&self, key: &str) -> Option<&Measured> {
        self.observables.iter().find(|o| o.key == key)
    }
}

/// Population annealing: e, c and ln Z / N versus beta (mean and error over the populations),
/// each with the multi-histogram curve where the anneal reweighted, and its exact values at the
/// schedule's betas where the summary has them. The free energy is shown as ln Z per site, which
/// rises from ln 2 at beta = 0: f = -ln Z / (beta N) diverges there and would flatten the curve.
/// An antiferromagnet on a bipartite lattice adds its staggered magnetisation `|m_s|`.
pub fn annealing_figure(summary: &AnnealingSummary) -> Figure {
    type Observable = (
        &'static str,
        fn(&AnnealingAverage) -> Estimate,
        fn(&ReweightedAverage) -> Estimate,
        fn(f64, &ExactIsing2d) -> f64,
    );
    const SHOWN: [Observable; 3] = [
        ("e", |a| a.e, |r| r.e, |_, x| x.e),
        ("c", |a| a.c, |r| r.c, |_, x| x.c),
        ("ln Z / N", |a| a.ln_z, |r| r.ln_z, |beta, x| -beta * x.f),
    ];
    let mut panels: Vec<Panel> = SHOWN
        .iter()
        .map(|(label, measured, reweighted, exact)| {
            let mut curves = vec![Curve {
                label: "population annealing".to_string(),
                style: Style::Measured,
                points: summary
                    .steps
                    .iter()
                    .map(|a| Point::of(a.beta, measured(a)))
                    .collect(),
            }];
            if !summary.reweighted.is_empty() {
                curves.push(Curve {
                    label: "multi-histogram reweighting".to_string(),
                    style: Style::MeasuredJoined,
                    points: summary
                        .reweighted
                        .iter()
                        .map(|r| Point::of(r.beta, reweighted(r)))
                        .collect(),
                });
            }
            if !summary.exact.is_empty() {
                curves.push(Curve {
                    label: "exact (Kaufman)".to_string(),
                    style: Style::Line,
                    points: summary
                        .schedule
                        .iter()
                        .zip(&summary.exact)
                        .map(|(&beta, x)| Point::exact(beta, exact(beta, x)))
                        .collect(),
                });
            }
            Panel {
                y_label: label.to_string(),
                curves,
            }
        })
        .collect();
    let staggered: Vec<Point> = (summary.steps.iter())
        .filter_map(|a| a.staggered.map(|s| Point::of(a.beta, s.abs_m)))
        .collect();
    if !staggered.is_empty() {
        panels.push(Panel {
            y_label: "|m_s|".to_string(),
            curves: vec![Curve {
                label: "population annealing".to_string(),
                style: Style::Measured,
                points: staggered,
            }],
        });
    }
    Figure {
        file: ANNEALING_FIGURE.to_string(),
        title: format!(
            "population annealing, {} (R = {}, theta = {})",
            summary.run.model, summary.run.replicas, summary.theta
        ),
        x_label: "beta".to_string(),
        panels,
        production_from: None,
    }
}

/// Whether `name` is a figure of a run's directory that [`crate::plot`] draws beside its files
/// (the per-temperature ones aside): an observable's or the energy histogram's `plot_*.svg`, or
/// an anneal's figure.
pub fn is_run_figure(name: &str) -> bool {
    name == ANNEALING_FIGURE || (name.starts_with("plot_") && name.ends_with(".svg"))
}

/// The figure of an anneal.
const ANNEALING_FIGURE: &str = "annealing.svg";

/// One figure per observable of the run versus temperature.
pub fn observable_figures(run: &RunEstimates) -> Vec<Figure> {
    run.observables
        .iter()
        .map(|observable| {
            let mut curves = vec![Curve {
                label: "measured".to_string(),
                style: Style::Measured,
                points: observable.points.clone(),
            }];
            curves.extend(exact_curve(run, observable.key));
            let label = observable.label;
            Figure {
                file: format!("plot_{}.svg", observable.key),
                title: format!("{}: {label} versus {}", run.name(), run.x_label()),
                x_label: run.x_label().to_string(),
                panels: vec![Panel {
                    y_label: label.to_string(),
                    curves,
                }],
                production_from: None,
            }
        })
        .collect()
}

/// The figures overlaying runs of one model (sorted by L), one per observable whose crossing
/// locates the transition; `names[i]` names run `i` (its directory) in the legend where two
/// runs share L.
pub fn overlay_figures(runs: &[RunEstimates], names: &[String]) -> Vec<Figure> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let labels = overlay_labels(runs, names);
    let mut by_size: Vec<(&RunEstimates, &String)> = runs.iter().zip(&labels).collect();
    by_size.sort_by_key(|(run, _)| run.run.size);
    let shown = first
        .overlaid
        .iter()
        .filter_map(|&key| first.observable(key));
    shown
        .map(|observable| {
            let curves: Vec<Curve> = by_size
                .iter()
                .map(|(run, label)| Curve {
                    label: label.to_string(),
                    style: Style::MeasuredJoined,
                    points: run
                        .observable(observable.key)
                        .map_or(Vec::new(), |o| o.points.clone()),
                })
                .collect();
            let label = observable.label;
            Figure {
                file: format!("overlay_{}.svg", observable.key),
                title: format!("{}: {label} versus {}", first.run.model, first.x_label()),
                x_label: first.x_label().to_string(),
                panels: vec![Panel {
                    y_label: label.to_string(),
                    curves,
                }],
                production_from: None,
            }
        })
        .collect()
}

/// The legend entry of each overlaid run: "L = 8", or "L = 8, runs/a" where another run has
/// the same L.
fn overlay_labels(runs: &[RunEstimates], names: &[String]) -> Vec<String> {
    let size_shared = |size: u32| runs.iter().filter(|r| r.run.size == size).count() > 1;
    runs.iter()
        .zip(names)
        .map(|(run, name)| match size_shared(run.run.size) {
            true => format!("L = {}, {name}", run.run.size),
            false => format!("L = {}", run.run.size),
        })
        .collect()
}

/// The exact values of a vector run's summary at its betas, in beta order ([`ExactValues::At`]).
fn vector_exact_values(summary: &VectorSummary) -> ExactValues {
    let mut at: Vec<(f64, ExactIsing2d)> = (summary.runs.iter().zip(&summary.exact))
        .filter_map(|(t, x)| Some((t.beta, (*x)?)))
        .collect();
    at.sort_by(|a, b| a.0.total_cmp(&b.0));
    match at.is_empty() {
        true => ExactValues::None,
        false => ExactValues::At(at),
    }
}

/// Kaufman's exact `e` or `c`, where the summary has exact values: of the run's lattice
/// (twisted by its antiperiodic axes, up to the beta where the twisted terms run out of
/// digits) on a dense beta grid over the measured range, or through a vector run's values at
/// its betas.
fn exact_curve(run: &RunEstimates, key: &str) -> Option<Curve> {
    let exact_of = match key {
        "e" => |x: crate::exact::ExactIsing2d| x.e,
        "c" => |x: crate::exact::ExactIsing2d| x.c,
        _ => return None,
    };
    let label = format!("exact (Kaufman, L = {})", run.run.size);
    match &run.exact {
        ExactValues::None => return None,
        ExactValues::At(at) => {
            return Some(Curve {
                label,
                style: Style::Line,
                points: (at.iter())
                    .map(|&(beta, x)| Point::exact(beta, exact_of(x)))
                    .collect(),
            });
        }
        ExactValues::Kaufman => {}
    }
    let (low, high) = padded_range(&run.betas);
    let step = (high - low) / (EXACT_CURVE_POINTS - 1) as f64;
    let twisted = run.run.boundaries.twisted_axes();
    let points = (0..EXACT_CURVE_POINTS)
        .map(|i| low + step * i as f64)
        .map_while(|beta| {
            let exact = kaufman_twisted(run.run.size, beta, twisted)?;
            Some(Point::exact(beta, exact_of(exact)))
        })
        .collect();
    Some(Curve {
        label,
        style: Style::Line,
        points,
    })
}

/// The range of the finite `values` widened by 5% on each side, so that the outermost points are
/// not on the frame; a single value gets 5% of itself each side (0 gets 0.5), none `(0, 1)`.
pub fn padded_range(values: &[f64]) -> (f64, f64) {
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (low, high) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), v| {
        (low.min(v), high.max(v))
    });
    if low > high {
        return (0.0, 1.0);
    }
    let pad = if high > low {
        0.05 * (high - low)
    } else if low != 0.0 {
        0.05 * low.abs()
    } else {
        0.5
    };
    (low - pad, high + pad)
}

/// Bins of a drawn energy distribution at most.
const HISTOGRAM_BINS: usize = 40;

/// An energy histogram: each energy per site measured, with how often.
pub type EnergyCounts = Vec<(f64, u64)>;

/// The distribution of the production's energy per site at each temperature (a discrete
/// model's `energy_histogram_*.csv`): two peaks at a first-order transition.
pub fn energy_histogram_figure(run: &RunEstimates, histograms: &[EnergyCounts]) -> Figure {
    let scale = run.run.temperature_scale;
    let curves = (histograms.iter().zip(&run.betas))
        .filter_map(|(histogram, &beta)| {
            Some(Curve {
                label: format!("{} = {}", scale.name(), scale.value(beta)),
                style: Style::Line,
                points: binned_density(histogram)?,
            })
        })
        .collect();
    Figure {
        file: "plot_energy_histogram.svg".to_string(),
        title: format!("{}: the distribution of e = E/N in production", run.name()),
        x_label: "e".to_string(),
        panels: vec![Panel {
            y_label: "P(e)".to_string(),
            curves,
        }],
        production_from: None,
    }
}

/// The density of `histogram` in equal bins over its range, as many as it has distinct
/// energies up to [`HISTOGRAM_BINS`]; `None` for fewer than two.
fn binned_density(histogram: &[(f64, u64)]) -> Option<Vec<Point>> {
    let mut distinct: Vec<f64> = histogram.iter().map(|h| h.0).collect();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    let (&lo, &hi) = (distinct.first()?, distinct.last()?);
    if distinct.len() < 2 {
        return None;
    }
    let bins = HISTOGRAM_BINS.min(distinct.len());
    let width = (hi - lo) / bins as f64;
    let mut counts = vec![0u64; bins];
    for &(e, count) in histogram {
        counts[(((e - lo) / width) as usize).min(bins - 1)] += count;
    }
    let total = counts.iter().sum::<u64>() as f64;
    let centre = |b: usize| lo + (b as f64 + 0.5) * width;
    let density = counts.iter().enumerate();
    Some(
        density
            .map(|(b, &n)| Point::exact(centre(b), n as f64 / total / width))
            .collect(),
    )
}

/// E/N and |M|/N (the bipartite antiferromagnet's |M_s|/N) versus sweep at temperature `t`:
/// the first system (replica 0 of sample 0) and, drawn over it, the mean over every system of
/// the temperature, at every k-th measurement where there are more than [`MAX_TRACE_POINTS`].
pub fn timeseries_figure(run: &RunEstimates, t: usize, series: &TemperatureSeries) -> Figure {
    let beta = run.betas[t];
    let scale = run.run.temperature_scale;
    let mean_label = format!("mean of {} systems", series.systems);
    // The bipartite antiferromagnet's series hold its staggered magnetisation.
    let magnetisation = match run.overlaid == STAGGERED_OVERLAYS {
        true => "|M_s|/N",
        false => "|M|/N",
    };
    let panel = |y_label: &str, of: fn(&Trace) -> &[f64]| Panel {
        y_label: y_label.to_string(),
        curves: vec![
            trace(
                "first system".to_string(),
                &series.sweeps,
                of(&series.first),
            ),
            trace(mean_label.clone(), &series.sweeps, of(&series.mean)),
        ],
    };
    Figure {
        file: temperature_file("timeseries", &run.tags()[t], "svg"),
        title: format!(
            "{}, {} = {}: thermalisation (the first {} measurements), then production",
            run.name(),
            scale.name(),
            scale.value(beta),
            run.thermalization_measurements
        ),
        x_label: "sweep".to_string(),
        panels: vec![
            panel("E/N", |t| &t.energy),
            panel(magnetisation, |t| &t.abs_m),
        ],
        production_from: thermalization_end(run, series),
    }
}

/// The sweep of the last thermalisation measurement, where the series has one.
fn thermalization_end(run: &RunEstimates, series: &TemperatureSeries) -> Option<f64> {
    let last = (run.thermalization_measurements as usize).checked_sub(1)?;
    series.sweeps.get(last).map(|&sweep| sweep as f64)
}

fn trace(label: String, sweeps: &[u64], values: &[f64]) -> Curve {
    let stride = values.len().div_ceil(MAX_TRACE_POINTS).max(1);
    Curve {
        label,
        style: Style::Line,
        points: sweeps
            .iter()
            .zip(values)
            .step_by(stride)
            .map(|(&sweep, &y)| Point::exact(sweep as f64, y))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A two-peaked histogram of 100 energies drawn in 40 bins: a density (mass 1) that keeps
    /// both peaks well above the valley between them; one energy gives no curve.
    #[test]
    fn energy_distributions_are_densities_that_keep_the_peaks() {
        let histogram: Vec<(f64, u64)> = (0..100)
            .map(|k| {
                let peak = k < 20 || (60..80).contains(&k);
                (-2.0 + f64::from(k) * 0.01, if peak { 50 } else { 5 })
            })
            .collect();
        let points = binned_density(&histogram).unwrap();
        assert_eq!(points.len(), HISTOGRAM_BINS);
        let width = points[1].x - points[0].x;
        let mass: f64 = points.iter().map(|p| p.y * width).sum();
        assert!((mass - 1.0).abs() < 1e-12, "{mass}");
        let at = |e: f64| {
            points
                .iter()
                .find(|p| (p.x - e).abs() <= width / 2.0)
                .unwrap()
                .y
        };
        assert!(at(-1.95) > 5.0 * at(-1.6) && at(-1.3) > 5.0 * at(-1.6));
        assert!(binned_density(&[(0.5, 7)]).is_none());
    }
    use crate::exact::ExactIsing2d;
    use crate::io::run_dir::RunDescription;
    use crate::metropolis::TemperatureSummary;

    fn estimate(mean: f64) -> Estimate {
        Estimate {
            mean,
            err: mean / 100.0,
        }
    }

    fn ferromagnet(size: u32, betas: &[f64]) -> Summary {
        let runs = betas
            .iter()
            .map(|&beta| TemperatureSummary {
                estimates: IsingEstimates {
                    beta,
                    e: estimate(-beta),
                    c: estimate(2.0 * beta),
                    abs_m: estimate(3.0 * beta),
                    m2: estimate(4.0 * beta),
                    m4: estimate(5.0 * beta),
                    chi: estimate(6.0 * beta),
                    u4: estimate(7.0 * beta),
                    tau_e: 1.0,
                    tau_abs_m: 1.0,
                    samples: 10,
                    units: 2,
                },
                exact: Some(crate::exact::kaufman(size, beta)),
                clusters: None,
            })
            .collect();
        Summary {
            run: RunDescription {
                spinflip_version: "test".into(),
                backend: "cpu".into(),
                adapter: "cpu".into(),
                engine: "simple".into(),
                engine_choice: "named in the config".into(),
                model: "Ising 2D".into(),
                dims: 2,
                size,
                field: 0.0,
                samples: 1,
                replicas: 2,
                seed: 1,
                temperature_scale: Default::default(),
                boundaries: Default::default(),
                lattice: None,
            },
            randoms: None,
            staggered: false,
            independent_unit: "a replica".into(),
            sweeps: 10,
            measurements: 10,
            flips_per_ns: 1.0,
            ps_per_flip: 1000.0,
            runs,
            spin_glass: Vec::new(),
            tempering: None,
            thermalization_measurements: 0,
            equilibration: Vec::new(),
            warnings: Vec::new(),
            origin: Default::default(),
        }
    }

    fn curve<'a>(figures: &'a [Figure], file: &str, curve: usize) -> &'a Curve {
        let figure = figures.iter().find(|f| f.file == file).expect(file);
        &figure.panels[0].curves[curve]
    }

    #[test]
    fn ferromagnet_figures_plot_the_summary_estimates() {
        let summary = ferromagnet(8, &[0.4, 0.5]);
        let figures = observable_figures(&RunEstimates::from(&summary));
        let files: Vec<&str> = figures.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(
            files,
            [
                "plot_e.svg",
                "plot_c.svg",
                "plot_abs_m.svg",
                "plot_chi.svg",
                "plot_u4.svg"
            ]
        );
        for (file, factor) in [
            ("plot_c.svg", 2.0),
            ("plot_chi.svg", 6.0),
            ("plot_u4.svg", 7.0),
        ] {
            let points = &curve(&figures, file, 0).points;
            let want: Vec<Point> = [0.4, 0.5]
                .map(|beta| Point::of(beta, estimate(factor * beta)))
                .to_vec();
            assert_eq!(points, &want, "{file}");
        }
        assert_eq!(curve(&figures, "plot_abs_m.svg", 0).points.len(), 2);
        assert!(figures[2].panels[0].curves.len() == 1, "no exact |m|");
    }

    #[test]
    fn exact_curves_are_kaufman_over_the_measured_range() {
        let summary = ferromagnet(16, &[0.4, 0.5]);
        let figures = observable_figures(&RunEstimates::from(&summary));
        for (file, of) in [
            (
                "plot_e.svg",
                (|x: ExactIsing2d| x.e) as fn(ExactIsing2d) -> f64,
            ),
            ("plot_c.svg", |x: ExactIsing2d| x.c),
        ] {
            let exact = curve(&figures, file, 1);
            assert_eq!(exact.style, Style::Line);
            assert_eq!(exact.points.len(), EXACT_CURVE_POINTS);
            let (first, last) = (exact.points[0], exact.points[EXACT_CURVE_POINTS - 1]);
            assert!((first.x - 0.395).abs() < 1e-12 && (last.x - 0.505).abs() < 1e-12);
            for p in &exact.points {
                assert_eq!(p.y, of(crate::exact::kaufman(16, p.x)), "{file} at {}", p.x);
            }
        }
        let mut with_field = summary;
        with_field.runs[1].exact = None;
        assert_eq!(
            observable_figures(&RunEstimates::from(&with_field))[0].panels[0]
                .curves
                .len(),
            1
        );
    }

    #[test]
    fn overlays_have_one_curve_per_size_in_order() {
        let runs = [ferromagnet(16, &[0.4, 0.45]), ferromagnet(8, &[0.4, 0.45])];
        let names = ["big".to_string(), "small".to_string()];
        let figures = overlay_figures(&runs.each_ref().map(RunEstimates::from), &names);
        assert_eq!(figures[0].file, "overlay_u4.svg");
        let labels = |figure: &Figure| -> Vec<String> {
            let curves = &figure.panels[0].curves;
            curves.iter().map(|c| c.label.clone()).collect()
        };
        assert_eq!(labels(&figures[0]), ["L = 8", "L = 16"]);
        assert_eq!(
            figures[0].panels[0].curves[1].points[1],
            Point::of(0.45, estimate(7.0 * 0.45))
        );
        let same_size = [
            ferromagnet(8, &[0.4]),
            ferromagnet(8, &[0.45]),
            runs[0].clone(),
        ];
        let names = ["runs/a", "runs/b", "runs/c"].map(String::from);
        let figures = overlay_figures(&same_size.each_ref().map(RunEstimates::from), &names);
        assert_eq!(
            labels(&figures[0]),
            ["L = 8, runs/a", "L = 8, runs/b", "L = 16"],
            "runs that share L are told apart by their directories"
        );
    }

    #[test]
    fn single_temperature_range_is_padded() {
        assert_eq!(padded_range(&[2.0, f64::NAN]), (1.9, 2.1));
        assert_eq!(padded_range(&[0.0]), (-0.5, 0.5));
        assert_eq!(padded_range(&[f64::NAN]), (0.0, 1.0));
        let (low, high) = padded_range(&[1.0, 3.0]);
        assert!((low - 0.9).abs() < 1e-12 && (high - 3.1).abs() < 1e-12);
    }

    #[test]
    fn timeseries_shows_the_mean_and_the_first_system_at_most_max_points() {
        let summary = RunEstimates::from(&ferromagnet(8, &[0.4]));
        let n = 2 * MAX_TRACE_POINTS + 1;
        let mut series = TemperatureSeries::new((0..n as u64).map(|m| 100 + 10 * m).collect(), 2);
        for m in 0..n {
            series.add(0, m, -1.0, m as f64);
            series.add(1, m, -2.0, 0.0);
        }
        let figure = timeseries_figure(&summary, 0, &series);
        assert_eq!(figure.production_from, None, "no thermalisation measured");
        let mut thermalized = summary.clone();
        thermalized.thermalization_measurements = 3;
        assert_eq!(
            timeseries_figure(&thermalized, 0, &series).production_from,
            Some(120.0),
            "the third measurement, at sweep 120, ends the thermalisation"
        );
        assert_eq!(figure.file, "timeseries_t00_beta0.4000.svg");
        assert!(
            figure
                .title
                .contains("thermalisation (the first 0 measurements)")
        );
        let [energy, abs_m] = &figure.panels[..] else {
            panic!("two panels")
        };
        assert!(energy.curves[1].points.iter().all(|p| p.y == -1.5));
        let first = &abs_m.curves[0].points;
        assert_eq!(first.len(), n.div_ceil(3));
        assert_eq!(
            first[1],
            Point::exact(130.0, 3.0),
            "every third measurement"
        );
    }
}

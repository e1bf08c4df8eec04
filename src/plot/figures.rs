//! What each figure shows, as numbers: the builders take a run's data and return the curves that
//! [`super::svg`] draws (and embeds in the SVG), so tests compare them with `summary.json`.

use serde::Serialize;

use super::{TemperatureSeries, Trace};
use crate::annealing::AnnealingSummary;
use crate::annealing::{AnnealingAverage, ReweightedAverage};
use crate::exact::{ExactIsing2d, kaufman};
use crate::io::output::{temperature_file, temperature_tags};
use crate::metropolis::Summary;
use crate::stats::{Estimate, IsingEstimates, SpinGlassEstimates};

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

/// A ferromagnet observable: file key (as in `summary.json`), axis label, its estimate.
type FerromagnetObservable = (&'static str, &'static str, fn(&IsingEstimates) -> Estimate);
/// A spin-glass observable, likewise.
type SpinGlassObservable = (
    &'static str,
    &'static str,
    fn(&SpinGlassEstimates) -> Estimate,
);

const FERROMAGNET: [FerromagnetObservable; 5] = [
    ("e", "e", |t| t.e),
    ("c", "c", |t| t.c),
    ("abs_m", "|m|", |t| t.abs_m),
    ("chi", "chi", |t| t.chi),
    ("u4", "U4", |t| t.u4),
];

const SPIN_GLASS: [SpinGlassObservable; 6] = [
    ("e", "e", |t| t.e),
    ("c", "c", |t| t.c),
    ("q2", "q^2", |t| t.q2),
    ("g", "g", |t| t.g),
    ("chi_sg", "chi_SG", |t| t.chi_sg),
    ("xi_over_l", "xi_L/L", |t| t.xi_over_l),
];

/// What several runs of one model at different L are overlaid on, for finite-size crossings.
const FERROMAGNET_OVERLAYS: [&str; 2] = ["u4", "e"];
const SPIN_GLASS_OVERLAYS: [&str; 2] = ["g", "xi_over_l"];

/// Whether `summary` is of a disordered model (its estimates are in `spin_glass`).
pub fn is_spin_glass(summary: &Summary) -> bool {
    !summary.spin_glass.is_empty()
}

/// The inverse temperatures of a run, in run order.
pub fn betas(summary: &Summary) -> Vec<f64> {
    if is_spin_glass(summary) {
        summary.spin_glass.iter().map(|t| t.beta).collect()
    } else {
        summary.runs.iter().map(|r| r.estimates.beta).collect()
    }
}

/// Per temperature, the tag of its files (`t01_T0.950`), in the scale the run's config gave.
pub fn tags(summary: &Summary) -> Vec<String> {
    temperature_tags(&betas(summary), summary.run.temperature_scale)
}

/// The x axis of a model's figures: beta for the ferromagnet, T for the spin glass.
fn x_label(summary: &Summary) -> &'static str {
    if is_spin_glass(summary) { "T" } else { "beta" }
}

/// Population annealing: e, c and f versus beta (mean and error over the populations), each
/// with the multi-histogram curve where the anneal reweighted, and its exact values at the
/// schedule's betas where the summary has them.
pub fn annealing_figure(summary: &AnnealingSummary) -> Figure {
    type Observable = (
        &'static str,
        fn(&AnnealingAverage) -> Estimate,
        fn(&ReweightedAverage) -> Estimate,
        fn(&ExactIsing2d) -> f64,
    );
    const SHOWN: [Observable; 3] = [
        ("e", |a| a.e, |r| r.e, |x| x.e),
        ("c", |a| a.c, |r| r.c, |x| x.c),
        ("f", |a| a.f, |r| r.f, |x| x.f),
    ];
    let panels = SHOWN
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
                        .map(|(&beta, x)| Point::exact(beta, exact(x)))
                        .collect(),
                });
            }
            Panel {
                y_label: label.to_string(),
                curves,
            }
        })
        .collect();
    Figure {
        file: "annealing.svg".to_string(),
        title: format!(
            "population annealing, {} (R = {}, theta = {})",
            summary.run.model, summary.run.replicas, summary.theta
        ),
        x_label: "beta".to_string(),
        panels,
        production_from: None,
    }
}

/// One figure per observable of the summary versus temperature.
pub fn observable_figures(summary: &Summary) -> Vec<Figure> {
    let keys: Vec<&str> = if is_spin_glass(summary) {
        SPIN_GLASS.iter().map(|o| o.0).collect()
    } else {
        FERROMAGNET.iter().map(|o| o.0).collect()
    };
    keys.into_iter()
        .map(|key| {
            let (label, measured) = measured(summary, key);
            let mut curves = vec![Curve {
                label: "measured".to_string(),
                style: Style::Measured,
                points: measured,
            }];
            curves.extend(exact_curve(summary, key));
            Figure {
                file: format!("plot_{key}.svg"),
                title: format!("{}: {label} versus {}", run_name(summary), x_label(summary)),
                x_label: x_label(summary).to_string(),
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
pub fn overlay_figures(summaries: &[Summary], names: &[String]) -> Vec<Figure> {
    let Some(first) = summaries.first() else {
        return Vec::new();
    };
    let labels = overlay_labels(summaries, names);
    let mut by_size: Vec<(&Summary, &String)> = summaries.iter().zip(&labels).collect();
    by_size.sort_by_key(|(s, _)| s.run.size);
    let keys = if is_spin_glass(first) {
        SPIN_GLASS_OVERLAYS
    } else {
        FERROMAGNET_OVERLAYS
    };
    keys.into_iter()
        .map(|key| {
            let curves: Vec<Curve> = by_size
                .iter()
                .map(|(summary, label)| Curve {
                    label: label.to_string(),
                    style: Style::MeasuredJoined,
                    points: measured(summary, key).1,
                })
                .collect();
            let label = measured(first, key).0;
            Figure {
                file: format!("overlay_{key}.svg"),
                title: format!("{}: {label} versus {}", first.run.model, x_label(first)),
                x_label: x_label(first).to_string(),
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
fn overlay_labels(summaries: &[Summary], names: &[String]) -> Vec<String> {
    let size_shared = |size: u32| summaries.iter().filter(|s| s.run.size == size).count() > 1;
    summaries
        .iter()
        .zip(names)
        .map(|(summary, name)| match size_shared(summary.run.size) {
            true => format!("L = {}, {name}", summary.run.size),
            false => format!("L = {}", summary.run.size),
        })
        .collect()
}

/// The axis label and the measured points of observable `key` of `summary`.
fn measured(summary: &Summary, key: &str) -> (&'static str, Vec<Point>) {
    if is_spin_glass(summary) {
        let (_, label, of) = SPIN_GLASS.iter().find(|o| o.0 == key).expect("a known key");
        let points = summary
            .spin_glass
            .iter()
            .map(|t| Point::of(1.0 / t.beta, of(t)))
            .collect();
        (label, points)
    } else {
        let (_, label, of) = FERROMAGNET
            .iter()
            .find(|o| o.0 == key)
            .expect("a known key");
        let points = summary
            .runs
            .iter()
            .map(|r| Point::of(r.estimates.beta, of(&r.estimates)))
            .collect();
        (label, points)
    }
}

/// Kaufman's exact `e` or `c` of the run's lattice on a dense beta grid over the measured range,
/// where the summary has exact values (2D ferromagnet in zero field).
fn exact_curve(summary: &Summary, key: &str) -> Option<Curve> {
    let exact_of = match key {
        "e" => |x: crate::exact::ExactIsing2d| x.e,
        "c" => |x: crate::exact::ExactIsing2d| x.c,
        _ => return None,
    };
    if summary.runs.is_empty() || summary.runs.iter().any(|r| r.exact.is_none()) {
        return None;
    }
    let betas = betas(summary);
    let (low, high) = padded_range(&betas);
    let step = (high - low) / (EXACT_CURVE_POINTS - 1) as f64;
    let points = (0..EXACT_CURVE_POINTS)
        .map(|i| low + step * i as f64)
        .map(|beta| Point::exact(beta, exact_of(kaufman(summary.run.size, beta))))
        .collect();
    Some(Curve {
        label: format!("exact (Kaufman, L = {})", summary.run.size),
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

/// E/N and |M|/N versus sweep at temperature `t`: the first system (replica 0 of sample 0) and,
/// drawn over it, the mean over every system of the temperature, at every k-th measurement where
/// there are more than [`MAX_TRACE_POINTS`].
pub fn timeseries_figure(summary: &Summary, t: usize, series: &TemperatureSeries) -> Figure {
    let beta = betas(summary)[t];
    let scale = summary.run.temperature_scale;
    let mean_label = format!("mean of {} systems", series.systems);
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
        file: temperature_file("timeseries", &tags(summary)[t], "svg"),
        title: format!(
            "{}, {} = {}: thermalisation (the first {} measurements), then production",
            run_name(summary),
            scale.name(),
            scale.value(beta),
            summary.thermalization_measurements
        ),
        x_label: "sweep".to_string(),
        panels: vec![panel("E/N", |t| &t.energy), panel("|M|/N", |t| &t.abs_m)],
        production_from: thermalization_end(summary, series),
    }
}

/// The sweep of the last thermalisation measurement, where the series has one.
fn thermalization_end(summary: &Summary, series: &TemperatureSeries) -> Option<f64> {
    let last = (summary.thermalization_measurements as usize).checked_sub(1)?;
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

/// "Ising 2D, L = 64" and, for the spin glass, its number of samples.
fn run_name(summary: &Summary) -> String {
    let name = format!("{}, L = {}", summary.run.model, summary.run.size);
    if is_spin_glass(summary) {
        format!("{name}, {} samples", summary.run.samples)
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
                exact: Some(kaufman(size, beta)),
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
            },
            randoms: None,
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
            couplings: None,
            warnings: Vec::new(),
            provenance: None,
        }
    }

    fn curve<'a>(figures: &'a [Figure], file: &str, curve: usize) -> &'a Curve {
        let figure = figures.iter().find(|f| f.file == file).expect(file);
        &figure.panels[0].curves[curve]
    }

    #[test]
    fn ferromagnet_figures_plot_the_summary_estimates() {
        let summary = ferromagnet(8, &[0.4, 0.5]);
        let figures = observable_figures(&summary);
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
        let figures = observable_figures(&summary);
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
                assert_eq!(p.y, of(kaufman(16, p.x)), "{file} at {}", p.x);
            }
        }
        let mut with_field = summary;
        with_field.runs[1].exact = None;
        assert_eq!(observable_figures(&with_field)[0].panels[0].curves.len(), 1);
    }

    #[test]
    fn overlays_have_one_curve_per_size_in_order() {
        let runs = [ferromagnet(16, &[0.4, 0.45]), ferromagnet(8, &[0.4, 0.45])];
        let names = ["big".to_string(), "small".to_string()];
        let figures = overlay_figures(&runs, &names);
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
        let figures = overlay_figures(&same_size, &names);
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
        let summary = ferromagnet(8, &[0.4]);
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

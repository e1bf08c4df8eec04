//! The estimates against exact values, where there are any: Kaufman's finite-size solution
//! (2D ferromagnet, zero field) and exact enumeration of tiny lattices (every sample's own
//! couplings). A deviation beyond [`crate::exact::EXACT_TOLERANCE_SIGMAS`] errors is a warning
//! of the run ([`crate::exact::ferromagnet_deviations`]).

use rayon::prelude::*;

use crate::config::{Model, TemperatureScale};
use crate::exact::{EnumeratedAverages, ExactIsing2d, deviation, enumerate, kaufman_of};
use crate::model::ising::IsingSystems;
use crate::stats::{Estimate, SampleAverages, SpinGlassEstimates, UnitSize, group_means};

/// Lattices of at most this many sites are enumerated (2^16 states, milliseconds each).
const MAX_ENUMERATED_SITES: u64 = 16;

/// Most work of the enumerations of one run, in states times sites squared (the correlation
/// matrix of `q^2`): 2^33 is 512 enumerations of a 4x4 lattice, seconds of work.
const ENUMERATION_BUDGET: u64 = 1 << 33;

/// The exact values at `beta` of the ferromagnet `model` run as `systems`, where there are
/// any: Kaufman's ([`kaufman_of`]: the 2D torus at zero field, twisted by its antiperiodic axes
/// where the twisted terms keep their digits), else enumeration of a tiny lattice on its bonds.
pub(super) fn exact_ferromagnet(
    model: &Model,
    systems: &IsingSystems,
    beta: f64,
) -> Option<ExactIsing2d> {
    let lattice = systems.lattice;
    if let Some(exact) = kaufman_of(model, beta) {
        return Some(exact);
    }
    enumerable(systems, 1).then(|| {
        let couplings = systems.coupling_signs(0);
        let exact = enumerate(lattice, &couplings, systems.field, beta);
        ExactIsing2d {
            e: exact.e,
            c: exact.c,
            f: -exact.ln_z / (beta * lattice.sites() as f64),
        }
    })
}

/// Whether `enumerations` enumerations of the run's lattice fit the budget.
fn enumerable(systems: &IsingSystems, enumerations: u64) -> bool {
    let sites = systems.lattice.sites();
    sites <= MAX_ENUMERATED_SITES
        && enumerations.saturating_mul((1 << sites) * sites * sites) <= ENUMERATION_BUDGET
}

/// The spin glass's deviations from exact enumeration of its samples, where the lattice is
/// tiny enough: the mean over samples of (measured - exact) thermal averages of `e`, `q^2` and
/// `q_l`, with the error from the spread of the differences over units of samples (disorder
/// fluctuations cancel), or the estimate's own error with a single unit; each temperature in
/// `scale`.
pub(super) fn spin_glass_deviations(
    systems: &IsingSystems,
    temperatures: &[SpinGlassEstimates],
    unit: UnitSize,
    scale: TemperatureScale,
) -> Vec<String> {
    let samples = systems.samples;
    if !enumerable(systems, u64::from(samples) * temperatures.len() as u64) {
        return Vec::new();
    }
    let lattice = systems.lattice;
    // The run's couplings: drawn from the seed or given (`couplings: File(..)`).
    let couplings: Vec<Vec<i8>> = (0..samples)
        .map(|s| systems.coupling_signs(systems.global_sample(s)))
        .collect();
    temperatures
        .par_iter()
        .map(|t| {
            let exact: Vec<EnumeratedAverages> = couplings
                .iter()
                .map(|j| enumerate(lattice, j, systems.field, t.beta))
                .collect();
            type Average = fn(&SampleAverages) -> f64;
            type Exact = fn(&EnumeratedAverages) -> f64;
            let mut observables: Vec<(&str, Estimate, Average, Exact)> =
                vec![("e", t.e, |s| s.e, |x| x.e)];
            if systems.overlap_pairs() > 0 {
                observables.push(("q2", t.overlaps.q2, |s| s.q2, |x| x.q2));
                observables.push(("ql", t.overlaps.ql, |s| s.ql, |x| x.ql));
            }
            observables
                .into_iter()
                .filter_map(|(name, estimate, measured, wanted)| {
                    let differences: Vec<f64> = (t.per_sample.iter().zip(&exact))
                        .map(|(s, x)| measured(s) - wanted(x))
                        .collect();
                    let err = difference_error(&differences, unit.samples, estimate.err);
                    let exact_mean = exact.iter().map(wanted).sum::<f64>() / exact.len() as f64;
                    let measured = Estimate {
                        mean: estimate.mean,
                        err,
                    };
                    deviation(scale.show(t.beta), name, measured, exact_mean)
                })
                .collect::<Vec<_>>()
        })
        .flatten()
        .collect()
}

/// The standard error of the mean of per-sample `differences` over units of `per_unit`
/// samples; `single_unit_error` where there is only one unit.
fn difference_error(differences: &[f64], per_unit: usize, single_unit_error: f64) -> f64 {
    let rows: Vec<[f64; 1]> = differences.iter().map(|&d| [d]).collect();
    let units: Vec<f64> = group_means(&rows, per_unit).iter().map(|u| u[0]).collect();
    if units.len() < 2 {
        return single_unit_error;
    }
    let n = units.len() as f64;
    let mean = units.iter().sum::<f64>() / n;
    (units.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0) / n).sqrt()
}

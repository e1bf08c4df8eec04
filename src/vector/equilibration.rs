//! The logarithmic-binning check of every temperature of a vector-spin run
//! ([`crate::stats::log_binning`], as the Ising runs': `metropolis/equilibration.rs`), over all its
//! measurements, thermalisation included: the energy per site, and the spin glass's `q2` per
//! sample or the ferromagnet's `|m|` per replica (every system draws its own randoms, so each
//! replica, or sample, is an independent unit).

use super::record::VectorRecord;
use crate::config::Sweeps;
use crate::model::vector::VectorSystems;
use crate::stats::{
    EquilibrationCheck, Production, UnitSeries, VectorEstimates, VectorMeasurement, group_means,
    largest_tau, log_binning,
};

/// The check of every temperature, `runs[t]` its estimates (whose largest autocorrelation time
/// judges the blocks).
pub(super) fn equilibration_checks(
    systems: &VectorSystems,
    record: &VectorRecord,
    sweeps: &Sweeps,
    runs: &[VectorEstimates],
) -> Vec<EquilibrationCheck> {
    let count = systems.systems() as usize;
    let measurements = record.measurements.len() / count.max(1);
    let measured_after: Vec<u64> = (1..=measurements as u64)
        .map(|m| m * sweeps.every)
        .collect();
    // As the summary counts them: the measurements after the thermalisation's.
    let thermalization = (sweeps.thermalize / sweeps.every) as usize;
    let per_temperature = systems.systems_per_temperature() as usize;
    runs.iter()
        .enumerate()
        .map(|(t, run)| {
            let series_of = |k: usize, f: fn(&VectorMeasurement) -> f64| -> Vec<f64> {
                let b = t * per_temperature + k;
                let all = record.measurements.iter().skip(b).step_by(count);
                all.map(f).collect()
            };
            let named = unit_series(systems, record, t, &series_of);
            let observables: Vec<UnitSeries> = (named.iter())
                .map(|(name, units)| UnitSeries { name, units })
                .collect();
            let (tau_of, tau) = largest_tau(&[("e", run.tau_e), ("|m|", run.tau_abs_m)]);
            let production = Production {
                measurements: measurements - thermalization,
                every: sweeps.every,
                tau,
                tau_of,
            };
            log_binning(run.beta, &measured_after, &observables, production)
        })
        .collect()
}

/// Per independent unit of temperature `t`, at every measurement, each observable of the
/// check: the glass's units are samples (replicas and overlap pairs averaged), the
/// ferromagnet's replicas. `series_of(k, f)` is `f` of every measurement of the temperature's
/// `k`-th system.
fn unit_series(
    systems: &VectorSystems,
    record: &VectorRecord,
    t: usize,
    series_of: &dyn Fn(usize, fn(&VectorMeasurement) -> f64) -> Vec<f64>,
) -> Vec<(&'static str, Vec<Vec<f64>>)> {
    let sites = systems.lattice.spins() as f64;
    let per_temperature = systems.systems_per_temperature() as usize;
    let replicas = systems.replicas as usize;
    let per_system = |f| {
        (0..per_temperature)
            .map(|k| series_of(k, f))
            .collect::<Vec<_>>()
    };
    let energies = per_system(|m| m.energy);
    let energies: Vec<Vec<f64>> = (energies.iter())
        .map(|e| e.iter().map(|x| x / sites).collect())
        .collect();
    let pairs = systems.overlap_pairs() as usize;
    if pairs == 0 {
        let abs_m = per_system(VectorMeasurement::abs_m);
        return vec![("e", energies), ("abs_m", abs_m)];
    }
    let overlaps = systems.overlaps() as usize;
    let first = systems.overlap(t as u32, 0, 0) as usize;
    let q2: Vec<Vec<f64>> = (0..systems.samples as usize * pairs)
        .map(|k| {
            let all = record.overlaps.iter().skip(first + k).step_by(overlaps);
            all.map(|o| o.q2).collect()
        })
        .collect();
    vec![
        ("e", group_means(&energies, replicas)),
        ("q2", group_means(&q2, pairs)),
    ]
}

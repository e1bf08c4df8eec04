//! The logarithmic-binning check of every temperature of a run ([`crate::stats::log_binning`]),
//! over all its measurements, thermalisation included: the energy per site, and the spin
//! glass's `q^2` and link overlap `q_l` per sample or the ferromagnet's `|m|` per replica,
//! averaged per independent unit.

use super::Schedule;
use super::series::RunSeries;
use crate::config::Disorder;
use crate::model::ising::IsingSystems;
use crate::stats::{
    EquilibrationCheck, Production, SampleSeries, UnitSeries, UnitSize, group_means, log_binning,
};

/// The check of every temperature; `taus[t]` is the largest integrated autocorrelation time of
/// temperature `t`'s estimates, in measurements, and its observable's name.
pub(super) fn equilibration_checks(
    systems: &IsingSystems,
    schedule: &Schedule,
    series: &RunSeries,
    unit: UnitSize,
    taus: &[(&'static str, f64)],
) -> Vec<EquilibrationCheck> {
    systems
        .betas
        .iter()
        .zip(&series.all)
        .zip(&series.production)
        .zip(taus)
        .map(|(((&beta, samples), production), &(tau_of, tau))| {
            let measurements = samples[0].energies[0].len() as u64;
            let sweeps: Vec<u64> = (0..measurements)
                .map(|m| schedule.sweep_of_measurement(m) + 1)
                .collect();
            let named = unit_series(systems, samples, unit);
            let observables: Vec<UnitSeries> = named
                .iter()
                .map(|(name, units)| UnitSeries { name, units })
                .collect();
            let production = Production {
                measurements: production[0].energies[0].len(),
                every: schedule.every,
                tau,
                tau_of,
            };
            log_binning(beta, &sweeps, &observables, production)
        })
        .collect()
}

/// Per independent unit of one temperature, at every measurement, each observable of the
/// check. The spin glass's units are samples (replicas and overlap pairs averaged; the
/// overlaps only with replica pairs), the ferromagnet's replicas; consecutive samples or
/// replicas that share their random numbers are averaged into one unit.
fn unit_series(
    systems: &IsingSystems,
    samples: &[SampleSeries],
    unit: UnitSize,
) -> Vec<(&'static str, Vec<Vec<f64>>)> {
    let n = systems.lattice.spins() as f64;
    match systems.disorder {
        Disorder::Bimodal | Disorder::Gaussian => {
            let of_samples = |f: &dyn Fn(&SampleSeries) -> Vec<f64>| {
                group_means(&samples.iter().map(f).collect::<Vec<_>>(), unit.samples)
            };
            let mut observables =
                vec![("e", of_samples(&|s| mean_of_series(&s.energies, |e| e / n)))];
            if systems.overlap_pairs() > 0 {
                observables.push((
                    "q2",
                    of_samples(&|s| mean_of_series(&s.overlaps, |q| q * q)),
                ));
                observables.push((
                    "ql",
                    of_samples(&|s| mean_of_series(&s.link_overlaps, |q| q)),
                ));
            }
            observables
        }
        Disorder::Ferromagnet => {
            let only = &samples[0];
            let energies: Vec<Vec<f64>> = only
                .energies
                .iter()
                .map(|e| e.iter().map(|x| x / n).collect())
                .collect();
            let abs_m: Vec<Vec<f64>> = only
                .magnetisations
                .iter()
                .map(|m| m.iter().map(|&x| (x as f64 / n).abs()).collect())
                .collect();
            vec![
                ("e", group_means(&energies, unit.replicas)),
                ("abs_m", group_means(&abs_m, unit.replicas)),
            ]
        }
    }
}

/// At every measurement, the mean over `series` of `f` of their values.
fn mean_of_series(series: &[Vec<f64>], f: impl Fn(f64) -> f64) -> Vec<f64> {
    let rows: Vec<Vec<f64>> = series
        .iter()
        .map(|s| s.iter().map(|&x| f(x)).collect())
        .collect();
    group_means(&rows, rows.len()).pop().unwrap_or_default()
}

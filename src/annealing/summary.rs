//! `annealing.json`: the run, the schedule it took, and per beta the averages over the
//! populations, the free-energy-weighted averages over runs, the overlaps, the multi-histogram
//! estimates and Kaufman's exact values where they exist.

use serde::{Deserialize, Serialize};

use super::steps::Anneal;
use super::{
    AnnealingAverage, AnnealingEstimates, AnnealingOverlaps, ReweightedAverage, average_over_runs,
    overlaps_over_samples, reweighted_over_runs, weighted_over_runs,
};
use crate::config::{AnnealingOptions, Config, Model};
use crate::engine::EngineInfo;
use crate::exact::{ExactIsing2d, kaufman_of};
use crate::io::origin::RunOrigin;
use crate::io::run_dir::RunDescription;
use crate::stats::independent_unit;

/// `annealing.json`: the run, the schedule it took, and per beta the mean and error over the
/// independent populations (every run of every sample), with Kaufman's exact values where
/// they exist (2D ferromagnet, zero field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnealingSummary {
    /// With `replicas` the target population size R.
    #[serde(flatten)]
    pub run: RunDescription,
    /// Engine replicas per population (R plus room for its fluctuations).
    pub slots: u32,
    pub runs: u32,
    pub theta: u32,
    pub resampling: String,
    /// The betas after 0, as configured or as the adaptive schedule chose them.
    pub schedule: Vec<f64>,
    pub ps_per_flip: f64,
    pub steps: Vec<AnnealingAverage>,
    /// Per beta, the free-energy-weighted (Barash et al. 2017) average over the runs of each
    /// sample.
    #[serde(default)]
    pub weighted: Vec<AnnealingAverage>,
    /// Per beta, the spin-glass overlaps (with `overlaps: true`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub overlaps: Vec<AnnealingOverlaps>,
    /// The multi-histogram estimates at the `reweighting` betas.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reweighted: Vec<ReweightedAverage>,
    /// Kaufman's values at the `reweighting` betas, where they exist.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub reweighted_exact: Vec<ExactIsing2d>,
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub exact: Vec<ExactIsing2d>,
    /// The couplings' source and the provenance.
    #[serde(flatten)]
    pub origin: RunOrigin,
}

/// `annealing.json` of a finished anneal whose engine took `ps_per_flip` per spin-flip attempt
/// (this invocation's steps).
pub(super) fn summarize(
    config: &Config,
    annealing: &AnnealingOptions,
    engine_choice: &str,
    anneal: &Anneal,
    info: EngineInfo,
    ps_per_flip: f64,
) -> AnnealingSummary {
    let estimates: Vec<Vec<AnnealingEstimates>> = anneal
        .populations
        .iter()
        .map(|p| p.estimates.clone())
        .collect();
    let lattice = anneal.systems.lattice();
    let runs = annealing.runs as usize;
    let overlaps = match annealing.overlaps {
        true => {
            let unit = independent_unit(&config.engine).0;
            overlaps_over_samples(
                &estimates,
                runs,
                unit.samples,
                lattice.spins(),
                lattice.size,
            )
        }
        false => Vec::new(),
    };
    let betas = reweighting_betas(annealing, &anneal.schedule);
    let populations = anneal.populations.len() as u32;
    let start_ln_z = anneal.systems.start_ln_z(populations, annealing.runs);
    AnnealingSummary {
        run: RunDescription::new(config, info, engine_choice),
        slots: anneal.slots,
        runs: annealing.runs,
        theta: annealing.theta,
        resampling: format!("{:?}", annealing.resampling),
        schedule: anneal.schedule.clone(),
        ps_per_flip,
        steps: average_over_runs(&estimates),
        weighted: weighted_over_runs(&estimates, runs, lattice.spins()),
        overlaps,
        reweighted: reweighted_over_runs(
            &anneal.populations,
            (anneal.target, &start_ln_z),
            &betas,
            (lattice.spins(), anneal.systems.energy_unit()),
        ),
        reweighted_exact: exact_values(&config.model, &betas),
        exact: exact_values(&config.model, &anneal.schedule),
        origin: anneal.systems.origin(config),
    }
}

/// The betas the multi-histogram reweighting reports: `points` of them evenly spread up to the
/// schedule's last beta, none without `reweighting`.
fn reweighting_betas(annealing: &AnnealingOptions, schedule: &[f64]) -> Vec<f64> {
    let (Some(points), Some(&last)) = (annealing.reweighting, schedule.last()) else {
        return Vec::new();
    };
    (1..=points)
        .map(|k| last * f64::from(k) / f64::from(points))
        .collect()
}

/// Kaufman's exact values at every beta of `schedule` ([`kaufman_of`] of `model`), up to the
/// first without one (where a twisted torus's terms cancel past a double's digits).
fn exact_values(model: &Model, schedule: &[f64]) -> Vec<ExactIsing2d> {
    (schedule.iter())
        .map_while(|&beta| kaufman_of(model, beta))
        .collect()
}

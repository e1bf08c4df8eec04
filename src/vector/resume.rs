//! What the loop carries from one chunk to the next, continuing it from a checkpoint, and
//! writing one: the checkpoint holds exactly the loop's [`VectorState`] and the lattices.

use std::path::Path;

use super::checkpoint::{TemperingWords, TwistedEstimators, VectorCheckpoint};
use super::record::VectorRecord;
use super::tempering::VectorTempering;
use super::tuning::ConeTuning;
use crate::config::Config;
use crate::engine::tempering::Chains;
use crate::engine::vector::VectorSweeps;
use crate::error::{Error, Result};
use crate::io::run_dir::RunStart;
use crate::model::vector::VectorSystems;

/// The state a run carries between chunks.
#[derive(Debug)]
pub(super) struct VectorState {
    pub(super) sweeps_done: u64,
    /// Units of sweep `sweeps_done` done, where plans cut it ([`crate::engine::Plan::sweep_units`]).
    pub(super) sweep_units: u64,
    /// The proposal widths, tuned so far (the stops follow from the config).
    pub(super) tuning: ConeTuning,
    pub(super) record: VectorRecord,
    /// Parallel tempering's chains, with a round every so many sweeps; `None` without.
    pub(super) tempering: Option<VectorTempering>,
}

impl VectorState {
    /// A fresh run of `systems` proposing with `tuning`, with a tempering round every
    /// `swap_every` sweeps (`None`: no tempering).
    pub(super) fn new(
        systems: &VectorSystems,
        tuning: ConeTuning,
        swap_every: Option<u64>,
    ) -> Self {
        let counters = vec![0; systems.systems() as usize];
        VectorState {
            sweeps_done: 0,
            sweep_units: 0,
            tuning,
            record: VectorRecord {
                accepted_since_stop: counters.clone(),
                accepted_in_production: counters.clone(),
                moves_in_production: counters,
                ..VectorRecord::default()
            },
            tempering: swap_every.map(|every| VectorTempering::new(systems, every)),
        }
    }
}

/// The state and the lattices of the run whose checkpoint is in `run`'s directory, its widths
/// tuned from `tuning` on, a tempering round every `swap_every` sweeps; `systems` take the
/// checkpoint's ladder (tuned so far). Refused where the checkpoint does not fit the config
/// (another trajectory, more sweeps done than the config has, or the shape of what it holds).
pub(super) fn resume_state(
    run: &RunStart,
    systems: &mut VectorSystems,
    (tuning, swap_every): (ConeTuning, Option<u64>),
) -> Result<(VectorState, Vec<i32>)> {
    let checkpoint = run.load_checkpoint(VectorCheckpoint::load)?;
    let sweeps = &run.config.sweeps;
    let done = checkpoint.sweeps_done;
    sweeps.check_continues(done)?;
    let record = &checkpoint.record;
    let measurements = (done / sweeps.every) as usize;
    let count = systems.systems() as usize;
    let tempering = &checkpoint.tempering;
    let tempering_words = swap_every.map_or(0, |_| Chains::of(systems).state_words());
    let history_words = match swap_every {
        Some(_) => measurements * (systems.replicas as usize * systems.betas.len()),
        None => 0,
    };
    if checkpoint.spins.len() != systems.spin_words()
        || checkpoint.widths.len() != tuning.widths.len()
        || record.accepted_since_stop.len() != count
        || record.accepted_in_production.len() != count
        || record.moves_in_production.len() != count
        || record.measurements.len() != measurements * count
        || record.overlaps.len() != measurements * systems.overlaps() as usize
        || ![0, systems.betas.len()].contains(&checkpoint.betas.len())
        || tempering.state.len() != tempering_words
        || tempering.history.len() != history_words
        || !cut_fits(checkpoint.sweep_units, done, run.config, systems)
    {
        return Err(Error::State(format!(
            "checkpoint {} does not match the config (sweeps {}, {} spin words, {} \
             measurements)",
            run.checkpoint.display(),
            done,
            checkpoint.spins.len(),
            record.measurements.len() / count.max(1)
        )));
    }
    if !checkpoint.betas.is_empty() {
        systems.betas = checkpoint.betas;
    }
    let TemperingWords { state, history } = checkpoint.tempering;
    let state = VectorState {
        sweeps_done: done,
        sweep_units: checkpoint.sweep_units,
        tuning: ConeTuning {
            widths: checkpoint.widths,
            ..tuning
        },
        record: without_size_estimates(
            checkpoint.record,
            systems,
            (run.config, checkpoint.twisted_estimators),
        ),
        tempering: swap_every.map(|every| VectorTempering {
            every,
            state,
            history,
        }),
    };
    Ok((state, checkpoint.spins))
}

/// Whether `units` of sweep `sweep` (a checkpoint inside it) name a sweep of the run, and fewer
/// units than it has.
fn cut_fits(units: u64, sweep: u64, config: &Config, systems: &VectorSystems) -> bool {
    let passes = VectorSweeps::of(&config.updates, &config.algorithm)
        .passes(systems.lattice.colours())
        .len() as u64;
    let sweep_units = passes * u64::from(systems.lattice.size);
    units == 0 || (sweep < config.sweeps.thermalize + config.sweeps.measure && units < sweep_units)
}

/// Write the checkpoint of `state` with the lattices `spins` at the ladder `betas` atomically;
/// returns it.
pub(super) fn save_checkpoint(
    path: &Path,
    config_fingerprint: u64,
    (state, betas): (&VectorState, &[f64]),
    spins: Vec<i32>,
) -> Result<VectorCheckpoint> {
    let checkpoint = VectorCheckpoint {
        config_fingerprint,
        sweeps_done: state.sweeps_done,
        spins,
        widths: state.tuning.widths.clone(),
        record: state.record.clone(),
        betas: betas.to_vec(),
        tempering: TemperingWords::of(state.tempering.as_ref()),
        sweep_units: state.sweep_units,
        twisted_estimators: TwistedEstimators::Every,
    };
    checkpoint.save(path).map_err(|e| Error::io(path, e))?;
    Ok(checkpoint)
}

/// `record`, whose clusters' estimators across an antiperiodic edge came from the clusters'
/// sizes where `held` lacks the config's cluster update (a checkpoint before format 25, or 27
/// of Wolff's), without them: they estimate nothing there, and the summary gives no improved
/// estimators for a series that lacks some ([`super::summary`]).
fn without_size_estimates(
    mut record: VectorRecord,
    systems: &VectorSystems,
    (config, held): (&Config, TwistedEstimators),
) -> VectorRecord {
    let update = config.algorithm.clusters().map(|options| options.update);
    let sized = update.is_some_and(|update| !held.hold(update));
    if sized && systems.boundaries.any_antiperiodic() {
        for measured in &mut record.measurements {
            measured.cluster_m2 = f64::NAN;
        }
    }
    record
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Boundaries, Boundary};
    use crate::model::Lattice;
    use crate::stats::VectorMeasurement;

    /// A checkpoint of a run across an antiperiodic edge resumes without the clusters'
    /// estimators it holds from their sizes (Swendsen-Wang's before format 25, Wolff's before
    /// 27); a newer one, or one of a run without such an edge, keeps them.
    #[test]
    fn the_twisted_clusters_size_estimates_are_dropped() {
        use crate::config::testing::sample_with;
        let measured = VectorMeasurement {
            cluster_m2: 0.25,
            ..VectorMeasurement::default()
        };
        let record = VectorRecord {
            measurements: vec![measured; 3],
            ..VectorRecord::default()
        };
        let systems = VectorSystems::uniform(Lattice::new(2, 4), 1, (1, 0.0), vec![0.4], 1, 7);
        let twisted = systems.clone().with_boundaries(Boundaries::new(&[
            Boundary::Periodic,
            Boundary::Antiperiodic,
        ]));
        let config = |update: &str| {
            let clusters = format!("algorithm: Clusters(update: {update}), seed:");
            Config::from_ron_str(&sample_with("seed:", &clusters)).unwrap()
        };
        let (sw, wolff) = (config("SwendsenWang"), config("Wolff"));
        let estimates = |systems: &VectorSystems, config: &Config, held| -> Vec<f64> {
            let kept = without_size_estimates(record.clone(), systems, (config, held));
            kept.measurements.iter().map(|m| m.cluster_m2).collect()
        };
        use TwistedEstimators::{Every, None, SwendsenWang};
        for (config, held) in [(&sw, None), (&wolff, None), (&wolff, SwendsenWang)] {
            assert!(estimates(&twisted, config, held).iter().all(|m| m.is_nan()));
        }
        for (config, held) in [(&sw, SwendsenWang), (&sw, Every), (&wolff, Every)] {
            assert_eq!(estimates(&twisted, config, held), [0.25; 3]);
        }
        assert_eq!(estimates(&systems, &wolff, None), [0.25; 3]);
    }
}

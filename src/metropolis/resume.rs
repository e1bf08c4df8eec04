//! Continuing a run from its checkpoint, and writing one: the checkpoint holds exactly the
//! loop's [`RunState`] and the engine's lattices.

use std::path::Path;

use super::Schedule;
use super::checkpoint::Checkpoint;
use super::state::RunState;
use crate::engine::ISING_PASSES;
use crate::engine::SpinBits;
use crate::engine::tempering::Chains;
use crate::error::{Error, Result};
use crate::io::run_dir::RunStart;
use crate::model::ising::IsingSystems;

/// The state and the lattices of the run whose checkpoint is in `run`'s directory, refused where
/// the checkpoint does not fit the config (another trajectory, more sweeps done than the config
/// has, or the shape of what it holds).
pub(super) fn resume_state(
    run: &RunStart,
    systems: &IsingSystems,
    schedule: &Schedule,
) -> Result<(RunState, SpinBits)> {
    let checkpoint = run.load_checkpoint(Checkpoint::load)?;
    run.config.sweeps.check_continues(checkpoint.sweeps_done)?;
    let per_measurement = systems.systems() as usize;
    let measurements = schedule.measurements_before(checkpoint.sweeps_done) as usize;
    let expected_spins = systems.spin_count() as u64;
    let overlaps = measurements * systems.overlaps() as usize;
    let chains = Chains::of(systems);
    let (tempering, history) = match schedule.swap_every {
        Some(_) => (
            chains.state_words(),
            measurements * (systems.replicas * chains.temperatures) as usize,
        ),
        None => (0, 0),
    };
    let clusters = match schedule.clusters {
        Some(_) => measurements * per_measurement,
        None => 0,
    };
    if checkpoint.spins.len() != expected_spins
        || checkpoint.bond_sums.len() != measurements * per_measurement
        || checkpoint.magnetisations.len() != measurements * per_measurement
        || checkpoint.overlaps.len() != overlaps
        || checkpoint.overlaps_kmin.len() != overlaps
        || checkpoint.link_overlaps.len() != overlaps
        || checkpoint.tempering.len() != tempering
        || checkpoint.betas.len()
            != if tempering > 0 {
                systems.betas.len()
            } else {
                0
            }
        || checkpoint.temperature_history.len() != history
        || checkpoint.cluster_sizes.len() != clusters
        || !cut_fits(
            checkpoint.sweep_units,
            checkpoint.sweeps_done,
            schedule,
            systems,
        )
    {
        return Err(Error::State(format!(
            "checkpoint {} does not match the config (sweeps {}, {} spins, {} measurements; a \
             checkpoint of a spinflip that did not yet measure the thermalisation, or the link \
             overlap, has fewer: finish that run with the version that started it)",
            run.checkpoint.display(),
            checkpoint.sweeps_done,
            checkpoint.spins.len(),
            checkpoint.bond_sums.len() / per_measurement.max(1)
        )));
    }
    let state = RunState {
        sweeps_done: checkpoint.sweeps_done,
        bond_sums: checkpoint.bond_sums,
        magnetisations: checkpoint.magnetisations,
        overlaps: checkpoint.overlaps,
        overlaps_kmin: checkpoint.overlaps_kmin,
        link_overlaps: checkpoint.link_overlaps,
        betas: checkpoint.betas,
        tempering: checkpoint.tempering,
        temperature_history: checkpoint.temperature_history,
        cluster_sizes: checkpoint.cluster_sizes,
        sweep_units: checkpoint.sweep_units,
    };
    let spins = checkpoint
        .spins
        .reshape(systems.systems(), systems.lattice.sites())?;
    Ok((state, spins))
}

/// Whether `units` of sweep `sweep` (a checkpoint inside it) name a sweep of the run without
/// cluster updates, whose sweeps are cut, and fewer units than it has.
fn cut_fits(units: u64, sweep: u64, schedule: &Schedule, systems: &IsingSystems) -> bool {
    let sweep_units = u64::from(ISING_PASSES) * u64::from(systems.lattice.size);
    units == 0 || (schedule.clusters.is_none() && sweep < schedule.total() && units < sweep_units)
}

/// Write the checkpoint of `state` with the lattices `spins` atomically; returns it.
pub(super) fn save_checkpoint(
    path: &Path,
    config_fingerprint: u64,
    state: &RunState,
    spins: SpinBits,
) -> Result<Checkpoint> {
    let checkpoint = Checkpoint {
        config_fingerprint,
        sweeps_done: state.sweeps_done,
        spins,
        bond_sums: state.bond_sums.clone(),
        magnetisations: state.magnetisations.clone(),
        overlaps: state.overlaps.clone(),
        overlaps_kmin: state.overlaps_kmin.clone(),
        link_overlaps: state.link_overlaps.clone(),
        betas: state.betas.clone(),
        tempering: state.tempering.clone(),
        temperature_history: state.temperature_history.clone(),
        cluster_sizes: state.cluster_sizes.clone(),
        sweep_units: state.sweep_units,
    };
    checkpoint.save(path).map_err(|e| Error::io(path, e))?;
    Ok(checkpoint)
}

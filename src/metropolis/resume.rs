//! Continuing a run from its checkpoint, and writing one: the checkpoint holds exactly the
//! loop's [`RunState`] and the engine's lattices.

use std::path::Path;

use super::checkpoint::Checkpoint;
use super::schedule::{Cut, Schedule};
use super::state::RunState;
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
    let cut = schedule.cut(systems.lattice.size, true, false);
    let units = checkpoint.sweep_units;
    let fits = cut_fits(&cut, units, checkpoint.sweeps_done, schedule);
    // Inside a measured step, after an update: its statistic so far.
    let step_sizes = match cut {
        Cut::Steps(steps) if schedule.measures_after(checkpoint.sweeps_done) => {
            steps.updates_done(units) > 0
        }
        _ => false,
    };
    let clusters = match schedule.clusters {
        Some(_) => (measurements + usize::from(step_sizes)) * per_measurement,
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
        || !fits
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
    let mut cluster_sizes = checkpoint.cluster_sizes;
    let step_sizes = match schedule.clusters {
        Some(_) => cluster_sizes.split_off(measurements * per_measurement),
        None => Vec::new(),
    };
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
        cluster_sizes,
        step_sizes,
        sweep_units: checkpoint.sweep_units,
    };
    let spins = checkpoint
        .spins
        .reshape(systems.systems(), systems.lattice.sites())?;
    Ok((state, spins))
}

/// Whether `units` of sweep (step) `sweep` (a checkpoint inside it) name a sweep (step) of the
/// run, fewer units than it has and a place a checkpoint resumes from ([`Cut::resumable`]).
fn cut_fits(cut: &Cut, units: u64, sweep: u64, schedule: &Schedule) -> bool {
    units == 0 || (sweep < schedule.total() && units < cut.units() && cut.resumable(units) == units)
}

/// Write the checkpoint of `state` with the lattices `spins` atomically, its position where
/// the loop's `cut` resumes ([`Cut::resumable`]; at a step's start, inside its first update,
/// nothing of the step is kept); returns it.
pub(super) fn save_checkpoint(
    path: &Path,
    config_fingerprint: u64,
    (state, cut): (&RunState, &Cut),
    spins: SpinBits,
) -> Result<Checkpoint> {
    let units = cut.resumable(state.sweep_units);
    let step_sizes = if units > 0 {
        &state.step_sizes[..]
    } else {
        &[]
    };
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
        cluster_sizes: [&state.cluster_sizes[..], step_sizes].concat(),
        sweep_units: units,
    };
    checkpoint.save(path).map_err(|e| Error::io(path, e))?;
    Ok(checkpoint)
}

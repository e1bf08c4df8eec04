//! Tuning the ladder while a run goes: at each of its stops ([`super::tuning_stops`]), the new
//! ladder ([`super::retune`]) and the engine reopened on it.

use super::{retune, tempering_diagnostics};
use crate::config::Config;
use crate::engine::tempering::{Chains, Section};
use crate::engine::{Engine, tempering_of, tempering_state_of};
use crate::error::Result;
use crate::model::ising::IsingSystems;
use crate::mpi::open_engine;

/// At the end of tuning stage `(from, to)`: move the ladder towards equal swap acceptance over
/// the stage, reset the acceptance counts for the next, and reopen the engine on the new ladder
/// with the same spins and tempering state. `tempering` is the engine's tempering state, read
/// here and left as the new engine holds it; the run swaps every `every` sweeps.
pub fn retune_ladder(
    config: &Config,
    mut engine: Box<dyn Engine>,
    systems: &mut IsingSystems,
    tempering: &mut Vec<u32>,
    every: u64,
    (from, to): (u64, u64),
) -> Result<Box<dyn Engine>> {
    let chains = Chains::of(systems);
    *tempering = tempering_state_of(engine.as_mut())?;
    systems.betas = retuned_ladder(&chains, tempering, &systems.betas, every, (from, to));
    let spins = engine.spins()?;
    drop(engine);
    let mut engine = open_engine(config, systems.clone())?;
    engine.set_spins(&spins)?;
    tempering_of(engine.as_mut())?.set_tempering(tempering)?;
    Ok(engine)
}

/// At the end of tuning stage `(from, to)` of chains swapping every `every` sweeps with tempering
/// state `state`: the ladder `betas` moved towards equal swap acceptance over the stage
/// (logged); the acceptances in `state` zeroed, to be counted afresh. The Ising and the vector
/// runs' stop; each reopens its engine on the new ladder.
pub fn retuned_ladder(
    chains: &Chains,
    state: &mut [u32],
    betas: &[f64],
    every: u64,
    (from, to): (u64, u64),
) -> Vec<f64> {
    let stage = tempering_diagnostics(chains, state, betas, every, (from, to));
    let tuned = retune(betas, &stage.acceptance);
    log::info!(
        "tempering: ladder tuned after sweep {to} (acceptance {:?}): betas {tuned:?}",
        stage.acceptance
    );
    let accepted = chains.index(Section::Accepted, 0, 0);
    state[accepted..].fill(0);
    tuned
}

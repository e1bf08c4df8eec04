//! The engine of a run: on rank 0 of an MPI job, one that spans every rank; otherwise this
//! process's own.

use crate::config::Config;
use crate::engine::open::{open_local_engine, open_local_vector_engine};
use crate::engine::vector::VectorSweeps;
use crate::engine::{Betas, Engine};
use crate::error::Result;
use crate::model::ising::IsingSystems;
use crate::model::vector::VectorSystems;

/// The engine for `config`, its lattices all spins down until `set_spins`. The engine checks
/// the device's limits before anything large is allocated. `Auto` falls back to the CPU engine,
/// with a warning, only when there is no usable adapter; `Wgpu` fails instead, and so does `Cuda`
/// (also where spinflip was built without the `cuda` feature). `engine: Auto` opens the engine
/// it resolves to. The engine's betas stay fixed ([`open_engine_with_betas`]).
pub fn open_engine(config: &Config, systems: IsingSystems) -> Result<Box<dyn Engine>> {
    open_engine_with_betas(config, systems, Betas::Fixed)
}

/// [`open_engine`] for betas that stay fixed or change (population annealing, [`Betas`]). In a
/// job of several MPI ranks (feature `mpi`), on rank 0, the engine spans every rank
/// (`RankedEngine`).
pub fn open_engine_with_betas(
    config: &Config,
    systems: IsingSystems,
    betas: Betas,
) -> Result<Box<dyn Engine>> {
    #[cfg(feature = "mpi")]
    if crate::engine::placement::placement().is_some() {
        return super::ising::open_ranked_ising(config, systems, betas);
    }
    open_local_engine(config, systems, betas)
}

/// The vector-spin engine of `systems` (the whole run's) under `config`, swept by `updates`: on
/// rank 0 of a job of several MPI ranks (feature `mpi`) one that spans every rank, each holding
/// a slice of the samples (`RankedEngine`); otherwise this process's own
/// ([`open_local_vector_engine`]).
pub fn open_vector_engine(
    config: &Config,
    systems: VectorSystems,
    updates: VectorSweeps,
) -> Result<Box<dyn Engine>> {
    #[cfg(feature = "mpi")]
    if crate::engine::placement::placement().is_some() {
        return super::vector::open_ranked_vector(config, systems, updates);
    }
    open_local_vector_engine(config, systems, updates)
}

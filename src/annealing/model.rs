//! What population annealing needs of a model beyond the engine contract
//! ([`AnnealedSystems`]): the numbering and lattice of its systems, the number of
//! configurations a replica has (`ln Z` at beta 0), each population's energy and magnetisation
//! levels from a measurement, and its engine. Ising spins implement it here (the simple and
//! multispin engines, levels from satisfied bonds and up spins); the vector engine's discrete
//! states and clock angles in `crate::vector::annealing`.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::resampling::PopulationLevels;
use crate::config::Config;
use crate::engine::{Betas, Engine, ISING_PASSES, Lattices, Measurements};
use crate::error::Result;
use crate::io::origin::RunOrigin;
use crate::io::output::write_couplings_npy;
use crate::io::run_dir::COUPLINGS;
use crate::model::Lattice;
use crate::model::couplings::Instance;
use crate::model::ising::{IsingSystems, ising_systems};
use crate::model::systems::SystemIndex;
use crate::mpi::open_engine_with_betas;

/// A model's systems as population annealing runs them: every population a block of replicas
/// of one sample, at one beta that changes with every step.
pub trait AnnealedSystems: Send + Sync {
    /// The numbering of the engine's systems (seed, samples, replicas).
    fn index(&self) -> &SystemIndex;

    /// The lattice of every system.
    fn lattice(&self) -> Lattice;

    /// Bonds that join two spins, over which the link overlap is taken.
    fn links(&self) -> u64;

    /// Passes of one sweep, each over the planes of the slowest axis (the units a step is cut
    /// into).
    fn sweep_passes(&self) -> u32;

    /// `ln Z` of one replica of sample `sample` at beta 0: the logarithm of its configurations.
    fn ln_configurations(&self, sample: u32) -> f64;

    /// Every one of `populations` populations' `ln Z` at beta 0, `runs` populations a sample
    /// (population `sample runs + run`).
    fn start_ln_z(&self, populations: u32, runs: u32) -> Vec<f64> {
        (0..populations)
            .map(|block| self.ln_configurations(block / runs))
            .collect()
    }

    /// The levels of population `block`, the engine's `systems`, at the plan's measurement
    /// (one slot; or the engine's histograms of the populations, where it counts them).
    fn levels(
        &self,
        measurements: &Measurements,
        block: usize,
        systems: Range<usize>,
    ) -> PopulationLevels;

    /// The unit in which every energy is a whole number: the multi-histogram reweighting's
    /// histograms count energies in it (where the config's checks allow the reweighting).
    fn energy_unit(&self) -> f64;

    /// Whether the energy is a function of a satisfied-bond count, so that an engine may
    /// measure the populations as histograms of it (the Ising ferromagnet or glass at zero
    /// field).
    fn bond_levels(&self) -> bool;

    /// Whether `spins` are lattices of these systems (of their kind and size).
    fn fits(&self, spins: &Lattices) -> bool;

    /// `spins`, read from a checkpoint, as the engine takes them.
    fn shaped(&self, spins: Lattices) -> Result<Lattices>;

    /// The engine of these systems under the anneal's engine config `view`, for changing
    /// betas.
    fn open_engine(&self, view: &Config) -> Result<Box<dyn Engine>>;

    /// Write the quenched disorder the run used (couplings, empty sites) into `out`.
    fn write_instance(&self, out: &Path) -> Result<()>;

    /// Where the couplings (and empty sites) came from.
    fn origin(&self, config: &Config) -> RunOrigin;
}

/// The Ising systems of an anneal's engine config `view` (at beta 0 until the first step), on
/// the couplings of `instance` where the config gives them.
pub fn ising_annealed(view: &Config, instance: Option<Arc<Instance>>) -> IsingSystems {
    let mut systems = ising_systems(view);
    systems.betas = vec![0.0];
    IsingSystems {
        instance,
        ..systems
    }
}

impl AnnealedSystems for IsingSystems {
    fn index(&self) -> &SystemIndex {
        self
    }

    fn lattice(&self) -> Lattice {
        self.lattice
    }

    fn links(&self) -> u64 {
        IsingSystems::links(self)
    }

    fn sweep_passes(&self) -> u32 {
        ISING_PASSES
    }

    fn ln_configurations(&self, _sample: u32) -> f64 {
        self.lattice.spins() as f64 * std::f64::consts::LN_2
    }

    fn levels(
        &self,
        measurements: &Measurements,
        block: usize,
        systems: Range<usize>,
    ) -> PopulationLevels {
        match &measurements.histograms {
            Some(histograms) => {
                let (satisfied, up) = histograms.of_block(block);
                PopulationLevels::of_histograms(self, satisfied, up)
            }
            None => PopulationLevels::of(self, &measurements.observations[systems]),
        }
    }

    /// 1: the bond sum, at zero field (the only field the reweighting takes).
    fn energy_unit(&self) -> f64 {
        1.0
    }

    fn bond_levels(&self) -> bool {
        self.field == 0.0
    }

    fn fits(&self, spins: &Lattices) -> bool {
        spins
            .bits()
            .is_ok_and(|bits| bits.len() == self.spin_count() as u64)
    }

    fn shaped(&self, spins: Lattices) -> Result<Lattices> {
        let bits = spins.into_bits()?;
        Ok(bits.reshape(self.systems(), self.lattice.sites())?.into())
    }

    fn open_engine(&self, view: &Config) -> Result<Box<dyn Engine>> {
        open_engine_with_betas(view, self.clone(), Betas::Changing)
    }

    fn write_instance(&self, out: &Path) -> Result<()> {
        write_couplings_npy(&out.join(COUPLINGS), self)
    }

    fn origin(&self, _config: &Config) -> RunOrigin {
        RunOrigin::new(self.disorder, self.instance.as_deref())
    }
}

//! Population annealing of discrete states (Potts, Blume-Capel, diluted Ising) and clock
//! angles on the vector engine: its [`AnnealedSystems`], which the annealing loop
//! ([`crate::annealing`]) runs as it runs Ising spins. A replica's energy and order parameter
//! are the vector loop's ([`super::record::measurement`]), each replica its own level of the
//! resampling table; `ln Z` at beta 0 counts the states of the occupied sites.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use super::outputs::write_instance;
use super::record::{measurement, system_sums};
use super::tuning::ConeTuning;
use crate::annealing::AnnealedSystems;
use crate::annealing::resampling::PopulationLevels;
use crate::config::Config;
use crate::engine::vector::VectorSweeps;
use crate::engine::{Engine, Lattices, Measurements, proposals_of};
use crate::error::Result;
use crate::io::origin::RunOrigin;
use crate::model::Lattice;
use crate::model::couplings::Instance;
use crate::model::systems::SystemIndex;
use crate::model::vacancies::Vacancies;
use crate::model::vector::fixed::MEASURE_FRACTION_BITS;
use crate::model::vector::states::ENERGY_ONE;
use crate::model::vector::{VectorSystems, vector_systems};
use crate::mpi::open_vector_engine;

/// The vector engine's systems of an anneal, with the couplings a config gave them (for the
/// run's origin).
pub struct AnnealedStates {
    systems: VectorSystems,
    /// The sweeps between the steps: the config's Metropolis or heat-bath sweeps.
    sweeps: VectorSweeps,
    instance: Option<Arc<Instance>>,
    /// Whether the populations' estimates hold the staggered magnetisation: an antiferromagnet
    /// on a bipartite lattice ([`VectorSystems::is_bipartite_antiferromagnet`]).
    staggered: bool,
}

impl AnnealedStates {
    /// The systems of the anneal's engine config `view` (at beta 0 until the first step), on
    /// the couplings of `instance` and the empty sites `vacancies` where the config gives them.
    pub fn new(
        view: &Config,
        instance: Option<Arc<Instance>>,
        vacancies: Option<Vacancies>,
    ) -> Self {
        let mut systems = vector_systems(view, instance.as_deref(), vacancies);
        systems.betas = vec![0.0];
        AnnealedStates {
            staggered: systems.is_bipartite_antiferromagnet(),
            systems,
            sweeps: VectorSweeps::of(&view.updates, &view.algorithm),
            instance,
        }
    }

    /// The number of states of one spin.
    fn states(&self) -> u32 {
        match &self.systems.states {
            Some(states) => states.q,
            None => self.systems.clock,
        }
    }
}

impl AnnealedSystems for AnnealedStates {
    fn index(&self) -> &SystemIndex {
        &self.systems
    }

    fn lattice(&self) -> Lattice {
        self.systems.lattice
    }

    fn links(&self) -> u64 {
        self.systems.lattice.links()
    }

    /// The passes of the engine's sweep (the plain checkerboard's two colours, or more with
    /// over-relaxation).
    fn sweep_passes(&self) -> u32 {
        self.sweeps.passes(self.systems.lattice.colours()).len() as u32
    }

    /// `N_occupied ln q`: an empty site has one state.
    fn ln_configurations(&self, sample: u32) -> f64 {
        self.systems.occupied_sites(sample) as f64 * f64::from(self.states()).ln()
    }

    fn levels(
        &self,
        measurements: &Measurements,
        _block: usize,
        systems: Range<usize>,
    ) -> PopulationLevels {
        let sites = self.systems.lattice.spins() as f64;
        let measured: Vec<_> = systems
            .map(|b| {
                let observation = &measurements.vector_observations[b];
                let sums = system_sums(&self.systems, &measurements.vector_states, b);
                measurement(&self.systems, observation, sums)
            })
            .collect();
        let staggered = match self.staggered {
            true => measured
                .iter()
                .map(|x| x.staggered_m2.sqrt() * sites)
                .collect(),
            false => Vec::new(),
        };
        PopulationLevels::of_replicas(
            measured.iter().map(|x| x.energy).collect(),
            measured.iter().map(|x| x.abs_m() * sites).collect(),
            staggered,
        )
    }

    /// Discrete states: `2^-24`, their tables' unit; clock angles: the measured bond sums'
    /// fixed-point unit, at zero field (the only field the reweighting takes).
    fn energy_unit(&self) -> f64 {
        match self.systems.states {
            Some(_) => 1.0 / ENERGY_ONE,
            None => 2f64.powi(-(MEASURE_FRACTION_BITS as i32)),
        }
    }

    fn bond_levels(&self) -> bool {
        false
    }

    fn fits(&self, spins: &Lattices) -> bool {
        spins
            .vector()
            .is_ok_and(|words| words.len() == self.systems.spin_words())
    }

    fn shaped(&self, spins: Lattices) -> Result<Lattices> {
        Ok(spins)
    }

    /// The vector engine, with the proposal of the config's updates (not a tuned cone:
    /// [`crate::annealing::checks`] refuses it).
    fn open_engine(&self, view: &Config) -> Result<Box<dyn Engine>> {
        let mut engine = open_vector_engine(view, self.systems.clone(), self.sweeps)?;
        let widths = ConeTuning::new(view.updates.proposal, 1).widths;
        proposals_of(engine.as_mut())?.set_widths(&widths)?;
        Ok(engine)
    }

    fn write_instance(&self, out: &Path) -> Result<()> {
        write_instance(out, &self.systems)
    }

    fn origin(&self, config: &Config) -> RunOrigin {
        RunOrigin::new(self.systems.disorder, self.instance.as_deref()).with_vacancies_of(config)
    }
}

//! The pure-Rust engine: the reference every GPU kernel is checked against bit for bit, and the
//! fallback where no GPU adapter exists. Each kernel mirrors its WGSL twin of the same name in
//! `shaders/wgsl/`; systems run in parallel on the CPU's cores.

mod bitslice;
mod metropolis_simple;
mod multispin;
mod multispin_metropolis;
mod multispin_observables;
mod multispin_overlap;
mod observables;

pub use bitslice::{BondCount, LaneCounter, count_equals};
pub use metropolis_simple::sweep_colour;
pub use multispin::CpuMultispinEngine;
pub use multispin_observables::observe_lanes;
pub use multispin_overlap::overlap_planes;
pub use observables::observe;

use rayon::prelude::*;

use super::{Engine, EngineInfo, Measurements, Observation, Plan, Step, check_spin_count};
use crate::error::Result;
use crate::model::ising::IsingSystems;

/// The CPU engine of the simple (one spin per word) Ising model.
pub struct CpuEngine {
    systems: IsingSystems,
    thresholds: Vec<u32>,
    spins: Vec<i32>,
}

impl CpuEngine {
    /// An engine for `systems`, every spin down until [`Engine::set_spins`].
    pub fn new(systems: IsingSystems) -> Self {
        let spins = vec![-1; systems.spin_count()];
        CpuEngine {
            thresholds: systems.thresholds(),
            systems,
            spins,
        }
    }

    fn system_lattices(&mut self) -> impl IndexedParallelIterator<Item = (u32, &mut [i32])> {
        let n = self.systems.lattice.sites() as usize;
        self.spins
            .par_chunks_mut(n)
            .enumerate()
            .map(|(b, s)| (b as u32, s))
    }

    fn sweep(&mut self, sweep: u32) {
        let systems = self.systems.clone();
        let thresholds = std::mem::take(&mut self.thresholds);
        self.system_lattices().for_each(|(batch, spins)| {
            for colour in 0..2 {
                sweep_colour(&systems, &thresholds, spins, batch, sweep, colour);
            }
        });
        self.thresholds = thresholds;
    }
}

impl Engine for CpuEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "cpu".into(),
            engine: "simple".into(),
            adapter: cpu_description(),
        }
    }

    fn set_spins(&mut self, spins: &[i32]) -> Result<()> {
        check_spin_count(&self.systems, spins)?;
        self.spins = spins.to_vec();
        Ok(())
    }

    fn spins(&mut self) -> Result<Vec<i32>> {
        Ok(self.spins.clone())
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        let systems = self.systems.systems() as usize;
        let mut observations = vec![Observation::default(); plan.slots as usize * systems];
        for step in &plan.steps {
            match *step {
                Step::Sweep { sweep } => self.sweep(sweep),
                Step::Measure { slot } => {
                    let lattice = self.systems.lattice;
                    let n = lattice.sites() as usize;
                    let row = &mut observations[slot as usize * systems..][..systems];
                    row.par_iter_mut()
                        .zip(self.spins.par_chunks(n))
                        .for_each(|(o, spins)| *o = observe(&lattice, spins));
                }
            }
        }
        Ok(Measurements {
            observations,
            overlap_planes: Vec::new(),
        })
    }
}

/// The CPU engines' adapter name.
fn cpu_description() -> String {
    format!("CPU ({} threads)", rayon::current_num_threads())
}

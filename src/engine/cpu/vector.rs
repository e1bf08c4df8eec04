//! The CPU vector-spin engine: the kernels' CPU twins over every system, systems in parallel.

use std::ops::Range;

use rayon::prelude::*;

use super::vector_exchange::exchange_systems;
use super::vector_hot_start::initial_lattice;
use super::vector_metropolis::{SiteUpdate, SweepKey, metropolis_colour};
use super::vector_observables::observe_vector;
use super::vector_overlap::overlap_vector;
use super::vector_overrelaxation::overrelax_colour;
use super::vector_tiles::tiles_colour;
use crate::engine::EngineInfo;
use crate::engine::vector::{
    VectorEngine, VectorObservation, VectorOverlap, VectorPass, VectorSweeps, check_partners,
    check_spin_words,
};
use crate::error::Result;
use crate::model::vector::fixed::TABLE_LEN;
use crate::model::vector::{PhaseTable, VectorSystems};

/// The CPU engine of the vector-spin models.
pub struct CpuVectorEngine {
    systems: VectorSystems,
    updates: VectorSweeps,
    tables: Vec<u32>,
    phases: PhaseTable,
    spins: Vec<i32>,
}

impl CpuVectorEngine {
    /// The engine of `systems`, every spin along the first axis until a hot start.
    pub fn new(systems: VectorSystems, updates: VectorSweeps) -> Self {
        let mut spins = vec![0; systems.spin_words()];
        let words = systems.components as usize * systems.lattice.sites() as usize;
        spins
            .chunks_mut(words)
            .for_each(|s| s[..words / systems.components as usize].fill(1 << 28));
        CpuVectorEngine {
            tables: systems.acceptance_tables(),
            phases: systems.phases(),
            systems,
            updates,
            spins,
        }
    }

    /// Words of one system's lattice.
    fn system_words(&self) -> usize {
        self.systems.components as usize * self.systems.lattice.sites() as usize
    }
}

impl VectorEngine for CpuVectorEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "cpu".into(),
            engine: "vector".into(),
            adapter: format!("CPU ({} threads)", rayon::current_num_threads()),
            driver: String::new(),
        }
    }

    fn hot_start(&mut self) -> Result<()> {
        let (seed, sites) = (self.systems.seed, self.systems.lattice.sites());
        let n = self.systems.components as usize;
        let words = self.system_words();
        self.spins
            .par_chunks_mut(words)
            .enumerate()
            .for_each(|(b, s)| s.copy_from_slice(&initial_lattice(seed, b as u32, sites, n)));
        Ok(())
    }

    fn set_spins(&mut self, spins: &[i32]) -> Result<()> {
        check_spin_words(&self.systems, spins.len())?;
        self.spins.copy_from_slice(spins);
        Ok(())
    }

    fn spins(&mut self) -> Result<Vec<i32>> {
        Ok(self.spins.clone())
    }

    fn sweeps(&mut self, sweeps: Range<u32>, widths: &[i32]) -> Result<Vec<u64>> {
        let systems = &self.systems;
        let tables = &self.tables;
        let passes = self.updates.passes();
        let (hits, tiles) = (self.updates.hits, self.updates.tiles(systems));
        let words = self.system_words();
        let accepted = self
            .spins
            .par_chunks_mut(words)
            .enumerate()
            .map(|(b, spins)| {
                let b = b as u32;
                let t = systems.temperature_of(b) as usize;
                let update = SiteUpdate::of(systems, systems.sample_of(b));
                let table = &tables[t * TABLE_LEN..(t + 1) * TABLE_LEN];
                let proposal = (widths[t], hits);
                let mut accepted = 0;
                for sweep in sweeps.clone() {
                    for &pass in &passes {
                        let key = SweepKey {
                            seed: systems.seed,
                            sweep,
                            colour: pass.colour(),
                            system: b,
                        };
                        accepted += match pass {
                            VectorPass::Metropolis { .. } => {
                                metropolis_colour(&update, spins, key, proposal, table)
                            }
                            VectorPass::Tiles { .. } => {
                                let tiles = tiles.expect("tiled passes have tiles");
                                tiles_colour(&update, spins, (tiles, key), proposal, table)
                            }
                            VectorPass::Overrelaxation { colour } => {
                                overrelax_colour(&update, spins, colour);
                                0
                            }
                        };
                    }
                }
                accepted
            })
            .collect();
        Ok(accepted)
    }

    fn observe(&mut self) -> Result<Vec<VectorObservation>> {
        let systems = &self.systems;
        let phases = &self.phases;
        Ok(self
            .spins
            .par_chunks(self.system_words())
            .enumerate()
            .map(|(b, spins)| {
                let update = SiteUpdate::of(systems, systems.sample_of(b as u32));
                observe_vector(&update, spins, phases)
            })
            .collect())
    }

    fn overlaps(&mut self) -> Result<Vec<VectorOverlap>> {
        let systems = &self.systems;
        let (phases, words) = (&self.phases, self.system_words());
        let lattice = systems.lattice;
        let n = systems.components as usize;
        let lattice_of = |b: u32| &self.spins[b as usize * words..(b as usize + 1) * words];
        Ok((0..systems.overlaps())
            .into_par_iter()
            .map(|k| {
                let (a, b) = systems.overlap_systems(k);
                overlap_vector(lattice, n, (lattice_of(a), lattice_of(b)), phases)
            })
            .collect())
    }

    fn exchange(&mut self, partners: &[u32]) -> Result<()> {
        check_partners(&self.systems, partners)?;
        let words = self.system_words();
        exchange_systems(&mut self.spins, words, partners);
        Ok(())
    }
}

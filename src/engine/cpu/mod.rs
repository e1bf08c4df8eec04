//! The pure-Rust engine: the reference every GPU kernel is checked against bit for bit, and the
//! fallback where no GPU adapter exists. Each kernel mirrors its WGSL twin of the same name in
//! `shaders/wgsl/`; systems run in parallel on the CPU's cores.

mod bitslice;
mod cluster_bonds;
mod cluster_flip;
mod cluster_label;
mod cluster_roots;
mod cluster_wolff;
mod copy_systems;
pub mod hot_start;
mod metropolis_simple;
mod multispin;
mod multispin_metropolis;
mod multispin_observables;
mod multispin_overlap;
mod observables;
mod tempering_exchange;
mod tempering_swap;
mod vector;
mod vector_exchange;
pub mod vector_hot_start;
pub mod vector_metropolis;
mod vector_observables;
mod vector_overlap;
pub mod vector_overrelaxation;
pub mod vector_tiles;

pub use bitslice::{BondCount, LaneCounter, count_equals};
pub use cluster_bonds::{active_bonds, bond_active, bond_group};
pub use cluster_flip::{flip_clusters, flip_seed_cluster};
pub use cluster_label::label_clusters;
pub use cluster_roots::point_at_roots;
pub use cluster_wolff::wolff_update;
pub use copy_systems::{copy_lanes, copy_lattices};
pub use metropolis_simple::sweep_colour;
pub use multispin::CpuMultispinEngine;
pub use multispin_observables::observe_lanes;
pub use multispin_overlap::overlap_planes;
pub use observables::observe;
pub use tempering_exchange::exchange;
pub use tempering_swap::{CpuTempering, swap_uniforms};
pub use vector::CpuVectorEngine;
pub use vector_observables::observe_vector;
pub use vector_overlap::overlap_vector;

use rayon::prelude::*;

use super::annealing::{HostResampling, ResamplingTable};
use super::clusters::{ClusterState, no_clusters};
use super::tempering::{SwapLayout, swap_tables};
use super::{
    Clusters, Engine, EngineInfo, Lattices, Measurements, Observation, Plan, Populations, SpinBits,
    Step, Tempering, check_betas, check_copy_map, check_tempering_state, no_tempering,
};
use crate::config::ClusterUpdate;
use crate::error::Result;
use crate::model::ising::IsingSystems;

/// The CPU engine of the simple (one spin per word) Ising model.
pub struct CpuEngine {
    systems: IsingSystems,
    thresholds: Vec<u32>,
    spins: Vec<i32>,
    tempering: Option<CpuTempering>,
    resampling: HostResampling,
    clusters: Option<ClusterState>,
}

impl CpuEngine {
    /// An engine for `systems`, every spin down until [`Engine::set_spins`].
    pub fn new(systems: IsingSystems) -> Self {
        let spins = vec![-1; systems.spin_count()];
        CpuEngine {
            thresholds: systems.thresholds(),
            systems,
            spins,
            tempering: None,
            resampling: HostResampling::default(),
            clusters: None,
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

    /// Cluster update `update` of every system; each system's statistic (Swendsen-Wang's
    /// `sum_C |C|^2`, Wolff's `|C|`).
    fn cluster(&mut self, update: u32) -> Result<Vec<u64>> {
        let state = self.clusters.take().ok_or_else(no_clusters)?;
        let systems = self.systems.clone();
        let lattice = systems.lattice;
        let n = lattice.sites() as usize;
        let statistics = self
            .system_lattices()
            .map(|(b, spins)| {
                let threshold = state.thresholds[systems.temperature_of(b) as usize];
                let batch = systems.global_system(b);
                let seed = systems.seed;
                match state.update {
                    ClusterUpdate::SwendsenWang => {
                        let mut bonds = vec![0u32; n / 4];
                        active_bonds(&lattice, spins, threshold, seed, update, batch, &mut bonds);
                        let mut labels = vec![0u32; n];
                        label_clusters(&lattice, &bonds, &mut labels);
                        let mut counts = vec![0u32; n];
                        point_at_roots(&mut labels, Some(&mut counts));
                        flip_clusters(spins, &labels, Some(&counts), seed, update, batch)
                    }
                    ClusterUpdate::Wolff => {
                        let mut inside = vec![false; n];
                        let mut stack = Vec::new();
                        wolff_update(
                            &lattice,
                            spins,
                            threshold,
                            seed,
                            update,
                            batch,
                            &mut stack,
                            &mut inside,
                        )
                    }
                }
            })
            .collect();
        self.clusters = Some(state);
        Ok(statistics)
    }

    /// Every system's observation, for a measurement or a swap round.
    fn observe_all(&self) -> Vec<Observation> {
        let lattice = self.systems.lattice;
        self.spins
            .par_chunks(lattice.sites() as usize)
            .map(|spins| observe(&lattice, spins))
            .collect()
    }

    fn swap(&mut self, sweep: u32, parity: u32) -> Result<()> {
        let counts: Vec<[u64; 2]> = self
            .observe_all()
            .iter()
            .map(|o| [o.up, o.satisfied])
            .collect();
        let tempering = self.tempering.as_mut().ok_or_else(no_tempering)?;
        let masks = tempering.round(self.systems.seed, sweep, parity, &counts);
        let n = self.systems.lattice.sites() as usize;
        let words = bytemuck::cast_slice_mut(&mut self.spins);
        exchange(&tempering.swaps, parity, &masks, n, words);
        Ok(())
    }
}

impl Engine for CpuEngine {
    fn info(&self) -> EngineInfo {
        EngineInfo {
            backend: "cpu".into(),
            engine: "simple".into(),
            adapter: cpu_description(),
            driver: String::new(),
        }
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        let spins = spins.bits()?;
        spins.check_fits(&self.systems)?;
        spins.signs_into(0, &mut self.spins);
        Ok(())
    }

    fn spins(&mut self) -> Result<Lattices> {
        let mut bits = SpinBits::for_systems(&self.systems);
        bits.set_signs(0, &self.spins);
        Ok(bits.into())
    }

    fn hot_start(&mut self) -> Result<()> {
        hot_start::hot_start_lattices(&self.systems, &mut self.spins);
        Ok(())
    }

    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        let systems = self.systems.systems() as usize;
        let mut observations = vec![Observation::default(); plan.slots as usize * systems];
        let mut labels = Vec::new();
        let mut cluster_sizes = match plan.records_cluster_sizes() {
            true => vec![0u64; plan.slots as usize * systems],
            false => Vec::new(),
        };
        plan.refuse_observe()?;
        let (resample, steps) = plan.split_resample()?;
        let resampled = self.resampling.replay(self.systems.seed, resample)?;
        if let Some(resampled) = &resampled {
            let sites = self.systems.lattice.sites() as usize;
            copy_lattices(&resampled.sources, sites, &mut self.spins);
        }
        for step in steps {
            match *step {
                Step::Resample { .. } => unreachable!("split off above"),
                Step::Observe { .. } => unreachable!("refused above"),
                Step::Sweep { sweep } => self.sweep(sweep),
                Step::Swap { sweep, parity } => self.swap(sweep, parity)?,
                Step::Cluster { update, sizes } => {
                    let statistics = self.cluster(update)?;
                    if let Some(slot) = sizes {
                        let sums = &mut cluster_sizes[slot as usize * systems..][..systems];
                        sums.iter_mut().zip(statistics).for_each(|(s, v)| *s += v);
                    }
                }
                Step::Measure { slot } => {
                    if let Some(tempering) = &self.tempering {
                        labels.extend(tempering.history_labels());
                    }
                    observations[slot as usize * systems..][..systems]
                        .copy_from_slice(&self.observe_all());
                }
            }
        }
        let measurements = Measurements {
            observations,
            labels,
            copies: resampled.map(|r| r.copies).unwrap_or_default(),
            cluster_sizes,
            ..Measurements::default()
        };
        self.resampling.record(&measurements, plan.slots);
        Ok(measurements)
    }

    fn tempering(&mut self) -> Option<&mut dyn Tempering> {
        Some(self)
    }

    fn populations(&mut self) -> Option<&mut dyn Populations> {
        Some(self)
    }

    fn clusters(&mut self) -> Option<&mut dyn Clusters> {
        Some(self)
    }
}

impl Clusters for CpuEngine {
    fn set_clusters(&mut self, update: ClusterUpdate) -> Result<()> {
        self.clusters = Some(ClusterState::of(&self.systems, update));
        Ok(())
    }
}

impl Tempering for CpuEngine {
    fn set_tempering(&mut self, state: &[u32]) -> Result<()> {
        let swaps = SwapLayout::simple(&self.systems);
        self.tempering = Some(cpu_tempering(&self.systems, swaps, state)?);
        Ok(())
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        Ok(self
            .tempering
            .as_ref()
            .map_or_else(Vec::new, |t| t.state.clone()))
    }
}

impl Populations for CpuEngine {
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        check_betas(&self.systems, betas)?;
        self.systems.betas = betas.to_vec();
        self.thresholds = self.systems.thresholds();
        if let Some(state) = &mut self.clusters {
            *state = ClusterState::of(&self.systems, state.update);
        }
        Ok(())
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        check_copy_map(&self.systems, sources)?;
        let sites = self.systems.lattice.sites() as usize;
        copy_lattices(sources, sites, &mut self.spins);
        Ok(())
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        self.resampling.set_table(table, self.systems.systems())
    }
}

/// The CPU engines' tempering from a state, with the swap tables of its systems.
fn cpu_tempering(systems: &IsingSystems, swaps: SwapLayout, state: &[u32]) -> Result<CpuTempering> {
    check_tempering_state(systems, state)?;
    Ok(CpuTempering {
        tables: swap_tables(systems)?,
        state: state.to_vec(),
        swaps,
    })
}

/// The CPU engines' adapter name.
fn cpu_description() -> String {
    format!("CPU ({} threads)", rayon::current_num_threads())
}

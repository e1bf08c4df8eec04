//! The simple engine's CPU backend ([`SimpleBackend`]; the engine itself is
//! `engine::backend::simple::SimpleEngine`): one spin per `i32`, each system's lattice swept,
//! measured and clustered on a core of its own by the kernels' CPU twins
//! (`metropolis_simple.rs`, `observables.rs`, `cluster_*.rs`, `tempering_*.rs`).

use std::ops::Range;

use rayon::prelude::*;

use super::hot_start::hot_start_lattices;
use super::{
    CpuTempering, active_bonds, copy_lattices, cpu_description, cpu_tempering, exchange,
    flip_clusters, label_clusters, observe, point_at_roots, sweep_colour, tempering_state,
    wolff_update,
};
use crate::config::ClusterUpdate;
use crate::engine::backend::simple::{
    AnnealingBackend, ClusterBackend, SimpleBackend, SimpleEngine, TemperingBackend, all_groups,
    part_groups,
};
use crate::engine::clusters::{ClusterState, no_clusters};
use crate::engine::tempering::SwapLayout;
use crate::engine::{Observation, Plan, Step};
use crate::error::Result;
use crate::model::ising::IsingSystems;

/// The simple Ising engine on the CPU.
pub type CpuEngine = SimpleEngine<CpuSimple>;

impl CpuEngine {
    /// An engine for `systems`, every spin down until [`crate::engine::Engine::set_spins`].
    pub fn new(systems: IsingSystems) -> Self {
        SimpleEngine::on(CpuSimple::new(&systems), systems)
    }
}

/// The simple engine's lattices and tables in the CPU's memory.
pub struct CpuSimple {
    thresholds: Vec<u32>,
    spins: Vec<i32>,
    tempering: Option<CpuTempering>,
    clusters: Option<ClusterState>,
    /// What the last plan measured, until it is read.
    measured: Measured,
}

/// A plan's measurements as the device kernels leave them in their buffers.
#[derive(Default)]
struct Measured {
    /// `[slot][system]`.
    observations: Vec<Observation>,
    /// Tempering's labels, slot after slot.
    labels: Vec<u32>,
    /// `[slot][system]` where the plan records cluster sizes.
    cluster_sizes: Vec<u64>,
}

impl CpuSimple {
    /// The lattices and tables of `systems`, every spin down.
    fn new(systems: &IsingSystems) -> Self {
        CpuSimple {
            thresholds: systems.thresholds(),
            spins: vec![-1; systems.spin_count()],
            tempering: None,
            clusters: None,
            measured: Measured::default(),
        }
    }

    fn system_lattices(
        &mut self,
        systems: &IsingSystems,
    ) -> impl IndexedParallelIterator<Item = (u32, &mut [i32])> {
        let n = systems.lattice.sites() as usize;
        self.spins
            .par_chunks_mut(n)
            .enumerate()
            .map(|(b, s)| (b as u32, s))
    }

    fn sweep(&mut self, systems: &IsingSystems, sweep: u32) {
        for colour in 0..2 {
            self.update(systems, (sweep, colour), all_groups(&systems.lattice));
        }
    }

    /// Colour `colour` of sweep `sweep` in the groups `groups` of every system: a whole sweep's
    /// pass, or a piece of it ([`Step::Part`]).
    fn update(&mut self, systems: &IsingSystems, (sweep, colour): (u32, u32), groups: Range<u32>) {
        let thresholds = std::mem::take(&mut self.thresholds);
        self.system_lattices(systems).for_each(|(batch, spins)| {
            let update = (batch, sweep, colour);
            sweep_colour(systems, &thresholds, spins, update, groups.clone());
        });
        self.thresholds = thresholds;
    }

    /// Cluster update `update` of every system; each system's statistic (Swendsen-Wang's
    /// `sum_C |C|^2`, Wolff's `|C|`).
    fn cluster(&mut self, systems: &IsingSystems, update: u32) -> Result<Vec<u64>> {
        let state = self.clusters.take().ok_or_else(no_clusters)?;
        let lattice = systems.lattice;
        let n = lattice.sites() as usize;
        let statistics = self
            .system_lattices(systems)
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
    fn observe_all(&self, systems: &IsingSystems) -> Vec<Observation> {
        let lattice = systems.lattice;
        self.spins
            .par_chunks(lattice.sites() as usize)
            .map(|spins| observe(&lattice, spins))
            .collect()
    }

    fn swap(&mut self, systems: &IsingSystems, sweep: u32, parity: u32) {
        let counts: Vec<[u64; 2]> = self
            .observe_all(systems)
            .iter()
            .map(|o| [o.up, o.satisfied])
            .collect();
        let tempering = self
            .tempering
            .as_mut()
            .expect("swap rounds without tempering are refused by prepare_slots");
        let masks = tempering.round(systems.seed, sweep, parity, &counts);
        let n = systems.lattice.sites() as usize;
        let words = bytemuck::cast_slice_mut(&mut self.spins);
        exchange(&tempering.swaps, parity, &masks, n, words);
    }

    /// Measurement into slot `slot` (the observations, and tempering's labels).
    fn measure(&mut self, systems: &IsingSystems, slot: u32) {
        if let Some(tempering) = &self.tempering {
            self.measured.labels.extend(tempering.history_labels());
        }
        let count = systems.systems() as usize;
        let observations = self.observe_all(systems);
        self.measured.observations[slot as usize * count..][..count].copy_from_slice(&observations);
    }

    /// Cluster update `update`, its statistics added into slot `sizes` where it records.
    fn cluster_step(
        &mut self,
        systems: &IsingSystems,
        update: u32,
        sizes: Option<u32>,
    ) -> Result<()> {
        let statistics = self.cluster(systems, update)?;
        if let Some(slot) = sizes {
            let count = systems.systems() as usize;
            let sums = &mut self.measured.cluster_sizes[slot as usize * count..][..count];
            sums.iter_mut().zip(statistics).for_each(|(s, v)| *s += v);
        }
        Ok(())
    }
}

impl SimpleBackend for CpuSimple {
    const NAME: &'static str = "cpu";

    fn adapter_and_driver(&self) -> (String, String) {
        (cpu_description(), String::new())
    }

    fn write_lattices(&mut self, signs: &[i32]) -> Result<()> {
        self.spins.copy_from_slice(signs);
        Ok(())
    }

    fn read_lattices(&mut self) -> Result<Vec<i32>> {
        Ok(self.spins.clone())
    }

    fn hot_start(&mut self, systems: &IsingSystems) -> Result<()> {
        hot_start_lattices(systems, &mut self.spins);
        Ok(())
    }

    fn prepare_slots(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()> {
        plan.swaps(self.tempering.is_some())?;
        let slots = plan.slots as usize * systems.systems() as usize;
        self.measured = Measured {
            observations: vec![Observation::default(); slots],
            labels: Vec::new(),
            cluster_sizes: match plan.records_cluster_sizes() {
                true => vec![0; slots],
                false => Vec::new(),
            },
        };
        Ok(())
    }

    /// The plan's steps one after another, each over every system in parallel.
    fn launch_plan(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()> {
        for step in &plan.steps {
            match *step {
                // Replayed by the engine before the plan's launches.
                Step::Resample { .. } => {}
                Step::Observe { .. } => unreachable!("refused by the engine: Plan::refuse_observe"),
                Step::Sweep { sweep } => self.sweep(systems, sweep),
                Step::Part {
                    sweep,
                    pass,
                    planes: [first, end],
                } => {
                    let groups = part_groups(&systems.lattice, first..end);
                    self.update(systems, (sweep, pass), groups);
                }
                Step::Swap { sweep, parity } => self.swap(systems, sweep, parity),
                Step::Cluster { update, sizes } => self.cluster_step(systems, update, sizes)?,
                Step::Measure { slot } => self.measure(systems, slot),
            }
        }
        Ok(())
    }

    fn read_observations(
        &mut self,
        _systems: &IsingSystems,
        _slots: u32,
    ) -> Result<Vec<Observation>> {
        Ok(std::mem::take(&mut self.measured.observations))
    }
}

impl TemperingBackend for CpuSimple {
    fn set_tempering(&mut self, systems: &IsingSystems, state: &[u32]) -> Result<()> {
        let swaps = SwapLayout::simple(systems);
        self.tempering = Some(cpu_tempering(systems, swaps, state)?);
        Ok(())
    }

    fn tempering_state(&mut self) -> Result<Vec<u32>> {
        Ok(tempering_state(&self.tempering))
    }

    fn read_labels(&mut self, _slots: u32) -> Result<Vec<u32>> {
        Ok(std::mem::take(&mut self.measured.labels))
    }
}

impl AnnealingBackend for CpuSimple {
    fn write_thresholds(&mut self, thresholds: &[u32]) -> Result<()> {
        self.thresholds = thresholds.to_vec();
        Ok(())
    }

    fn copy_lattices(&mut self, systems: &IsingSystems, sources: &[u32]) -> Result<()> {
        copy_lattices(sources, systems.lattice.sites() as usize, &mut self.spins);
        Ok(())
    }
}

impl ClusterBackend for CpuSimple {
    fn set_clusters(&mut self, systems: &IsingSystems, update: ClusterUpdate) -> Result<()> {
        self.clusters = Some(ClusterState::of(systems, update));
        Ok(())
    }

    fn read_cluster_sizes(&mut self, _systems: &IsingSystems, _slots: u32) -> Result<Vec<u64>> {
        Ok(std::mem::take(&mut self.measured.cluster_sizes))
    }

    /// Labelling on the CPU is one union-find walk, no passes over the lattices.
    fn labelling_passes(&self, _update: ClusterUpdate, _records: bool) -> u64 {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::memory::{Footprint, Place, Uses};
    use crate::engine::tempering::Chains;
    use crate::model::Lattice;

    fn bytes<T>(v: &[T]) -> u64 {
        std::mem::size_of_val(v) as u64
    }

    /// What the engine holds after a plan of sweeps, swap rounds, cluster updates and
    /// measurements stays within its footprint, whose lattices are its spins exactly.
    #[test]
    fn the_footprint_bounds_what_the_engine_holds() {
        let lattice = Lattice::new(2, 8);
        let systems = IsingSystems::ferromagnet(lattice, 0.0, vec![0.4, 0.5], 4, 3);
        let mut backend = CpuSimple::new(&systems);
        backend
            .set_tempering(&systems, &Chains::of(&systems).initial_state())
            .unwrap();
        backend
            .set_clusters(&systems, ClusterUpdate::SwendsenWang)
            .unwrap();
        let mut plan = Plan::default();
        for sweep in 0..3 {
            plan.cluster(sweep, true);
            plan.sweep(sweep);
            plan.measure();
            plan.swap(sweep, sweep % 2);
        }
        backend.prepare_slots(&systems, &plan).unwrap();
        backend.launch_plan(&systems, &plan).unwrap();
        let uses = Uses {
            tempering: true,
            clusters: true,
            copies: false,
        };
        let footprint = Footprint::simple(&systems, uses);
        assert_eq!(footprint.lattices, bytes(&backend.spins));
        let tempering = backend.tempering.as_ref().unwrap();
        let tables = bytes(&backend.thresholds)
            + bytes(&tempering.tables)
            + bytes(&tempering.state)
            + bytes(&backend.clusters.as_ref().unwrap().thresholds);
        assert!(tables <= footprint.tables, "{tables} > {footprint:?}");
        let measured = &backend.measured;
        let slots = bytes(&measured.observations)
            + bytes(&measured.labels)
            + bytes(&measured.cluster_sizes);
        assert!(slots <= footprint.slots, "{slots} > {footprint:?}");
        // A cluster update's scratch on every system at once: bonds, labels and counts.
        let scratch = systems.spin_count() as u64 * (1 + 4 + 4);
        assert!(scratch <= footprint.capabilities, "{footprint:?}");
        let read = bytes(&backend.read_lattices().unwrap());
        assert!(
            read + 2 * read.div_ceil(32) <= footprint.travel,
            "{footprint:?}"
        );
        assert!(footprint.need(Place::Cpu).host >= footprint.lattices + read);
    }
}

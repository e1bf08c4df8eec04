//! The simple engine's CPU backend ([`SimpleBackend`]; the engine itself is
//! `engine::backend::simple::SimpleEngine`): one spin per `i32`, each system's lattice swept,
//! measured and clustered on a core of its own by the kernels' CPU twins
//! (`metropolis_simple.rs`, `observables.rs`, `cluster_*.rs`, `tempering_*.rs`).

use std::ops::Range;

use rayon::prelude::*;

use super::hot_start::hot_start_lattices;
use super::{
    CpuTempering, WolffGrowth, active_bonds, copy_lattices, cpu_description, cpu_tempering,
    exchange, flip_marked, label_sites, mark_flips, observe, plane_groups, point_at_roots,
    start_labelling, sweep_colour, tempering_state,
};
use crate::config::{Boundaries, ClusterUpdate};
use crate::engine::backend::simple::{
    AnnealingBackend, ClusterBackend, SimpleBackend, SimpleEngine, TemperingBackend, all_groups,
    part_groups,
};
use crate::engine::clusters::{ClusterState, no_clusters};
use crate::engine::tempering::SwapLayout;
use crate::engine::{CLUSTER_PASSES, Observation, Plan, Step};
use crate::error::{Error, Result};
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
    /// The labelling of the cluster update whose pieces ([`Step::ClusterPart`]) are under way.
    labelling: Option<Labelling>,
    /// What the last plan measured, until it is read.
    measured: Measured,
}

/// A cluster update's labelling between its pieces: its first `done` units (a pass over a
/// plane each, [`Step::ClusterPart`]) done in every system. The lattices stay as they were
/// until the piece that ends the update flips them.
struct Labelling {
    update: u32,
    done: u64,
    /// One per system.
    systems: Vec<Labels>,
}

/// One system's part of an update under way.
enum Labels {
    SwendsenWang(Forest),
    /// The cluster grown from the seed so far.
    Wolff(WolffGrowth),
}

/// A Swendsen-Wang labelling: the active bonds (`cluster_bonds`' words), the union-find forest,
/// each root's count of sites, the flips decided (a bit a site) and the statistic so far.
struct Forest {
    bonds: Vec<u32>,
    parents: Vec<u32>,
    counts: Vec<u32>,
    flips: Vec<u64>,
    statistic: u64,
}

impl Labelling {
    /// Update `update`'s labelling, of kind `kind`, before any piece: no bond, every site its
    /// own root; Wolff's cluster its seed.
    fn start(systems: &IsingSystems, update: u32, kind: ClusterUpdate) -> Self {
        let lattice = systems.lattice;
        let n = lattice.sites() as usize;
        let labels = (0..systems.systems())
            .into_par_iter()
            .map(|b| match kind {
                ClusterUpdate::SwendsenWang => {
                    let mut parents = vec![0u32; n];
                    start_labelling(&mut parents);
                    Labels::SwendsenWang(Forest {
                        bonds: vec![0u32; n / 4],
                        parents,
                        counts: vec![0u32; n],
                        flips: vec![0u64; n.div_ceil(64)],
                        statistic: 0,
                    })
                }
                ClusterUpdate::Wolff => {
                    let key = (systems.seed, update, systems.global_system(b));
                    Labels::Wolff(WolffGrowth::start(&lattice, key))
                }
            })
            .collect();
        Labelling {
            update,
            done: 0,
            systems: labels,
        }
    }
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

/// Refuse, before anything runs, pieces of cluster updates that do not continue a labelling:
/// an update's pieces come in order of their units from pass 0 on plane 0, nothing but
/// measurements between them, the first of a plan continuing `under_way` (the update and its
/// units done) on lattices of `planes` planes.
fn check_labelling(plan: &Plan, planes: u32, mut under_way: Option<(u32, u64)>) -> Result<()> {
    let units = |pass: u32, plane: u32| u64::from(pass * planes + plane);
    for step in &plan.steps {
        match *step {
            Step::ClusterPart {
                update,
                pass,
                planes: [first, end],
                ..
            } => {
                let start = units(pass, first);
                if start > 0 && under_way != Some((update, start)) {
                    return Err(Error::State(format!(
                        "cluster update {update}: pass {pass} on planes {first}..{end} continues \
                         no labelling (an update's pieces come in order from pass 0 on plane 0, \
                         with nothing between them that changes the lattices)"
                    )));
                }
                let done = units(pass, end);
                under_way = (done < units(CLUSTER_PASSES, 0)).then_some((update, done));
            }
            _ if gives_up_labelling(step) => under_way = None,
            _ => {}
        }
    }
    Ok(())
}

/// Whether `step` changes the lattices, so that a labelling under way is given up: every step
/// but the update's pieces and measurements.
fn gives_up_labelling(step: &Step) -> bool {
    !matches!(
        step,
        Step::ClusterPart { .. } | Step::Measure { .. } | Step::Observe { .. }
    )
}

impl CpuSimple {
    /// The lattices and tables of `systems`, every spin down.
    fn new(systems: &IsingSystems) -> Self {
        CpuSimple {
            thresholds: systems.thresholds(),
            spins: vec![-1; systems.spin_count()],
            tempering: None,
            clusters: None,
            labelling: None,
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

    /// Cluster update `update` of every system: its passes over every plane, then its flips;
    /// each system's statistic (Swendsen-Wang's `sum_C |C|^2`, Wolff's `|C|`).
    fn cluster(&mut self, systems: &IsingSystems, update: u32) -> Result<Vec<u64>> {
        let state = self.clusters.take().ok_or_else(no_clusters)?;
        let mut labelling = Labelling::start(systems, update, state.update);
        for pass in 0..CLUSTER_PASSES {
            self.piece(
                systems,
                &state,
                &mut labelling,
                pass,
                0..systems.lattice.size,
            );
        }
        self.clusters = Some(state);
        Ok(self.flip(systems, labelling))
    }

    /// Pass `pass` of update `update` on `planes` ([`Step::ClusterPart`]); where it ends the
    /// update, each system's statistic. The plan was checked ([`check_labelling`]).
    fn cluster_piece(
        &mut self,
        systems: &IsingSystems,
        update: u32,
        pass: u32,
        planes: Range<u32>,
    ) -> Result<Option<Vec<u64>>> {
        let state = self.clusters.take().ok_or_else(no_clusters)?;
        let mut labelling = match (pass, planes.start) {
            (0, 0) => Labelling::start(systems, update, state.update),
            _ => self
                .labelling
                .take()
                .expect("pieces that continue no labelling are refused"),
        };
        self.piece(systems, &state, &mut labelling, pass, planes);
        let all = u64::from(CLUSTER_PASSES * systems.lattice.size);
        let statistics = match labelling.done == all {
            true => Some(self.flip(systems, labelling)),
            false => {
                self.labelling = Some(labelling);
                None
            }
        };
        self.clusters = Some(state);
        Ok(statistics)
    }

    /// Pass `pass` of every system's update on the sites of `planes`. Swendsen-Wang: their
    /// active bonds joined into the forest (pass 0), or pointed at their roots, their flips
    /// marked and the statistic counted (pass 1). Wolff: the cluster grown over the members on
    /// the planes below their end (pass 0).
    fn piece(
        &self,
        systems: &IsingSystems,
        state: &ClusterState,
        labelling: &mut Labelling,
        pass: u32,
        planes: Range<u32>,
    ) {
        let lattice = systems.lattice;
        let groups = plane_groups(&lattice, planes.clone());
        let sites = 4 * u64::from(groups.start)..4 * u64::from(groups.end);
        let update = labelling.update;
        self.spins
            .par_chunks(lattice.sites() as usize)
            .zip(labelling.systems.par_iter_mut())
            .enumerate()
            .for_each(|(b, (spins, labels))| {
                let b = b as u32;
                let key = (systems.seed, update, systems.global_system(b));
                let threshold = state.thresholds[systems.temperature_of(b) as usize];
                match (labels, pass) {
                    (Labels::SwendsenWang(forest), 0) => {
                        let bonds = &mut forest.bonds;
                        active_bonds(
                            (&lattice, Boundaries::PERIODIC),
                            (spins, 0),
                            threshold,
                            key,
                            groups.clone(),
                            bonds,
                        );
                        label_sites(&lattice, bonds, &mut forest.parents, sites.clone());
                    }
                    (Labels::SwendsenWang(forest), _) => {
                        let (parents, counts) = (&mut forest.parents, Some(&mut forest.counts[..]));
                        forest.statistic += point_at_roots(parents, sites.clone(), counts);
                        mark_flips(parents, sites.clone(), key, &mut forest.flips);
                    }
                    (Labels::Wolff(growth), 0) => {
                        growth.grow(&lattice, spins, threshold, key, planes.end);
                    }
                    (Labels::Wolff(_), _) => {}
                }
            });
        labelling.done = u64::from(pass * lattice.size + planes.end);
    }

    /// The flips that end the update of `labelling`; each system's statistic.
    fn flip(&mut self, systems: &IsingSystems, labelling: Labelling) -> Vec<u64> {
        self.system_lattices(systems)
            .zip(labelling.systems.into_par_iter())
            .map(|((_, spins), labels)| match labels {
                Labels::SwendsenWang(forest) => {
                    flip_marked(spins, &forest.flips);
                    forest.statistic
                }
                Labels::Wolff(growth) => growth.flip(spins),
            })
            .collect()
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

    /// Statistics of a cluster update added into slot `sizes` where it records.
    fn record_sizes(&mut self, systems: &IsingSystems, statistics: Vec<u64>, sizes: Option<u32>) {
        if let Some(slot) = sizes {
            let count = systems.systems() as usize;
            let sums = &mut self.measured.cluster_sizes[slot as usize * count..][..count];
            sums.iter_mut().zip(statistics).for_each(|(s, v)| *s += v);
        }
    }
}

impl SimpleBackend for CpuSimple {
    const NAME: &'static str = "cpu";

    fn adapter_and_driver(&self) -> (String, String) {
        (cpu_description(), String::new())
    }

    fn write_lattices(&mut self, signs: &[i32]) -> Result<()> {
        self.labelling = None;
        self.spins.copy_from_slice(signs);
        Ok(())
    }

    fn read_lattices(&mut self) -> Result<Vec<i32>> {
        Ok(self.spins.clone())
    }

    fn hot_start(&mut self, systems: &IsingSystems) -> Result<()> {
        self.labelling = None;
        hot_start_lattices(systems, &mut self.spins);
        Ok(())
    }

    fn prepare_slots(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()> {
        plan.swaps(self.tempering.is_some())?;
        let count = systems.systems() as usize;
        let slots = plan.slots as usize * count;
        self.measured = Measured {
            observations: vec![Observation::default(); slots],
            labels: Vec::new(),
            cluster_sizes: match plan.records_cluster_sizes() {
                true => vec![0; plan.size_slots() as usize * count],
                false => Vec::new(),
            },
        };
        Ok(())
    }

    /// The plan's steps one after another, each over every system in parallel.
    fn launch_plan(&mut self, systems: &IsingSystems, plan: &Plan) -> Result<()> {
        let under_way = self.labelling.as_ref().map(|l| (l.update, l.done));
        check_labelling(plan, systems.lattice.size, under_way)?;
        for step in &plan.steps {
            if gives_up_labelling(step) {
                self.labelling = None;
            }
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
                Step::Cluster { update, sizes } => {
                    let statistics = self.cluster(systems, update)?;
                    self.record_sizes(systems, statistics, sizes);
                }
                Step::ClusterPart {
                    update,
                    sizes,
                    pass,
                    planes: [first, end],
                } => {
                    let piece = self.cluster_piece(systems, update, pass, first..end)?;
                    if let Some(statistics) = piece {
                        self.record_sizes(systems, statistics, sizes);
                    }
                }
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
        self.labelling = None;
        copy_lattices(sources, systems.lattice.sites() as usize, &mut self.spins);
        Ok(())
    }
}

impl ClusterBackend for CpuSimple {
    fn set_clusters(&mut self, systems: &IsingSystems, update: ClusterUpdate) -> Result<()> {
        self.labelling = None;
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

    /// A large lattice's union-find takes seconds: its planes are labelled a piece at a time.
    fn update_parts(&self) -> bool {
        true
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
        // A cluster update's scratch on every system at once: bonds, labels, counts and flips.
        let scratch = systems.spin_count() as u64 * (1 + 4 + 4) + systems.spin_count() as u64 / 8;
        assert!(scratch <= footprint.capabilities, "{footprint:?}");
        let read = bytes(&backend.read_lattices().unwrap());
        assert!(
            read + 2 * read.div_ceil(32) <= footprint.travel,
            "{footprint:?}"
        );
        assert!(footprint.need(Place::Cpu).host >= footprint.lattices + read);
    }
}

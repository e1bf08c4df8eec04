//! The vector-spin engine, written once over its backend ([`VectorBackend`], with
//! [`ProposalBackend`], [`ExchangeBackend`] and [`PopulationBackend`] for the three
//! capabilities): the engine checks each call and replays a plan, each run of sweeps and pieces
//! of sweeps between measurements in one call of the backend as the passes they run
//! ([`SweepPass`]; so that a device adds the accepted moves up across it and reads them back
//! once), each measurement into its slot; population annealing's resampling step it replays on
//! the host ([`HostResampling`], tables keyed by replica), the backend copying the lattices. A
//! backend (`engine::cpu::vector`, `engine::wgpu::vector`, `engine::cuda::vector`) holds the
//! lattices and kernels; the device backends launch the passes through [`VectorKernels`] and
//! [`launch_passes`].

use std::ops::Range;

use crate::engine::annealing::{HostResampling, Keyed, ResamplingTable};
use crate::engine::dispatch::{DispatchParams, NO_SLOT};
use crate::engine::vector::{
    VectorObservation, VectorOverlap, VectorPass, VectorSweeps, check_partners, check_spin_words,
    check_widths, pair_moves_of_systems, pair_state_words, state_words,
};
use crate::engine::{
    Engine, EngineInfo, Exchanges, Lattices, Measurements, Plan, Populations, Proposals, Step,
    check_betas, check_copy_map,
};
use crate::error::{Error, Result};
use crate::model::vector::VectorSystems;

/// Most passes the engine hands its backend in one call, so that a plan of many short sweeps
/// holds a bounded list of them (the accepted moves add up across calls alike).
pub const PASSES_PER_CALL: usize = 1 << 14;

/// One pass of a sweep as a backend runs it: of a whole sweep ([`Step::Sweep`]) on all its
/// threads, or of a piece ([`Step::Part`]) on the threads of the piece's planes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepPass {
    /// The number that keys the pass's randoms ([`VectorSweeps::pass_number`]): its Metropolis
    /// sweep's, or its cluster update's.
    pub sweep: u32,
    pub pass: VectorPass,
    /// The threads that run ([`VectorSweeps::pass_threads`]): sites of the pass's colour, or
    /// tiles of its tile colour; never none.
    pub threads: Range<u64>,
    /// A cluster update of the sweep before a measurement: it adds its statistic to the
    /// backend's record ([`VectorBackend::take_cluster_record`]).
    pub records: bool,
}

impl SweepPass {
    /// The launch parameters of this pass: `base` with its sweep, its colour and its threads;
    /// a cluster update's on every site, recording into slot 0 where it records.
    pub fn params(&self, base: DispatchParams) -> DispatchParams {
        let params = DispatchParams {
            sweep: self.sweep,
            colour: self.pass.colour(),
            ..base
        };
        match self.pass {
            VectorPass::Cluster { .. } => DispatchParams {
                slot: if self.records { 0 } else { NO_SLOT },
                ..params
            },
            _ => params.planes(self.threads.start as u32..self.threads.end as u32),
        }
    }
}

/// What a backend provides the vector-spin engine for sweeps and measurements.
pub trait VectorBackend {
    /// The backend's name in [`EngineInfo`] ("cpu", "wgpu", "cuda").
    const NAME: &'static str;

    /// The adapter or device, and its driver ([`EngineInfo::adapter`], [`EngineInfo::driver`]).
    fn adapter_and_driver(&self) -> (String, String);

    /// The systems whose lattices the backend holds.
    fn systems(&self) -> &VectorSystems;

    /// Random lattices (the kernel `vector_hot_start`).
    fn hot_start(&mut self) -> Result<()>;

    /// Write the lattices, component-major, system after system ([`Lattices::Vector`]).
    fn write_spins(&mut self, spins: &[i32]) -> Result<()>;

    /// The lattices as [`VectorBackend::write_spins`] takes them.
    fn read_spins(&mut self) -> Result<Vec<i32>>;

    /// The passes `passes` in order, the Metropolis ones with the proposal widths of
    /// [`Proposals`]. Returns each system's accepted Metropolis moves.
    fn passes(&mut self, passes: &[SweepPass]) -> Result<Vec<u64>>;

    /// The states packed into their bit planes (`discrete_pack`), where the sweeps hold them
    /// there ([`VectorSweeps::planes`]).
    fn pack_planes(&mut self) -> Result<()>;

    /// The bit planes unpacked into the states (`discrete_unpack`).
    fn unpack_planes(&mut self) -> Result<()>;

    /// Every system's observation (`vector_observables`) and, of discrete states, its
    /// [`StateSums`] (runs of [`state_words`]; none for unit vectors).
    ///
    /// [`StateSums`]: crate::engine::vector::StateSums
    /// [`state_words`]: crate::engine::vector::state_words
    fn observe(&mut self) -> Result<(Vec<VectorObservation>, Vec<i64>)>;

    /// The tensor overlap of every replica pair of a spin glass (`vector_overlap`, numbered as
    /// [`VectorSystems::overlaps`]; zero of discrete states) and, of discrete states, its
    /// [`StateSums`] (runs of [`pair_state_words`]); none for the ferromagnet.
    ///
    /// [`StateSums`]: crate::engine::vector::StateSums
    /// [`pair_state_words`]: crate::engine::vector::pair_state_words
    fn overlaps(&mut self) -> Result<(Vec<VectorOverlap>, Vec<i64>)>;

    /// The cluster passes' record since the last call (the passes run), then zeroed; only with
    /// cluster passes. Replica moves: every replica pair's `[pair][sites moved, moves with a
    /// seed]`; cluster updates: every system's statistic over the updates that recorded
    /// (Swendsen-Wang's `sum_C |C|^2`, Wolff's `|C|`, of occupied sites;
    /// [`crate::engine::clusters`]).
    fn take_cluster_record(&mut self) -> Result<Vec<u64>>;
}

/// The cone proposals' widths on a vector-spin backend ([`Proposals`]).
pub trait ProposalBackend {
    /// Write the proposal width of each temperature, checked.
    fn write_widths(&mut self, widths: &[i32]) -> Result<()>;
}

/// Parallel tempering's host-decided exchanges on a vector-spin backend ([`Exchanges`]).
pub trait ExchangeBackend {
    /// System `b` takes the lattice of `partners[b]` and the other way round, checked.
    fn exchange_systems(&mut self, partners: &[u32]) -> Result<()>;
}

/// Population annealing's new temperatures and copies on a vector-spin backend
/// ([`Populations`]).
pub trait PopulationBackend {
    /// Sweep at `betas` from now on (one per temperature, checked): the acceptance tables of
    /// [`VectorSystems::acceptance_tables`] at them.
    fn write_betas(&mut self, betas: &[f64]) -> Result<()>;

    /// System `b` takes the lattice of `sources[b]` (checked), every one from the lattices of
    /// before the copy.
    fn copy_systems(&mut self, sources: &[u32]) -> Result<()>;
}

/// A device backend's kernels as a run of passes launches them. Launches are enqueued; the
/// backend submits them in bounded batches and waits where it reads back.
pub trait VectorKernels {
    /// Zero the accepted-move counts, before the first pass of a run.
    fn clear_counts(&mut self) -> Result<()>;
    /// Enqueue `pass` over every system, its grid sized to its threads.
    fn enqueue_pass(&mut self, pass: &SweepPass) -> Result<()>;
    /// Every system's accepted moves since [`VectorKernels::clear_counts`], once the enqueued
    /// passes have run.
    fn read_accepted(&mut self) -> Result<Vec<u64>>;
}

/// [`VectorBackend::passes`] on a device: the passes enqueued in order, the accepted moves
/// added up on the device and read back once.
pub fn launch_passes(kernels: &mut impl VectorKernels, passes: &[SweepPass]) -> Result<Vec<u64>> {
    kernels.clear_counts()?;
    for pass in passes {
        kernels.enqueue_pass(pass)?;
    }
    kernels.read_accepted()
}

/// Which copy of discrete states swept in bit planes holds their last word: the states, which
/// measurements, checkpoints, exchanges and copies read and write, or the planes, which the
/// sweeps update; or both alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Current {
    States,
    Planes,
    Both,
}

/// The vector-spin engine (XY and Heisenberg spins) on backend `B`.
pub struct VectorEngine<B> {
    backend: B,
    updates: VectorSweeps,
    /// Every sweep's passes ([`VectorSweeps::passes`]).
    passes: Vec<VectorPass>,
    /// Population annealing's table and whether the last plan measured every system.
    resampling: HostResampling,
    /// Which copy of states in bit planes is current (always the states without planes).
    current: Current,
}

impl<B: VectorBackend> VectorEngine<B> {
    /// The engine of the lattices `backend` holds, swept by `updates`.
    pub fn on(backend: B, updates: VectorSweeps) -> Self {
        VectorEngine {
            passes: updates.passes(backend.systems().lattice.colours()),
            backend,
            updates,
            resampling: HostResampling::default(),
            current: Current::States,
        }
    }

    /// The states, current: unpacked from the planes where the sweeps left them there.
    fn current_states(&mut self) -> Result<()> {
        if self.current == Current::Planes {
            self.backend.unpack_planes()?;
            self.current = Current::Both;
        }
        Ok(())
    }

    /// The states, current and about to change: the planes no longer hold them.
    fn states_change(&mut self) -> Result<()> {
        self.current_states()?;
        self.current = Current::States;
        Ok(())
    }

    /// Pass `pass` of sweep `sweep` on the threads of planes `planes` (checked by
    /// [`Plan::check_parts`]), a cluster update recording where `measured` (the sweep before a
    /// measurement).
    fn sweep_pass(
        &self,
        (sweep, measured): (u32, bool),
        pass: u32,
        planes: Range<u32>,
    ) -> SweepPass {
        let (kind, systems) = (self.passes[pass as usize], self.backend.systems());
        let threads = (self.updates).pass_threads(systems, kind, planes);
        SweepPass {
            sweep: (self.updates).pass_number(sweep, pass, systems.lattice.colours()),
            pass: kind,
            threads,
            records: measured && self.records_clusters(),
        }
    }

    /// Whether the sweeps' cluster updates record their statistic at measurements: a cluster
    /// step's of discrete states (replica moves keep their own record at every move).
    fn records_clusters(&self) -> bool {
        self.updates.clusters.is_some() && self.backend.systems().clusters_record_sizes()
    }

    /// Run the `pending` passes if there are more than `at_most` (then none are), adding their
    /// accepted moves to `accepted`.
    fn run_passes(
        &mut self,
        pending: &mut Vec<SweepPass>,
        accepted: &mut [u64],
        at_most: usize,
    ) -> Result<()> {
        if pending.len() > at_most {
            if self.updates.planes {
                if self.current == Current::States {
                    self.backend.pack_planes()?;
                }
                self.current = Current::Planes;
            }
            let counted = self.backend.passes(pending)?;
            accepted.iter_mut().zip(counted).for_each(|(a, c)| *a += c);
            pending.clear();
        }
        Ok(())
    }
}

impl<B: VectorBackend + ProposalBackend + ExchangeBackend + PopulationBackend> Engine
    for VectorEngine<B>
{
    fn info(&self) -> EngineInfo {
        let (adapter, driver) = self.backend.adapter_and_driver();
        EngineInfo {
            backend: B::NAME.into(),
            engine: "vector".into(),
            adapter,
            driver,
        }
    }

    /// The backend's hot start; a diluted model's empty sites then take the vacancy, on the
    /// host (once a run: the lattices make one round trip).
    fn hot_start(&mut self) -> Result<()> {
        self.current = Current::States;
        self.backend.hot_start()?;
        if self.backend.systems().vacancies.is_some() {
            let mut spins = self.backend.read_spins()?;
            self.backend.systems().place_vacancies(&mut spins);
            self.backend.write_spins(&spins)?;
        }
        Ok(())
    }

    fn set_spins(&mut self, spins: &Lattices) -> Result<()> {
        let spins = spins.vector()?;
        check_spin_words(self.backend.systems(), spins.len())?;
        self.current = Current::States;
        self.backend.write_spins(spins)
    }

    fn spins(&mut self) -> Result<Lattices> {
        self.current_states()?;
        Ok(Lattices::Vector(self.backend.read_spins()?))
    }

    /// A resampling step first (replayed on the host, the backend copying the lattices), then
    /// sweeps, pieces of sweeps, measurements (observations and overlaps) and observations
    /// (without the overlaps); the steps of other models' capabilities are refused. The
    /// measurements fill their slots as they come, without zeroing them first (a glass of
    /// thousands of small systems measures megabytes a plan); the overlaps only where the plan
    /// measures them.
    fn execute(&mut self, plan: &Plan) -> Result<Measurements> {
        let systems = self.backend.systems();
        let (count, overlaps) = (systems.systems() as usize, systems.overlaps() as usize);
        let (sums, pair_sums) = (
            count * state_words(systems),
            overlaps * pair_state_words(systems),
        );
        let (size, seed) = (systems.lattice.size, systems.seed);
        let slots = plan.slots as usize;
        let measures = (plan.steps.iter()).any(|s| matches!(s, Step::Measure { .. }));
        let mut measurements = Measurements {
            vector_observations: Vec::with_capacity(slots * count),
            vector_overlaps: Vec::with_capacity(usize::from(measures) * slots * overlaps),
            vector_states: Vec::with_capacity(slots * sums),
            vector_pair_states: Vec::with_capacity(usize::from(measures) * slots * pair_sums),
            accepted: vec![0; count],
            ..Measurements::default()
        };
        plan.check_parts(self.sweep_parts(), (self.passes.len() as u32, size))?;
        let (resample, steps) = plan.split_resample()?;
        if let Some(resampled) = self.resampling.replay(seed, resample)? {
            self.states_change()?;
            self.backend.copy_systems(&resampled.sources)?;
            measurements.copies = resampled.copies;
        }
        let mut pending = Vec::new();
        for (i, &step) in steps.iter().enumerate() {
            let measured = matches!(steps.get(i + 1), Some(Step::Measure { .. }));
            match step {
                Step::Sweep { sweep } => {
                    for pass in 0..self.passes.len() as u32 {
                        pending.push(self.sweep_pass((sweep, measured), pass, 0..size));
                    }
                    let accepted = &mut measurements.accepted;
                    self.run_passes(&mut pending, accepted, PASSES_PER_CALL)?;
                }
                Step::Part {
                    sweep,
                    pass,
                    planes: [first, end],
                } => {
                    let piece = self.sweep_pass((sweep, false), pass, first..end);
                    // A piece of planes that hold no thread's first site runs nothing.
                    if !piece.threads.is_empty() {
                        pending.push(piece);
                    }
                    let accepted = &mut measurements.accepted;
                    self.run_passes(&mut pending, accepted, PASSES_PER_CALL)?;
                }
                Step::Measure { slot } | Step::Observe { slot } => {
                    self.run_passes(&mut pending, &mut measurements.accepted, 0)?;
                    self.current_states()?;
                    let slot = slot as usize;
                    let (observed, states) = self.backend.observe()?;
                    fill_slot(
                        &mut measurements.vector_observations,
                        slot * count,
                        observed,
                    )?;
                    fill_slot(&mut measurements.vector_states, slot * sums, states)?;
                    if matches!(step, Step::Measure { .. }) {
                        let (measured, states) = self.backend.overlaps()?;
                        fill_slot(&mut measurements.vector_overlaps, slot * overlaps, measured)?;
                        let pair_states = &mut measurements.vector_pair_states;
                        fill_slot(pair_states, slot * pair_sums, states)?;
                        if self.records_clusters() {
                            let sizes = self.backend.take_cluster_record()?;
                            fill_slot(&mut measurements.cluster_sizes, slot * count, sizes)?;
                        }
                    }
                }
                other => {
                    return Err(Error::State(format!(
                        "a vector-spin engine runs sweeps and measurements, not {other:?}"
                    )));
                }
            }
        }
        self.run_passes(&mut pending, &mut measurements.accepted, 0)?;
        if !self.updates.moves.is_none() {
            let pairs = self.backend.take_cluster_record()?;
            measurements.replica_moves = pair_moves_of_systems(self.backend.systems(), &pairs);
        }
        let observed = steps
            .iter()
            .any(|s| matches!(s, Step::Measure { .. } | Step::Observe { .. }));
        self.resampling.record_replicas(count, observed);
        (measurements.vector_observations).resize(slots * count, VectorObservation::default());
        measurements.vector_states.resize(slots * sums, 0);
        if measures {
            (measurements.vector_overlaps).resize(slots * overlaps, VectorOverlap::default());
            measurements.vector_pair_states.resize(slots * pair_sums, 0);
            if self.records_clusters() {
                measurements.cluster_sizes.resize(slots * count, 0);
            }
        }
        Ok(measurements)
    }

    /// Pieces of sweeps, but not of a cluster update's or a replica move's labelling.
    fn sweep_parts(&self) -> bool {
        self.updates.clusters.is_none() && self.updates.moves.is_none()
    }

    fn proposals(&mut self) -> Option<&mut dyn Proposals> {
        Some(self)
    }

    fn exchanges(&mut self) -> Option<&mut dyn Exchanges> {
        Some(self)
    }

    fn populations(&mut self) -> Option<&mut dyn Populations> {
        Some(self)
    }
}

/// Append `values` to `slots` at `start`, after defaults for the slots before it that no step
/// filled; refused where a slot comes after a later one (plans number their slots in order).
fn fill_slot<T: Default + Clone>(slots: &mut Vec<T>, start: usize, values: Vec<T>) -> Result<()> {
    if slots.len() > start {
        return Err(Error::State(format!(
            "a plan's measurement slots out of order: slot at {start} after {} values",
            slots.len()
        )));
    }
    if start == 0 {
        // The first slot takes the backend's values as they are, without a copy.
        *slots = values;
    } else {
        slots.resize(start, T::default());
        slots.extend(values);
    }
    Ok(())
}

impl<B: VectorBackend + ProposalBackend> Proposals for VectorEngine<B> {
    fn set_widths(&mut self, widths: &[i32]) -> Result<()> {
        check_widths(self.backend.systems(), self.updates.heat_bath, widths)?;
        self.backend.write_widths(widths)
    }
}

impl<B: VectorBackend + ExchangeBackend> Exchanges for VectorEngine<B> {
    fn exchange(&mut self, partners: &[u32]) -> Result<()> {
        check_partners(self.backend.systems(), partners)?;
        self.states_change()?;
        self.backend.exchange_systems(partners)
    }
}

/// Population annealing on the vector engine: the sweeps between its steps are Metropolis or
/// heat-bath sweeps (their acceptance tables follow the betas; no cluster passes, whose bond
/// thresholds would not), and the resampling decisions are the host's, one table entry per
/// replica.
impl<B: VectorBackend + PopulationBackend> Populations for VectorEngine<B> {
    fn set_betas(&mut self, betas: &[f64]) -> Result<()> {
        check_betas(self.backend.systems(), betas)?;
        if self.updates.clusters.is_some() || !self.updates.moves.is_none() {
            return Err(Error::State(
                "new temperatures on a vector engine with cluster passes, whose bond \
                 thresholds stay at the betas it was opened with"
                    .into(),
            ));
        }
        self.backend.write_betas(betas)
    }

    fn copy_systems(&mut self, sources: &[u32]) -> Result<()> {
        check_copy_map(self.backend.systems(), sources)?;
        self.states_change()?;
        self.backend.copy_systems(sources)
    }

    fn set_resampling(&mut self, table: &ResamplingTable) -> Result<()> {
        if table.keyed != Keyed::Replica {
            return Err(Error::State(
                "a vector engine resamples by tables keyed by replica (its measurements have \
                 no bond levels)"
                    .into(),
            ));
        }
        let systems = self.backend.systems().systems();
        self.resampling.set_table(table, systems)
    }
}

//! Engines replay a [`Plan`] built by the simulation loop.
//!
//! The loop (an algorithm's home, above the engines) decides what happens (which sweeps, when to
//! measure); an engine only executes it on its hardware and returns exact integer observations.
//! Every engine uses the same random words and thresholds, so all of them produce the same
//! lattices bit for bit.
//!
//! One contract serves every model (Ising and vector spins), split by capability. [`Engine`] is
//! the core every engine has: lattices in and out ([`Lattices`], of the engine's spin type), the
//! hot start, and plans of sweeps and measurements (a Metropolis sweep of Ising spins, or the
//! passes of a vector sweep, [`vector::VectorSweeps::passes`]; the measurements of the model,
//! [`Measurements`]). The rest are capabilities an engine may have, each a trait of its own that
//! the engine hands out through an accessor of [`Engine`] (`None` by default):
//! - [`Tempering`] ([`Engine::tempering`]): parallel tempering, a tempering state and the
//!   plans' [`Step::Swap`] rounds;
//! - [`Populations`] ([`Engine::populations`]): population annealing, changing temperatures,
//!   copying systems, the plans' [`Step::Resample`] steps and counting populations on the device;
//! - [`Clusters`] ([`Engine::clusters`]): Swendsen-Wang and Wolff cluster updates, the plans'
//!   [`Step::Cluster`] steps ([`clusters`]; the simple engines have them);
//! - [`Proposals`] ([`Engine::proposals`]): the vector spins' proposal widths per temperature,
//!   which the cone tuning sets between plans (the vector engines);
//! - [`Exchanges`] ([`Engine::exchanges`]): parallel tempering of vector spins, whose rounds the
//!   host decides from the measured energies and the engine carries out by exchanging lattices
//!   between partner systems (the vector engines; the Ising engines' [`Tempering`] decides on
//!   the device, inside the plan).
//!
//! A loop asks for what it needs ([`tempering_of`], [`populations_of`], [`clusters_of`],
//! [`proposals_of`], [`exchanges_of`]) and
//! gets a clear error where the engine lacks it. A wrapper engine (the MPI ranks, the annealing
//! bench's timer) forwards the capabilities of the engine it wraps. A capability is added the
//! same way: a trait, an accessor on [`Engine`] returning `None` by default, and `Some(self)`
//! from the engines that have it.

pub mod annealing;
pub mod backend;
pub mod choice;
pub mod clusters;
pub mod copy_maps;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod cuda;
pub mod dispatch;
pub mod kernels;
pub mod lattices;
pub mod memory;
pub mod multispin;
pub mod open;
pub mod placement;
pub mod planes;
pub mod resampling;
pub mod slabs;
pub mod spins;
pub mod tempering;
pub mod vector;
pub mod vector_gpu;
pub mod wgpu;

use std::ops::Range;

use crate::config::ClusterUpdate;
use crate::error::{Error, Result};
use crate::model::ising::IsingSystems;
use crate::model::systems::SystemIndex;
pub use lattices::Lattices;
pub use spins::SpinBits;
use vector::{VectorObservation, VectorOverlap};

/// The passes of a Metropolis sweep of Ising spins, its two colours, as its pieces
/// ([`Step::Part`]) count them.
pub const ISING_PASSES: u32 = 2;

/// The passes of a cluster update as its pieces ([`Step::ClusterPart`]) count them: the
/// labelling (the active bonds joined into the union-find), then the roots (every site pointed
/// at its root, its flip decided, the statistic counted); the flips follow the last piece.
pub const CLUSTER_PASSES: u32 = 2;

/// One step of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// One sweep of every system, `sweep` keying its randoms: of Ising spins a Metropolis sweep
    /// (colour 0, then colour 1); of vector spins the passes of
    /// [`vector::VectorSweeps::passes`], the Metropolis moves with the widths of [`Proposals`].
    Sweep { sweep: u32 },
    /// Pass `pass` of sweep `sweep` over the sites on planes `planes[0] .. planes[1]` of the
    /// lattice's slowest axis: a piece of a [`Step::Sweep`], for plans that must end inside a
    /// long sweep ([`Engine::sweep_parts`], [`crate::stop`]). A sweep's passes are the two
    /// colours of a Metropolis sweep of Ising spins (pass = colour) and
    /// [`vector::VectorSweeps::passes`] of vector spins. A pass's sites read only the other
    /// colour's, so its planes may be updated in pieces, over several plans: the pieces of each
    /// pass in pass order give the whole sweep's lattices bit for bit. A thread's work (a group
    /// of sites, a run of words, a tile) belongs to the piece holding its first site
    /// ([`crate::model::Lattice::plane_units`]). Updates only: a vector engine's accepted moves
    /// count as in the sweep.
    Part {
        sweep: u32,
        pass: u32,
        planes: [u32; 2],
    },
    /// Measure every system (and the overlap pairs) into observation slot `slot` of this plan.
    Measure { slot: u32 },
    /// Measure every system, but not the overlap pairs (their part of the slot stays zero), into
    /// slot `slot`: the energies a round of host-decided tempering needs between measurements
    /// ([`Exchanges`]; the vector engines). The Ising engines, whose rounds are the plans'
    /// [`Step::Swap`], refuse it ([`Plan::refuse_observe`]).
    Observe { slot: u32 },
    /// A parallel-tempering swap round after sweep `sweep` on the neighbour pairs `(k, k + 1)`
    /// with `k mod 2 = parity` (see [`tempering`]).
    Swap { sweep: u32, parity: u32 },
    /// Population annealing's resampling step `step` (1 for the step to the first beta after
    /// 0), from the table of [`Populations::set_resampling`] and the previous plan's last
    /// measurement; only as a plan's first step (see [`annealing`]).
    Resample { step: u32 },
    /// Cluster update `update` of every system (numbered over the run apart from the sweeps;
    /// the kind of [`Clusters::set_clusters`], keyed as [`clusters`] says). With `sizes:
    /// Some(slot)` it adds its cluster sizes' statistic into slot `slot` of
    /// [`Measurements::cluster_sizes`].
    Cluster { update: u32, sizes: Option<u32> },
    /// Pass `pass` ([`CLUSTER_PASSES`]) of [`Step::Cluster`] `update` over the sites on planes
    /// `planes[0] .. planes[1]` of the lattice's slowest axis, for plans that must end inside a
    /// long update ([`Clusters::update_parts`], [`crate::stop`]): pass 0 joins their active
    /// bonds into the update's labelling, pass 1 points them at their roots, decides their
    /// flips and counts the statistic. An update's lattices do not change until its flips, so
    /// its pieces may come over several plans: the engine holds the labelling between them (not
    /// a checkpoint: a run stopped inside an update redoes it), each piece continues the one
    /// before (pass by pass, plane by plane, from pass 0 on plane 0), and the piece that ends
    /// pass 1 at the last plane also flips and records into `sizes` as [`Step::Cluster`] does.
    /// The pieces in order give the whole update's lattices and statistic bit for bit.
    ClusterPart {
        update: u32,
        sizes: Option<u32>,
        pass: u32,
        planes: [u32; 2],
    },
}

/// A sequence of steps with the number of observation slots it fills.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub steps: Vec<Step>,
    pub slots: u32,
}

impl Plan {
    /// Append a sweep.
    pub fn sweep(&mut self, sweep: u32) {
        self.steps.push(Step::Sweep { sweep });
    }

    /// Append pass `pass` of sweep `sweep` on `planes` ([`Step::Part`]).
    pub fn part(&mut self, sweep: u32, pass: u32, planes: Range<u32>) {
        let planes = [planes.start, planes.end];
        self.steps.push(Step::Part {
            sweep,
            pass,
            planes,
        });
    }

    /// Append units `units` of sweep `sweep`, of `passes` passes over `planes` planes (unit
    /// `p planes + k` is pass `p` on plane `k`): the whole sweep ([`Step::Sweep`]) where they
    /// are all of it, else its pieces ([`Step::Part`]), a pass at a time.
    pub fn sweep_units(&mut self, sweep: u32, (passes, planes): (u32, u32), units: Range<u64>) {
        let all = u64::from(passes) * u64::from(planes);
        if units == (0..all) {
            return self.sweep(sweep);
        }
        for (pass, planes) in pass_pieces(planes, units) {
            self.part(sweep, pass, planes);
        }
    }

    /// Refuse, before anything runs, pieces of sweeps ([`Step::Part`]) on an engine without
    /// them (`sweep_parts` false), and a piece that is no pass of a sweep of `(passes,
    /// planes)`.
    pub fn check_parts(&self, sweep_parts: bool, (passes, planes): (u32, u32)) -> Result<()> {
        for step in &self.steps {
            let Step::Part {
                sweep,
                pass,
                planes: [first, end],
            } = *step
            else {
                continue;
            };
            if !sweep_parts {
                return Err(Error::State(
                    "this engine updates whole sweeps only (Step::Sweep), not pieces of one \
                     (Step::Part)"
                        .into(),
                ));
            }
            if pass >= passes || first > end || end > planes {
                return Err(Error::State(format!(
                    "sweep {sweep}: pass {pass} on planes {first}..{end} is no piece of a sweep \
                     of {passes} passes over planes 0..{planes}"
                )));
            }
        }
        Ok(())
    }

    /// Append a measurement into the next free slot.
    pub fn measure(&mut self) {
        self.steps.push(Step::Measure { slot: self.slots });
        self.slots += 1;
    }

    /// Append an observation without the overlap pairs ([`Step::Observe`]) into the next free
    /// slot.
    pub fn observe(&mut self) {
        self.steps.push(Step::Observe { slot: self.slots });
        self.slots += 1;
    }

    /// Refuse a plan with [`Step::Observe`]: for the engines without host-decided exchanges.
    pub fn refuse_observe(&self) -> Result<()> {
        match self.steps.iter().any(|s| matches!(s, Step::Observe { .. })) {
            true => Err(Error::State(
                "an observation without the overlap pairs (Step::Observe) serves host-decided \
                 tempering of vector spins; this engine measures with Step::Measure"
                    .into(),
            )),
            false => Ok(()),
        }
    }

    /// Start an empty plan with resampling step `step`.
    pub fn resample(&mut self, step: u32) -> Result<()> {
        if !self.steps.is_empty() {
            return Err(Error::State(
                "a resampling step comes first in its plan, after the measurement its table \
                 was built from"
                    .into(),
            ));
        }
        self.steps.push(Step::Resample { step });
        Ok(())
    }

    /// The plan's resampling step (its first, if any), and its other steps. Refuses a
    /// resampling step anywhere else.
    pub fn split_resample(&self) -> Result<(Option<u32>, &[Step])> {
        let (first, rest) = match self.steps.split_first() {
            Some((&Step::Resample { step }, rest)) => (Some(step), rest),
            _ => (None, self.steps.as_slice()),
        };
        if rest.iter().any(|s| matches!(s, Step::Resample { .. })) {
            return Err(Error::State(
                "a resampling step may only be the first step of a plan".into(),
            ));
        }
        Ok((first, rest))
    }

    /// Append cluster update `update`; with `record`, its cluster sizes go into the slot of the
    /// next measurement ([`Plan::measure`]), which may be a later plan's ([`Plan::size_slots`]).
    pub fn cluster(&mut self, update: u32, record: bool) {
        let sizes = record.then_some(self.slots);
        self.steps.push(Step::Cluster { update, sizes });
    }

    /// Append pass `pass` of cluster update `update` on `planes` ([`Step::ClusterPart`]),
    /// recording as [`Plan::cluster`] does.
    pub fn cluster_part(&mut self, update: u32, record: bool, pass: u32, planes: Range<u32>) {
        let sizes = record.then_some(self.slots);
        let planes = [planes.start, planes.end];
        self.steps.push(Step::ClusterPart {
            update,
            sizes,
            pass,
            planes,
        });
    }

    /// Append units `units` of cluster update `update` over `planes` planes ([`CLUSTER_PASSES`]
    /// passes; unit `p planes + k` is pass `p` on plane `k`), recording as [`Plan::cluster`]
    /// does: the whole update where they are all of it, else its pieces, a pass at a time.
    pub fn cluster_units(&mut self, update: u32, record: bool, planes: u32, units: Range<u64>) {
        if units == (0..u64::from(CLUSTER_PASSES * planes)) {
            return self.cluster(update, record);
        }
        for (pass, planes) in pass_pieces(planes, units) {
            self.cluster_part(update, record, pass, planes);
        }
    }

    /// Refuse, before anything runs, pieces of cluster updates ([`Step::ClusterPart`]) on an
    /// engine without them (`update_parts` false), and a piece that is no pass of an update
    /// over `planes` planes.
    pub fn check_cluster_parts(&self, update_parts: bool, planes: u32) -> Result<()> {
        for step in &self.steps {
            let Step::ClusterPart {
                update,
                pass,
                planes: [first, end],
                ..
            } = *step
            else {
                continue;
            };
            if !update_parts {
                return Err(Error::State(
                    "this engine makes whole cluster updates only (Step::Cluster), not pieces of \
                     one (Step::ClusterPart)"
                        .into(),
                ));
            }
            if pass >= CLUSTER_PASSES || first > end || end > planes {
                return Err(Error::State(format!(
                    "cluster update {update}: pass {pass} on planes {first}..{end} is no piece \
                     of an update of {CLUSTER_PASSES} passes over planes 0..{planes}"
                )));
            }
        }
        Ok(())
    }

    /// The cluster steps' recordings: the slot of each that records.
    fn recorded_slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.steps.iter().filter_map(|s| match *s {
            Step::Cluster { sizes, .. } | Step::ClusterPart { sizes, .. } => sizes,
            _ => None,
        })
    }

    /// Whether the plan records cluster sizes (then [`Measurements::cluster_sizes`] has
    /// [`Plan::size_slots`] slots).
    pub fn records_cluster_sizes(&self) -> bool {
        self.recorded_slots().next().is_some()
    }

    /// Slots of [`Measurements::cluster_sizes`]: the plan's, and one more where it ends after
    /// updates of a measured step whose measurement a later plan takes (they record into slot
    /// [`Plan::slots`]; the loop adds it into that measurement's).
    pub fn size_slots(&self) -> u32 {
        match self.recorded_slots().any(|slot| slot == self.slots) {
            true => self.slots + 1,
            false => self.slots,
        }
    }

    /// Number of steps of cluster updates in the plan, pieces included.
    pub fn cluster_updates(&self) -> u64 {
        self.steps
            .iter()
            .filter(|s| matches!(s, Step::Cluster { .. } | Step::ClusterPart { .. }))
            .count() as u64
    }

    /// Append a swap round.
    pub fn swap(&mut self, sweep: u32, parity: u32) {
        self.steps.push(Step::Swap { sweep, parity });
    }

    /// Whether the plan holds swap rounds; for an engine without tempering (`tempering` false)
    /// they are an error.
    pub fn swaps(&self, tempering: bool) -> Result<bool> {
        let swaps = self.steps.iter().any(|s| matches!(s, Step::Swap { .. }));
        if swaps && !tempering {
            return Err(no_tempering());
        }
        Ok(swaps)
    }

    /// Number of sweeps in the plan.
    pub fn sweeps(&self) -> u64 {
        self.steps
            .iter()
            .filter(|s| matches!(s, Step::Sweep { .. }))
            .count() as u64
    }
}

/// The runs of `len` units that units `units` reach (run `k` is units `k len .. (k + 1) len`),
/// one at a time: each run's index and the part of `units` inside it, counted from the run's
/// start. How the loops cut their units into sweeps or steps, and a sweep's into passes.
pub fn unit_runs(len: u64, units: Range<u64>) -> impl Iterator<Item = (u64, Range<u64>)> {
    (units.start / len..units.end.div_ceil(len)).map(move |k| {
        let start = k * len;
        (
            k,
            units.start.max(start) - start..units.end.min(start + len) - start,
        )
    })
}

/// The pieces of units `units` of passes over `planes` planes each (unit `p planes + k` is pass
/// `p` on plane `k`), a pass at a time: each pass and its planes.
fn pass_pieces(planes: u32, units: Range<u64>) -> impl Iterator<Item = (u32, Range<u32>)> {
    unit_runs(u64::from(planes), units)
        .map(|(pass, planes)| (pass as u32, planes.start as u32..planes.end as u32))
}

/// How a loop counts the positions of its plans: in units of a pass over a plane where the
/// engine cuts its sweeps into pieces ([`Step::Part`], [`Engine::sweep_parts`]), else in
/// sweeps; a plan is pieces of one sweep or whole sweeps
/// ([`crate::stop::Stops::piece_end`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SweepCut {
    /// A sweep's passes and planes; `None` where sweeps stay whole.
    pub pieces: Option<(u32, u32)>,
    /// Units a sweep.
    pub units: u64,
}

impl SweepCut {
    /// Sweeps of `(passes, planes)` cut where `pieces` is given, else whole.
    pub fn new(pieces: Option<(u32, u32)>) -> Self {
        let units = pieces.map_or(1, |(passes, planes)| u64::from(passes) * u64::from(planes));
        SweepCut { pieces, units }
    }

    /// The position of `units` units of the sweep after `sweeps` sweeps.
    pub fn position(&self, sweeps: u64, units: u64) -> u64 {
        sweeps * self.units + units
    }

    /// Where the plan from unit `from` to unit `to` is pieces of one sweep: the cut, the sweep
    /// and its units (for [`Plan::sweep_units`]); `None` where it is whole sweeps.
    pub fn pieces_of(&self, from: u64, to: u64) -> Option<((u32, u32), u64, Range<u64>)> {
        let pieces = self.pieces?;
        let sweep = from / self.units;
        let done = sweep * self.units;
        (!from.is_multiple_of(self.units) || to - from < self.units)
            .then(|| (pieces, sweep, from - done..to - done))
    }
}

/// Exact integer observables of one system at one measurement: the number of up spins and the
/// number of satisfied bonds (`s_i = s_j`). `M = 2 up - N` and `B = 2 satisfied - d N`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Observation {
    pub up: u64,
    pub satisfied: u64,
}

/// What a plan measured: exact integers, slot-major. An engine fills the fields of its model
/// (`observations` and the overlaps of Ising spins, `vector_*` and `accepted` of vector spins);
/// the others stay empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Measurements {
    /// `[slot][system]`.
    pub observations: Vec<Observation>,
    /// `[slot][overlap][x]`: sites with `x`-coordinate `x` where the two replicas of an
    /// overlap pair (see [`SystemIndex::overlaps`]) differ. Empty without overlap pairs.
    ///
    /// [`SystemIndex::overlaps`]: crate::model::systems::SystemIndex::overlaps
    pub overlap_planes: Vec<u32>,
    /// `[slot][overlap]`: bonds (each site's forward bonds) whose two sites differ differently
    /// between the two replicas of an overlap pair (`q_i q_j = -1`), so the link overlap is
    /// `q_l = 1 - 2 B_l / N_b` over the lattice's `N_b` links ([`crate::model::Lattice::links`]).
    /// Empty without overlap pairs.
    pub link_overlaps: Vec<u64>,
    /// `[slot][r][k]` with parallel tempering: the walker at temperature `k` of the chain set of
    /// replica `r` of sample 0 at each measurement (the temperature history). Empty otherwise.
    /// An engine of a sample slice records its first sample: the run's history comes from the
    /// slice holding the run's sample 0.
    pub labels: Vec<u32>,
    /// `[system]` after a plan that resampled: the copies each system's replica made (zero for
    /// idle slots, see [`annealing`]). Empty otherwise.
    pub copies: Vec<u32>,
    /// With [`Populations::count_populations`]: the plan's last measurement as histograms of the
    /// populations; `observations` is then empty.
    pub histograms: Option<Box<annealing::PopulationHistograms>>,
    /// `[slot][system]` where the plan's cluster updates record their sizes
    /// ([`Step::Cluster`]; of a vector-spin engine's cluster step, those of the sweep before
    /// each `Measure`): the sum over the updates that recorded into the slot of Swendsen-Wang's
    /// `sum_C |C|^2` or Wolff's `|C|`, of occupied sites ([`clusters`]). Empty otherwise.
    pub cluster_sizes: Vec<u64>,
    /// `[slot][system]` of a vector-spin engine: every system's observation.
    pub vector_observations: Vec<VectorObservation>,
    /// `[slot][overlap]` of a vector-spin engine: the tensor overlap of every replica pair of a
    /// spin glass ([`crate::model::vector::VectorSystems::overlaps`]), zero in the slots of
    /// `Observe` steps. Empty for the ferromagnet and for a plan without a `Measure` step.
    pub vector_overlaps: Vec<VectorOverlap>,
    /// `[slot][system][word]` of a vector-spin engine of discrete states: every system's
    /// [`vector::StateSums`] ([`vector::state_words`] words). Empty for unit vectors.
    pub vector_states: Vec<i64>,
    /// `[slot][overlap][word]` of a glass of discrete states: every replica pair's
    /// [`vector::StateSums`] ([`vector::pair_state_words`] words), zero in the slots of
    /// `Observe` steps. Empty where `vector_overlaps` is, and for unit vectors.
    pub vector_pair_states: Vec<i64>,
    /// `[system]` of a vector-spin engine: the Metropolis moves accepted over the plan's sweeps.
    pub accepted: Vec<u64>,
    /// `[system]` of a vector-spin engine with replica moves, over the plan's sweeps: at a
    /// replica pair's first system the sites its moves swapped, at its second the moves that
    /// found a seed ([`vector::pair_moves_of_systems`]). Empty otherwise.
    pub replica_moves: Vec<u64>,
}

/// What an engine runs on, for the summary and logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineInfo {
    /// `cpu`, `wgpu` or `cuda`.
    pub backend: String,
    /// `simple` or `multispin`, with the layout; `vector`.
    pub engine: String,
    /// The adapter (GPU name and graphics API) or the CPU description.
    pub adapter: String,
    /// The GPU driver and its version, as the backend reports it; empty for the CPU.
    pub driver: String,
}

/// The core every backend fulfils, for every model: lattices and sweeps (plans of [`Step::Sweep`]
/// and [`Step::Measure`]). What else an engine can do it offers as capabilities, through the
/// accessors at the end (`None` where it has none); the loops ask for them with
/// [`tempering_of`], [`populations_of`], [`clusters_of`], [`proposals_of`] and
/// [`exchanges_of`].
pub trait Engine {
    /// What this engine runs on.
    fn info(&self) -> EngineInfo;
    /// Replace every system's lattice ([`Lattices`] of the engine's spin type; Ising spins one
    /// bit per spin, natural order: [`SpinBits`]; an engine of a slab holds only the slab's
    /// planes of each, see [`slabs`]). Lattices of the other spin type are refused.
    fn set_spins(&mut self, spins: &Lattices) -> Result<()>;
    /// Every system's lattice ([`Lattices`] of the engine's spin type; a slab's planes of each
    /// for an engine of a slab).
    fn spins(&mut self) -> Result<Lattices>;
    /// Start every system from the hot start ([`crate::engine::cpu::hot_start::initial_spins`]'s
    /// lattices, or `vector_hot_start`'s), computed where the spins live by the hot-start kernel
    /// ([`cpu::hot_start`], [`cpu::vector_hot_start`]).
    fn hot_start(&mut self) -> Result<()>;
    /// Execute a plan; returns `plan.slots * systems` observations (and the overlaps of the
    /// overlap pairs), slot-major, and a vector engine the accepted moves of its sweeps
    /// ([`Measurements`]). An engine of a slab returns its planes' partial sums ([`slabs`]).
    fn execute(&mut self, plan: &Plan) -> Result<Measurements>;

    /// Most measurement slots one plan may fill: what the device's buffer limits allow (a
    /// swap round's scratch slot aside); no limit where none applies. Runs and benchmarks keep
    /// their plans within it (the loop's schedule divides its sweeps into plans by it).
    fn max_plan_slots(&self) -> u64 {
        u64::MAX
    }

    /// Whether it executes pieces of sweeps ([`Step::Part`]), so that a loop may end a plan
    /// inside a sweep that takes longer than a plan should ([`crate::stop`]). The engines do,
    /// those of a slab too ([`slabs::SlabPass`]), and the ranks of an MPI job as their engines.
    fn sweep_parts(&self) -> bool {
        false
    }

    /// Its parallel tempering ([`Tempering`]), if it has that capability.
    fn tempering(&mut self) -> Option<&mut dyn Tempering> {
        None
    }

    /// Its population annealing ([`Populations`]), if it has that capability.
    fn populations(&mut self) -> Option<&mut dyn Populations> {
        None
    }

    /// Its cluster updates ([`Clusters`]), if it has that capability.
    fn clusters(&mut self) -> Option<&mut dyn Clusters> {
        None
    }

    /// Its proposal widths ([`Proposals`]), if it has that capability.
    fn proposals(&mut self) -> Option<&mut dyn Proposals> {
        None
    }

    /// Its host-decided exchanges of lattices ([`Exchanges`]), if it has that capability.
    fn exchanges(&mut self) -> Option<&mut dyn Exchanges> {
        None
    }
}

/// The proposal widths of a vector-spin engine ([`Engine::proposals`]): the cone the Metropolis
/// moves of the plans' sweeps draw from.
pub trait Proposals {
    /// The width of each temperature's proposals for the plans that follow (spin units;
    /// [`vector::UNIFORM`] for directions uniform on the sphere). Until the first call every
    /// temperature's is [`vector::UNIFORM`].
    fn set_widths(&mut self, widths: &[i32]) -> Result<()>;
}

/// Parallel tempering decided on the host ([`Engine::exchanges`]): the engine only moves the
/// lattices of the pairs the host accepted (`vector_exchange`).
pub trait Exchanges {
    /// System `b` swaps its lattice with system `partners[b]` (one entry per system, a pair
    /// naming each other; `b` itself: no swap).
    fn exchange(&mut self, partners: &[u32]) -> Result<()>;
}

/// The cluster-update capability of an engine ([`Engine::clusters`]): Swendsen-Wang or Wolff
/// updates of every system, the plans' [`Step::Cluster`] steps, keyed as [`clusters`] says.
pub trait Clusters {
    /// Make the plans' cluster steps updates of kind `update`: plans may then hold
    /// [`Step::Cluster`]. An engine without that kind of update refuses.
    fn set_clusters(&mut self, update: ClusterUpdate) -> Result<()>;
    /// Whether it makes pieces of updates ([`Step::ClusterPart`]), so that a loop may end a plan
    /// inside an update that takes longer than a plan should ([`crate::stop`]): the CPU's
    /// labelling of a large lattice takes seconds, a device's update milliseconds.
    fn update_parts(&self) -> bool {
        false
    }
    /// Labelling iterations of the cluster updates so far (passes of the device's labelling
    /// over the lattices, for the benchmark's floor); 0 where labelling does not iterate (the
    /// CPU's union-find).
    fn labelling_iterations(&mut self) -> u64 {
        0
    }
}

/// The parallel-tempering capability of an engine ([`Engine::tempering`]): a tempering state
/// (laid out as [`tempering`] says) that plans' [`Step::Swap`] rounds update.
pub trait Tempering {
    /// Start parallel tempering from `state` (laid out as [`tempering`] says): plans may then
    /// hold [`Step::Swap`].
    fn set_tempering(&mut self, state: &[u32]) -> Result<()>;
    /// The tempering state (empty before [`Tempering::set_tempering`]).
    fn tempering_state(&mut self) -> Result<Vec<u32>>;
}

/// The population-annealing capability of an engine ([`Engine::populations`]): changing
/// temperatures, copying systems and the plans' [`Step::Resample`] steps.
pub trait Populations {
    /// Replace the inverse temperatures (one per configured temperature) and with them the
    /// Metropolis thresholds, keeping the spins. An engine opened for [`Betas::Fixed`] may
    /// refuse (the multispin CUDA engine compiles such thresholds in).
    fn set_betas(&mut self, betas: &[f64]) -> Result<()>;
    /// Resampling: system `b` takes the lattice that system `sources[b]` holds before the call
    /// (a gather over every system; `sources[b] == b` keeps it). Engines that replay a
    /// resampling step on the host copy by the step's map ([`annealing::HostResampling`]); the
    /// spins stay in the engine.
    fn copy_systems(&mut self, sources: &[u32]) -> Result<()>;
    /// The table of the next plan's [`Step::Resample`].
    fn set_resampling(&mut self, table: &annealing::ResamplingTable) -> Result<()>;
    /// Measure the populations (blocks of `slots` systems, the first `sizes[b]` of block `b`;
    /// resampling steps then change the sizes) as histograms
    /// ([`annealing::PopulationHistograms`]) rather than every system's counts. An engine
    /// that counts them on its device says so (true); the others keep measuring every system,
    /// from which the host makes the same histograms.
    fn count_populations(&mut self, slots: u32, sizes: &[u32]) -> Result<bool> {
        let _ = (slots, sizes);
        Ok(false)
    }
}

/// The parallel tempering of `engine`, or an error where it has none.
pub fn tempering_of(engine: &mut dyn Engine) -> Result<&mut dyn Tempering> {
    engine
        .tempering()
        .ok_or_else(|| Error::State("this engine has no parallel tempering".into()))
}

/// The tempering state of `engine`: empty where it has no parallel tempering (as it is before
/// [`Tempering::set_tempering`]).
pub fn tempering_state_of(engine: &mut dyn Engine) -> Result<Vec<u32>> {
    match engine.tempering() {
        Some(tempering) => tempering.tempering_state(),
        None => Ok(Vec::new()),
    }
}

/// The population annealing of `engine`, or an error where it has none.
pub fn populations_of(engine: &mut dyn Engine) -> Result<&mut dyn Populations> {
    engine
        .populations()
        .ok_or_else(|| Error::State("this engine has no population annealing".into()))
}

/// The cluster updates of `engine`, or an error where it has none.
pub fn clusters_of(engine: &mut dyn Engine) -> Result<&mut dyn Clusters> {
    engine.clusters().ok_or_else(|| {
        Error::State(
            "this engine has no cluster updates (they run on the simple engine, engine: Simple)"
                .into(),
        )
    })
}

/// The proposal widths of `engine`, or an error where it has none.
pub fn proposals_of(engine: &mut dyn Engine) -> Result<&mut dyn Proposals> {
    engine.proposals().ok_or_else(|| {
        Error::State("this engine has no proposal widths (they are the vector spins')".into())
    })
}

/// The host-decided exchanges of `engine`, or an error where it has none.
pub fn exchanges_of(engine: &mut dyn Engine) -> Result<&mut dyn Exchanges> {
    engine.exchanges().ok_or_else(|| {
        Error::State(
            "this engine has no exchanges of lattices (vector spins' parallel tempering)".into(),
        )
    })
}

/// A lattice split into slabs: bands of whole planes along its slowest axis (y in 2D, z in 3D),
/// one per engine (per MPI rank, or per thread in a test). An engine holding one slab keeps a
/// halo plane on either side and, after updating each colour (each half of a colour's rows on
/// the triangular lattice), trades its boundary planes of that colour with the slabs below and
/// above through this: the plane below the first is the lower neighbour's last, the plane
/// above the last is the upper neighbour's first (periodic: the first slab's lower neighbour is
/// the last slab). Pieces of a sweep ([`Step::Part`]) trade
/// a colour's planes after the piece that ends its pass ([`slabs::SlabPass`]). The engines, the
/// order of the words and the single-process implementation ([`slabs::LocalHalos`]):
/// [`slabs`].
pub trait Halo: Send {
    /// After the update of `colour`: send `lower` (this slab's first plane of `colour`, in the
    /// engine's own words, every system in order) to the slab below and `upper` (its last
    /// plane) to the slab above; return `[below, above]`, the planes they sent (the lower
    /// neighbour's `upper` and the upper neighbour's `lower`), to become this slab's halos.
    fn exchange(&mut self, colour: u32, lower: Vec<u32>, upper: Vec<u32>) -> Result<[Vec<u32>; 2]>;

    /// Where the slabs are the processes of one job (MPI ranks, one device each), the ring
    /// they form, through which an engine may set up a device-to-device path for its halos
    /// instead of this host-staged one (the CUDA engine's NCCL path, `engine/cuda/halos.rs`);
    /// `None` for slabs of one process.
    fn ring(&mut self) -> Option<&mut dyn ProcessRing> {
        None
    }
}

/// The ranks of a job holding one slab each, in slab order (rank `k - 1` below, `k + 1` above,
/// periodic), as an engine sees them while it opens: what it needs to agree with the others on
/// a device-to-device halo path. Every rank's engine makes the same calls in the same order.
pub trait ProcessRing {
    /// This rank and the number of ranks.
    fn position(&self) -> (u32, u32);
    /// Whether `ok` holds on every rank (each passes its own), so that all take the same path.
    fn all(&mut self, ok: bool) -> Result<bool>;
    /// Rank 0's `token` on every rank (the others' is overwritten).
    fn broadcast(&mut self, token: &mut [u8]) -> Result<()>;
}

/// Whether an engine's inverse temperatures stay those it was opened with (Metropolis sweeps,
/// parallel tempering: a tuned ladder reopens the engine) or change while it runs (population
/// annealing, through [`Populations::set_betas`] at every step). Only the multispin CUDA engine
/// tells them apart: with `Fixed` and one threshold table shared by all lanes it compiles the
/// thresholds into its update; with `Changing` it never does, so a new beta is a table write,
/// not a compilation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Betas {
    Fixed,
    Changing,
}

/// Refuse a copy map that does not name a source system for every system.
pub fn check_copy_map(systems: &SystemIndex, sources: &[u32]) -> Result<()> {
    let count = systems.systems();
    if sources.len() != count as usize {
        return Err(Error::State(format!(
            "a copy map needs a source for each of the {count} systems, got {}",
            sources.len()
        )));
    }
    match sources.iter().position(|&source| source >= count) {
        Some(b) => Err(Error::State(format!(
            "copy map: system {b} would copy system {}, beyond the {count} systems",
            sources[b]
        ))),
        None => Ok(()),
    }
}

/// Refuse inverse temperatures that do not replace the configured ones one for one.
pub fn check_betas(systems: &SystemIndex, betas: &[f64]) -> Result<()> {
    if betas.len() != systems.betas.len() {
        return Err(Error::State(format!(
            "expected {} inverse temperatures, got {}",
            systems.betas.len(),
            betas.len()
        )));
    }
    Ok(())
}

/// Refuse new betas in an engine whose update was compiled with its thresholds
/// ([`crate::engine::multispin::MultispinLayout::fixed_thresholds`]) rather than sweep at the old
/// ones; `engine` names it ("multispin CUDA").
pub fn check_thresholds_not_compiled(compiled: bool, engine: &str) -> Result<()> {
    if compiled {
        return Err(Error::State(format!(
            "this {engine} engine compiled its thresholds into its update (opened for fixed \
             betas): open it with Betas::Changing to change temperatures"
        )));
    }
    Ok(())
}

/// Refuse a tempering state that does not fit the configured chains.
pub fn check_tempering_state(systems: &IsingSystems, state: &[u32]) -> Result<()> {
    let expected = tempering::Chains::of(systems).state_words();
    if state.len() != expected {
        return Err(Error::State(format!(
            "expected a tempering state of {expected} words for the configured chains, got {}",
            state.len()
        )));
    }
    Ok(())
}

/// The error of a swap step on an engine that was not given a tempering state.
pub fn no_tempering() -> Error {
    Error::State("a swap step without parallel tempering (set_tempering was not called)".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Units of one sweep become its pieces a pass at a time, or the whole sweep.
    #[test]
    fn sweep_units_are_pieces_of_passes_or_the_whole_sweep() {
        let units = |range: Range<u64>| {
            let mut plan = Plan::default();
            plan.sweep_units(5, (2, 8), range);
            plan.steps
        };
        assert_eq!(units(0..16), vec![Step::Sweep { sweep: 5 }]);
        let part = |pass, first, end| Step::Part {
            sweep: 5,
            pass,
            planes: [first, end],
        };
        assert_eq!(units(3..6), vec![part(0, 3, 6)]);
        assert_eq!(units(6..11), vec![part(0, 6, 8), part(1, 0, 3)]);
        assert_eq!(units(8..16), vec![part(1, 0, 8)]);
        assert_eq!(units(0..8), vec![part(0, 0, 8)]);
    }

    /// Pieces are refused on an engine without them, and where they name no pass or planes of
    /// the sweep; a plan without pieces passes on any engine.
    #[test]
    fn pieces_outside_a_sweep_or_on_an_engine_without_them_are_refused() {
        let plan = |pass, planes| {
            let mut plan = Plan::default();
            plan.sweep(0);
            plan.steps.push(Step::Part {
                sweep: 1,
                pass,
                planes,
            });
            plan
        };
        assert!(plan(1, [3, 8]).check_parts(true, (2, 8)).is_ok());
        assert!(plan(1, [5, 5]).check_parts(true, (2, 8)).is_ok());
        let refusal = |plan: Plan, cuts| plan.check_parts(cuts, (2, 8)).unwrap_err().to_string();
        assert!(refusal(plan(1, [3, 8]), false).contains("whole sweeps only"));
        for (pass, planes) in [(2, [0, 1]), (0, [3, 9]), (0, [5, 4])] {
            let text = refusal(plan(pass, planes), true);
            assert!(
                text.contains("is no piece of a sweep of 2 passes over planes 0..8"),
                "{text}"
            );
        }
        let mut whole = Plan::default();
        whole.sweep(0);
        assert!(whole.check_parts(false, (2, 8)).is_ok());
    }

    /// Pieces of cluster updates are refused on an engine without them and beyond the planes;
    /// a piece that records into the slot past the plan's gives the plan a slot of sizes more.
    #[test]
    fn pieces_of_updates_are_refused_without_them_and_beyond_the_planes() {
        let plan = |pass, planes: Range<u32>| {
            let mut plan = Plan::default();
            plan.cluster(0, false);
            plan.cluster_part(1, true, pass, planes);
            plan
        };
        assert!(plan(1, 3..8).check_cluster_parts(true, 8).is_ok());
        assert!(plan(0, 8..8).check_cluster_parts(true, 8).is_ok());
        let refusal = |plan: Plan, parts| plan.check_cluster_parts(parts, 8).unwrap_err();
        let text = refusal(plan(0, 0..3), false).to_string();
        assert!(text.contains("whole cluster updates only"), "{text}");
        for (pass, first, end) in [(0, 3, 9), (1, 5, 4), (2, 0, 1)] {
            let text = refusal(plan(pass, first..end), true).to_string();
            let expected = format!(
                "pass {pass} on planes {first}..{end} is no piece of an update of 2 passes over \
                 planes 0..8"
            );
            assert!(text.contains(&expected), "{text}");
        }
        let mut units = Plan::default();
        units.cluster_units(4, false, 8, 6..11);
        units.cluster_units(5, false, 8, 0..16);
        let part = |pass, first, end| Step::ClusterPart {
            update: 4,
            sizes: None,
            pass,
            planes: [first, end],
        };
        let whole = Step::Cluster {
            update: 5,
            sizes: None,
        };
        assert_eq!(units.steps, vec![part(0, 6, 8), part(1, 0, 3), whole]);
        let mut whole = Plan::default();
        whole.cluster(0, true);
        assert!(whole.check_cluster_parts(false, 8).is_ok());
        assert_eq!((whole.slots, whole.size_slots()), (0, 1));
        whole.measure();
        assert_eq!((whole.slots, whole.size_slots()), (1, 1));
        assert_eq!(plan(0, 0..8).cluster_updates(), 2);
        assert!(plan(0, 0..8).records_cluster_sizes());
    }

    /// Plans of pieces inside one sweep, or of whole sweeps; sweeps that stay whole count as
    /// one unit each.
    #[test]
    fn a_cut_names_the_pieces_of_plans_inside_a_sweep() {
        let cut = SweepCut::new(Some((2, 8)));
        assert_eq!(cut.units, 16);
        assert_eq!(cut.position(3, 5), 53);
        assert_eq!(cut.pieces_of(53, 60), Some(((2, 8), 3, 5..12)));
        assert_eq!(cut.pieces_of(48, 64), None, "a whole sweep");
        assert_eq!(cut.pieces_of(48, 50), Some(((2, 8), 3, 0..2)));
        let whole = SweepCut::new(None);
        assert_eq!((whole.units, whole.position(3, 0)), (1, 3));
        assert_eq!(whole.pieces_of(3, 4), None);
    }
}

//! The contract of the vector-spin engines (`XY`, `Heisenberg`): lattices of fixed-point unit
//! vectors ([`crate::model::vector::fixed`]), checkerboard sweeps of Metropolis and
//! over-relaxation, and measurements as exact integer sums. The vector engines fulfil the one
//! [`super::Engine`] contract: a plan's [`super::Step::Sweep`] runs one sweep's passes
//! ([`VectorSweeps::passes`]), its [`super::Step::Part`] one pass on the threads of some planes
//! ([`VectorSweeps::pass_threads`]), its [`super::Step::Measure`] measures every system and replica
//! pair and its [`super::Step::Observe`] every system alone; the proposal widths and the
//! tempering exchange are capabilities ([`super::Proposals`], [`super::Exchanges`]). The engine
//! is written once over its backends (`super::backend::vector`); the CPU's
//! ([`super::cpu::CpuVectorEngine`]) is the reference the GPU kernels are checked against.

use std::ops::Range;

use super::Plan;
use super::clusters::{ClusterLattices, ClusterMove};
use super::dispatch::DispatchParams;
use super::kernels::Kernel;
use super::planes::{PLANE_BITS, WORDS_PER_THREAD, check_planes};
use crate::config::{
    Algorithm, ClusterOptions, Proposal, ReplicaMoves, StateStorage, VectorUpdates,
};
use crate::error::{Error, Result};
use crate::model::vector::VectorSystems;
use crate::model::vector::tiles::Tiles;

/// The proposal width that means a direction uniform on the sphere, independent of the old
/// spin (a cone of zero width would never move).
pub const UNIFORM: i32 = 0;

/// The proposal width that means a clock model's heat bath: the new state drawn from the
/// conditional distribution of all its states (`vector_metropolis::heat_bath`).
pub const HEAT_BATH: i32 = -1;

/// How the sweeps of a vector engine update its spins.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VectorSweeps {
    /// Metropolis proposals per site of a Metropolis sweep.
    pub hits: u32,
    /// The double checkerboard's tile side ([`Tiles`]); `None`: the plain checkerboard.
    pub tile: Option<u32>,
    /// Over-relaxation sweeps after each Metropolis sweep.
    pub overrelaxation: u32,
    /// Cluster updates of discrete states (`algorithm: Clusters`): each sweep of the loop is
    /// then a step of `clusters` cluster updates and `metropolis` Metropolis sweeps; `None`:
    /// one Metropolis sweep.
    pub clusters: Option<ClusterOptions>,
    /// Replica cluster moves of discrete states after each sweep (`Tempering(moves: ..)`),
    /// each a pass of every replica pair.
    pub moves: ReplicaMoves,
    /// Discrete states drawn from their heat bath (`proposal: HeatBath`) rather than proposed
    /// by Metropolis: the GPU kernels of discrete states are built for one of the two.
    pub heat_bath: bool,
    /// Discrete states (Potts, Blume-Capel) swept in bit planes (`storage: BitPlanes`,
    /// [`crate::engine::planes`]): the Metropolis passes are [`VectorPass::Planes`].
    pub planes: bool,
}

impl VectorSweeps {
    /// One Metropolis sweep of one proposal a site: no tiles, over-relaxation, cluster updates
    /// or replica moves.
    pub const METROPOLIS: VectorSweeps = VectorSweeps {
        hits: 1,
        tile: None,
        overrelaxation: 0,
        clusters: None,
        moves: ReplicaMoves::None,
        heat_bath: false,
        planes: false,
    };
}

/// One pass of a sweep: one kernel launch over every system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorPass {
    /// `vector_metropolis`: every site of checkerboard colour `colour`, all hits in a row.
    Metropolis { colour: u32 },
    /// `vector_tiles`: every tile of colour `colour`, each hit over the tile's colour 0, then 1.
    Tiles { colour: u32 },
    /// `vector_overrelaxation`: every site of checkerboard colour `colour`.
    Overrelaxation { colour: u32 },
    /// A whole cluster update of discrete states, or a replica cluster move of their replica
    /// pairs (`cluster_bonds`, `cluster_label`, `cluster_merge`, `cluster_flip`;
    /// [`crate::engine::clusters`]), never cut into pieces.
    Cluster { update: ClusterMove },
    /// `discrete_planes_metropolis`: every plane word of checkerboard colour `colour` (32 of
    /// its sites), all hits in a row, on the states' bit planes.
    Planes { colour: u32 },
}

impl VectorPass {
    /// The colour the pass's launch carries (`DispatchParams::colour`).
    pub fn colour(self) -> u32 {
        match self {
            VectorPass::Metropolis { colour }
            | VectorPass::Tiles { colour }
            | VectorPass::Overrelaxation { colour }
            | VectorPass::Planes { colour } => colour,
            VectorPass::Cluster { .. } => 0,
        }
    }

    /// The threads a grid layer and the layers of a launch of `threads` of the pass's threads
    /// a system ([`VectorSweeps::pass_threads`]) over `systems` systems, in workgroups of
    /// `workgroup_size`: a thread a site, a workgroup a tile, a layer a system; the Metropolis
    /// kernel's `metropolis.sites_per_thread` sites a thread, its systems in one layer where
    /// they lie flat ([`MetropolisLaunch`]).
    pub fn launch_grid(
        self,
        threads: u32,
        workgroup_size: u32,
        metropolis: MetropolisLaunch,
        systems: u32,
    ) -> (u64, u32) {
        let threads = u64::from(threads);
        match self {
            VectorPass::Tiles { .. } => (threads * u64::from(workgroup_size), systems),
            VectorPass::Metropolis { .. } => {
                let threads = threads.div_ceil(u64::from(metropolis.sites_per_thread));
                match metropolis.flat {
                    true => (threads * u64::from(systems), 1),
                    false => (threads, systems),
                }
            }
            // WORDS_PER_THREAD plane words a thread, laid out as the Metropolis kernel's
            // threads.
            VectorPass::Planes { .. } => {
                let threads = threads.div_ceil(u64::from(WORDS_PER_THREAD));
                match metropolis.flat {
                    true => (threads * u64::from(systems), 1),
                    false => (threads, systems),
                }
            }
            VectorPass::Overrelaxation { .. } | VectorPass::Cluster { .. } => (threads, systems),
        }
    }
}

impl VectorSweeps {
    /// The sweeps a config's `updates` ask for, with the cluster updates and replica moves of
    /// its `algorithm`.
    pub fn of(updates: &VectorUpdates, algorithm: &Algorithm) -> Self {
        VectorSweeps {
            hits: updates.metropolis.hits(),
            tile: updates.metropolis.tile(),
            overrelaxation: updates.overrelaxation,
            clusters: algorithm.clusters(),
            moves: algorithm.replica_moves(),
            heat_bath: updates.proposal == Proposal::HeatBath,
            planes: updates.storage == StateStorage::BitPlanes,
        }
    }

    /// Sites of one colour a thread of the discrete states' Metropolis kernel updates
    /// (`SITES_PER_THREAD`), their states read before any is updated:
    /// [`METROPOLIS_SITES_PER_THREAD`] for Metropolis proposals, the backend's `heat_bath_sites`
    /// for the heat bath.
    pub fn state_sites_per_thread(&self, heat_bath_sites: u32) -> u32 {
        match self.heat_bath {
            true => heat_bath_sites,
            false => METROPOLIS_SITES_PER_THREAD,
        }
    }

    /// How a backend of workgroups of `workgroup_size` threads (`heat_bath_sites` sites a
    /// thread of the discrete states' heat bath) launches the Metropolis kernel of `systems`:
    /// one site a thread of unit vectors, the [`Self::state_sites_per_thread`] of discrete
    /// states; the systems laid one after another along the grid where a system's threads fill
    /// less than a workgroup (and the grid's threads fit the 32-bit thread index), else a grid
    /// layer a system.
    pub fn metropolis_launch(
        &self,
        systems: &VectorSystems,
        heat_bath_sites: u32,
        workgroup_size: u32,
    ) -> MetropolisLaunch {
        let sites_per_thread = match (systems.states.as_ref(), self.planes) {
            (Some(_), true) => PLANE_BITS as u32,
            (Some(_), false) => self.state_sites_per_thread(heat_bath_sites),
            (None, _) => 1,
        };
        // A colour's sites, at most: cluster updates alone take lattices that the colours do
        // not tile.
        let lattice = systems.lattice;
        let colour_sites = lattice.sites().div_ceil(u64::from(lattice.colours()));
        // A plane thread takes WORDS_PER_THREAD words ([`VectorPass::launch_grid`]).
        let thread_sites = match self.planes {
            true => sites_per_thread * WORDS_PER_THREAD,
            false => sites_per_thread,
        };
        let threads = colour_sites.div_ceil(u64::from(thread_sites));
        let workgroup = u64::from(workgroup_size);
        // Every thread of the grid's workgroups, the last one's past the last system too.
        let grid = (threads * u64::from(systems.systems())).next_multiple_of(workgroup);
        let flat = threads < workgroup && grid <= u64::from(u32::MAX);
        MetropolisLaunch {
            sites_per_thread,
            flat,
        }
    }

    /// Metropolis sweeps per sweep of the loop: one, or a cluster step's `metropolis`.
    pub fn metropolis_sweeps(&self) -> u32 {
        self.clusters.map_or(1, |c| c.metropolis)
    }

    /// Metropolis proposals per site per sweep of the loop.
    pub fn proposals(&self) -> u32 {
        self.hits * self.metropolis_sweeps()
    }

    /// Cluster updates per sweep of the loop: a cluster step's, or none.
    pub fn cluster_updates(&self) -> u32 {
        self.clusters.map_or(0, |c| c.clusters)
    }

    /// Updates per site per sweep of the loop, a cluster update counted as one: the
    /// Metropolis proposals and the cluster updates.
    pub fn site_updates(&self) -> u32 {
        self.proposals() + self.cluster_updates()
    }

    /// The number that keys the randoms of pass `pass` ([`VectorSweeps::passes`]) of the
    /// loop's sweep `sweep`: the cluster update `sweep C + i` of the `i`-th cluster pass, the
    /// Metropolis sweep `sweep M + j` of a pass of the `j`-th Metropolis sweep (`C`, `M` of
    /// the cluster step; the sweep itself without cluster updates), the replica move
    /// `sweep H + k` of the `k`-th of the `H` replica moves after them.
    pub fn pass_number(&self, sweep: u32, pass: u32, colours: u32) -> u32 {
        let clusters = self.cluster_updates();
        let sweeps = self.metropolis_sweeps() * self.sweep_passes(colours);
        if pass < clusters {
            return sweep * clusters + pass;
        }
        match pass - clusters {
            sweep_pass if sweep_pass < sweeps => {
                sweep * self.metropolis_sweeps() + sweep_pass / self.sweep_passes(colours)
            }
            after => sweep * self.moves.per_sweep() + after - sweeps,
        }
    }

    /// Passes of one Metropolis sweep of a lattice of `colours` colours: each colour once,
    /// and again per over-relaxation sweep.
    fn sweep_passes(&self, colours: u32) -> u32 {
        colours * (1 + self.overrelaxation)
    }

    /// The tiles of `systems`' lattice, for the double checkerboard.
    pub fn tiles(&self, systems: &VectorSystems) -> Option<Tiles> {
        self.tile.map(|size| Tiles {
            lattice: systems.lattice,
            size,
        })
    }

    /// The passes of one sweep of the loop on a lattice of `colours` colours
    /// ([`crate::model::Lattice::colours`]), in order, the same on every backend: a cluster
    /// step's cluster updates, then each Metropolis sweep's colours (of sites, or of tiles) and
    /// its over-relaxation sweeps' colours, then the replica moves.
    pub fn passes(&self, colours: u32) -> Vec<VectorPass> {
        let metropolis = |colour| match (self.tile, self.planes) {
            (None, false) => VectorPass::Metropolis { colour },
            (None, true) => VectorPass::Planes { colour },
            (Some(_), _) => VectorPass::Tiles { colour },
        };
        let overrelaxation = (0..self.overrelaxation)
            .flat_map(|_| (0..colours).map(|colour| VectorPass::Overrelaxation { colour }));
        let sweep: Vec<_> = (0..colours).map(metropolis).chain(overrelaxation).collect();
        let clusters = self.clusters.iter().flat_map(|step| {
            (0..step.clusters).map(|_| VectorPass::Cluster {
                update: ClusterMove::Update(step.update),
            })
        });
        let sweeps = (0..self.metropolis_sweeps()).flat_map(|_| sweep.iter().copied());
        let moves = (0..self.moves.per_sweep()).map(|_| VectorPass::Cluster {
            update: ClusterMove::Houdayer,
        });
        clusters.chain(sweeps).chain(moves).collect()
    }

    /// The threads of pass `pass` of `systems` whose first site lies on planes `planes` of the
    /// lattice's slowest axis ([`super::Step::Part`]; `0 .. L`: all of them): the sites of its
    /// colour, a thread each, for Metropolis and over-relaxation; the tiles of its tile colour,
    /// a workgroup each, for the double checkerboard. Every pass reads only the other colour
    /// (a tile only its own sites and its halo, other-colour tiles' sites), so its threads may
    /// run in pieces in any order.
    pub fn pass_threads(
        &self,
        systems: &VectorSystems,
        pass: VectorPass,
        planes: Range<u32>,
    ) -> Range<u64> {
        match pass {
            VectorPass::Tiles { .. } => (self.tiles(systems))
                .expect("tiled passes have tiles")
                .plane_tiles(planes),
            VectorPass::Metropolis { .. } | VectorPass::Overrelaxation { .. } => {
                systems.lattice.plane_units(planes, 1)
            }
            VectorPass::Planes { .. } => systems.lattice.plane_units(planes, PLANE_BITS),
            // The cluster kernels size their grids themselves: one range stands for the update.
            VectorPass::Cluster { .. } => 0..1,
        }
    }
}

/// The exact integer sums of one lattice after a sweep, from which every estimate is computed
/// on the host. Bond sums are in units of `2^-32`, spin sums in spin units (`2^-28`); every
/// entry a sum over sites (or a maximum), so partial results add up in any order. Plain words
/// (`Pod`), as they cross between MPI ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct VectorObservation {
    /// Per direction `d`: `sum_i J_{i,i+d} floor((s_i . s_{i+d}) 2^-24)`, each term floored
    /// again by the coupling's fraction bits (`CouplingScale::bond_measure`).
    pub bonds: [i64; 3],
    /// Per bond class `c` ([`crate::model::Lattice::bond_class`]: the direction `d`, but 2 for
    /// a honeycomb's x bonds from sites of odd `x + y`): `sum_i J_{i,i+d} floor((s_i^x
    /// s_{i+d}^y - s_i^y s_{i+d}^x) 2^-24)` (floored as `bonds`), the sine of the angle between
    /// neighbours in the XY plane (the helicity modulus).
    pub twists: [i64; 3],
    /// Per component: `sum_i s_i^a`.
    pub magnetisation: [i64; 3],
    /// `[d][a]`: `sum_i floor(s_i^a cos(2 pi x_d / L) 2^-28)` and the same with the sine: the
    /// Fourier component at the smallest wave vector along `d`.
    pub fourier: [[[i64; 2]; 3]; 3],
    /// Per component: `sum_i eps_i s_i^a` with the sublattice sign `eps_i = (-1)^(x + y + z)`,
    /// the staggered magnetisation of an antiferromagnet on a bipartite lattice
    /// ([`crate::model::Lattice::sublattice_sign`]).
    pub staggered: [i64; 3],
    /// `max_i | s_i . s_i - 1 |` in units of `2^-32`: the drift of `|s|` from 1, saturated at
    /// `2^32 - 1` (a deviation of 1: no normalised spin comes near) so that the GPU kernels
    /// keep it in one word with `atomicMax`. Of discrete states ([`crate::model::vector::states`])
    /// `bonds[d]` are `sum_i J_{i,i+d} P(s_i, s_{i+d})` (units `2^-24`), `magnetisation[0]`
    /// and `fourier[d][0]` the sums of the states' values `s(a)`, the other entries 0; their
    /// counts (and staggered counts) are the system's [`StateSums`].
    pub norm_deviation: u64,
}

/// The exact integer sums of the tensor overlap of two replicas `a`, `b` of one sample and
/// temperature (a spin glass's replica pair, [`VectorSystems::overlap_systems`]), from which
/// `q2` and its Fourier component are computed on the host. Units `2^-32`; every entry a sum
/// over sites, so partial sums add up in any order, and below `2^63` in magnitude for
/// `N < 2^31` (each term is below `2^32`). Plain words (`Pod`), as they cross between MPI ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct VectorOverlap {
    /// `[mu][nu]`: `sum_i floor(s_i^{a,mu} s_i^{b,nu} 2^-24)`.
    pub q: [[i64; 3]; 3],
    /// `[d][mu][nu]`: `sum_i floor(floor(s_i^{a,mu} s_i^{b,nu} 2^-24) cos(2 pi x_d / L) 2^-28)`
    /// and the same with the sine (the host's phase table in spin units): the Fourier
    /// component at the smallest wave vector along `d`.
    pub fourier: [[[[i64; 2]; 3]; 3]; 3],
}

/// The counts of discrete states of one system (`q` states), or of one replica pair (the `q^2`
/// pairs of states `(a, b)` at `a q + b`: the sites in state `a` in the first replica and `b`
/// in the second), as the kernels count them and [`super::Measurements`] holds them, a run of
/// `7 n` words for `n` states: the sites in each state `[a]` (empty sites in none), then at
/// `n + 2 (3 a + d) + p` each state's Fourier component at the smallest wave vector along `d`,
/// `sum_{i: s_i = a}` of `cos(2 pi x_d / L)` (`p = 0`) and the sine (the phase table's spin
/// units), from which the Potts spins' correlation length and the overlap's `q2_kmin` are
/// computed; of one system then `n` more, each state's staggered count
/// `sum_{i: s_i = a} eps_i` (the sublattice sign, [`crate::model::Lattice::sublattice_sign`]),
/// from which the staggered magnetisation is computed. Apart from the observations so that
/// their size follows the model's `q`.
#[derive(Debug, Clone, Copy)]
pub struct StateSums<'a> {
    pub sums: &'a [i64],
    /// States counted: `q`, or `q^2` for a replica pair.
    pub states: usize,
}

impl<'a> StateSums<'a> {
    /// Words of the sums of a replica pair's `states` pairs of states.
    pub fn pair_words(states: usize) -> usize {
        7 * states
    }

    /// Words of the sums of one system's `states` states: the staggered counts too.
    pub fn words(states: usize) -> usize {
        8 * states
    }

    /// The sites in each state.
    pub fn counts(&self) -> &'a [i64] {
        &self.sums[..self.states]
    }

    /// State `a`'s Fourier component along `d`: `[cos, sin]`.
    pub fn fourier(&self, a: usize, d: usize) -> [i64; 2] {
        let at = self.states + 2 * (3 * a + d);
        [self.sums[at], self.sums[at + 1]]
    }

    /// Each state's staggered count (of one system's sums).
    pub fn staggered(&self) -> &'a [i64] {
        &self.sums[7 * self.states..8 * self.states]
    }
}

/// Words of [`StateSums`] per system of `systems`: `8 q` of discrete states, none of unit
/// vectors.
pub fn state_words(systems: &VectorSystems) -> usize {
    StateSums::words(state_count(systems))
}

/// Words of [`StateSums`] per replica pair of `systems`: `7 q^2` of discrete states.
pub fn pair_state_words(systems: &VectorSystems) -> usize {
    let q = state_count(systems);
    StateSums::pair_words(q * q)
}

/// The plan of sweeps `sweeps` (their numbers key the randoms), then a measurement where
/// `measure`.
pub fn sweeps_plan(sweeps: Range<u32>, measure: bool) -> Plan {
    let mut plan = Plan::default();
    sweeps.for_each(|sweep| plan.sweep(sweep));
    if measure {
        plan.measure();
    }
    plan
}

/// A device backend's vector-spin kernels, one `K` (a pipeline, a function) each.
pub struct VectorKernelSet<K> {
    pub hot_start: K,
    /// The sites' Metropolis kernel, built where the sweeps have its passes (neither tiles nor
    /// bit planes).
    pub metropolis: Option<K>,
    /// The double checkerboard's, built where the updates have tiles.
    pub tiles: Option<K>,
    /// Built where the sweeps over-relax.
    pub overrelaxation: Option<K>,
    pub observables: K,
    /// The replica pairs' overlaps, built for a spin glass.
    pub overlap: Option<K>,
    pub exchange: K,
    /// The bit planes' kernels, built where the states are swept in bit planes.
    pub planes: Option<PlaneKernels<K>>,
}

/// The kernels of discrete states in bit planes ([`crate::engine::planes`]).
pub struct PlaneKernels<K> {
    pub pack: K,
    pub unpack: K,
    pub metropolis: K,
}

impl<K> VectorKernelSet<K> {
    /// The kernels that `systems` swept by `updates` use, each built by `build`.
    pub fn build(
        systems: &VectorSystems,
        updates: VectorSweeps,
        mut build: impl FnMut(Kernel) -> Result<K>,
    ) -> Result<Self> {
        if systems.states.is_some() && (updates.tile.is_some() || updates.overrelaxation > 0) {
            return Err(Error::Usage(
                "discrete states are swept on the plain checkerboard, without over-relaxation"
                    .into(),
            ));
        }
        Ok(VectorKernelSet {
            hot_start: build(Kernel::VectorHotStart)?,
            metropolis: match (updates.tile.is_some() || updates.planes, &systems.states) {
                (true, _) => None,
                (false, Some(_)) => Some(build(Kernel::DiscreteMetropolis)?),
                (false, None) => Some(build(Kernel::VectorMetropolis)?),
            },
            tiles: match updates.tile {
                Some(_) => Some(build(Kernel::VectorTiles)?),
                None => None,
            },
            overrelaxation: match updates.overrelaxation {
                0 => None,
                _ => Some(build(Kernel::VectorOverrelaxation)?),
            },
            observables: match systems.states {
                Some(_) => build(Kernel::DiscreteObservables)?,
                None => build(Kernel::VectorObservables)?,
            },
            overlap: match (systems.overlaps(), &systems.states) {
                (0, _) => None,
                (_, Some(_)) => Some(build(Kernel::DiscreteOverlap)?),
                (_, None) => Some(build(Kernel::VectorOverlap)?),
            },
            exchange: build(Kernel::VectorExchange)?,
            planes: match updates.planes {
                true => {
                    check_planes(systems)?;
                    Some(PlaneKernels {
                        pack: build(Kernel::DiscretePack)?,
                        unpack: build(Kernel::DiscreteUnpack)?,
                        metropolis: build(Kernel::DiscretePlanesMetropolis)?,
                    })
                }
                false => None,
            },
        })
    }

    /// The kernel of a Metropolis, tiles, over-relaxation or bit planes pass, which
    /// [`Self::build`] built for the sweeps that have such passes (cluster passes have kernels
    /// of their own).
    pub fn of_pass(&self, pass: VectorPass) -> &K {
        let kernel = match pass {
            VectorPass::Metropolis { .. } => self.metropolis.as_ref(),
            VectorPass::Tiles { .. } => self.tiles.as_ref(),
            VectorPass::Overrelaxation { .. } => self.overrelaxation.as_ref(),
            VectorPass::Planes { .. } => self.planes.as_ref().map(|planes| &planes.metropolis),
            VectorPass::Cluster { .. } => None,
        };
        kernel.unwrap_or_else(|| panic!("no kernel built for {pass:?}"))
    }
}

/// The cluster moves of `updates` and the lattices of `systems` their kernels serve: a cluster
/// step's updates of every system, or the replica moves of every replica pair; `None` without
/// either. Refused where the states' bonds are no Fortuin-Kasteleyn bonds, or there are no
/// replica pairs of discrete states to move.
pub fn cluster_step(
    systems: &VectorSystems,
    updates: VectorSweeps,
) -> Result<Option<(ClusterMove, ClusterLattices)>> {
    if let Some(step) = updates.clusters {
        let lattices =
            ClusterLattices::of_states(systems).or_else(|| ClusterLattices::of_clock(systems));
        return match lattices {
            Some(lattices) => Ok(Some((ClusterMove::Update(step.update), lattices))),
            None => Err(Error::Usage(
                "cluster updates take discrete states whose equal neighbours all bond alike \
                 (Potts, Ising), or clock spins at zero field, and one coupling J > 0"
                    .into(),
            )),
        };
    }
    if updates.moves.is_none() {
        return Ok(None);
    }
    match ClusterLattices::of_pairs(systems, |beta| updates.moves.acts_at(beta)) {
        Some(lattices) => Ok(Some((ClusterMove::Houdayer, lattices))),
        None => Err(Error::Usage(
            "replica moves take the replica pairs of a glass of discrete states (an Ising or \
             Potts glass with an even number of replicas)"
                .into(),
        )),
    }
}

/// Houdayer's record of every replica pair of `systems`, `[pair][sites moved, moves with a
/// seed]`, as [`super::Measurements::replica_moves`] holds it: the pair's first system's entry
/// the sites, its second's the moves, so that a sample slice's part lies with its systems.
pub fn pair_moves_of_systems(systems: &VectorSystems, pairs: &[u64]) -> Vec<u64> {
    let mut moves = vec![0; systems.systems() as usize];
    for (k, pair) in (0..systems.overlaps()).zip(pairs.chunks_exact(2)) {
        let (a, b) = systems.overlap_systems(k);
        moves[a as usize] = pair[0];
        moves[b as usize] = pair[1];
    }
    moves
}

/// The lattices whose clusters the cluster kernels label for `systems` swept by `updates`:
/// every system's for a cluster step, every replica pair's for the replica moves, none
/// otherwise.
pub fn labelled_lattices(systems: &VectorSystems, updates: VectorSweeps) -> u32 {
    match (updates.clusters, updates.moves.is_none()) {
        (Some(_), _) => systems.systems(),
        (None, false) => systems.overlaps(),
        (None, true) => 0,
    }
}

/// Sites of one colour a thread of the discrete states' Metropolis kernel updates under
/// Metropolis proposals, on both GPU backends: twice the memory in flight of one. On the H200
/// (2026-12-02), 3- and 8-state Potts at 16384^2: 18.0 ps an update with one, 10.5 with two
/// (WGSL); CUDA 18.2 with one, 10.8 with two. Four gave nothing more.
pub const METROPOLIS_SITES_PER_THREAD: u32 = 2;

/// Threads a workgroup (a CUDA block) of the plain checkerboard's Metropolis kernel of unit
/// vectors (`vector_metropolis`) on both GPU backends, and of discrete states
/// (`discrete_metropolis`) on wgpu, whatever the configured workgroup size. On the H200
/// (2026-12-04), ps an update at 64 / 256 threads, 4096^2: 2D Heisenberg 30.6 / 23.0 (WGSL),
/// 24.9 / 21.1 (CUDA); XY 26.2 / 15.5, 20.5 / 14.4; 3-state Potts 16.4 / 10.5 (WGSL). CUDA's
/// discrete states keep the configured size (8-state heat bath at 16384^2: 27.5 at 64, 28.7 at
/// 256), as do the bit planes (CUDA's Blume-Capel planes at 16384^2: 1.05 at 64, 1.17 at 256).
pub const METROPOLIS_WORKGROUP_SIZE: u32 = 256;

/// How the Metropolis kernel's threads are launched ([`VectorSweeps::metropolis_launch`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetropolisLaunch {
    /// Sites a thread updates (`SITES_PER_THREAD`).
    pub sites_per_thread: u32,
    /// The systems' threads one after another along the grid, each thread adding its accepted
    /// moves to its system's count (`FLAT_SYSTEMS`), rather than a grid layer a system whose
    /// workgroup adds them once: small lattices of many systems would leave most of a
    /// workgroup idle.
    pub flat: bool,
}

/// Refuse proposal widths that are not one per temperature of `systems`, and, for discrete
/// states, widths of the other proposal than the kernels' (`heat_bath`, [`VectorSweeps`]).
pub fn check_widths(systems: &VectorSystems, heat_bath: bool, widths: &[i32]) -> Result<()> {
    let discrete = systems.clock > 0 || systems.states.is_some();
    if !discrete && widths.contains(&HEAT_BATH) {
        return Err(Error::State(
            "the heat bath draws among a clock model's or discrete spins' states; these spins \
             take every direction"
                .into(),
        ));
    }
    if systems.states.is_some() && widths.iter().any(|&w| (w == HEAT_BATH) != heat_bath) {
        return Err(Error::State(format!(
            "the kernels of these discrete states are built for {} proposals, but the widths \
             ask for the other",
            if heat_bath { "heat-bath" } else { "Metropolis" }
        )));
    }
    let temperatures = systems.betas.len();
    match widths.len() == temperatures {
        true => Ok(()),
        false => Err(Error::State(format!(
            "expected a proposal width per temperature ({temperatures}), got {}",
            widths.len()
        ))),
    }
}

/// Refuse a partner table that does not pair the systems of `systems` with each other.
pub fn check_partners(systems: &VectorSystems, partners: &[u32]) -> Result<()> {
    let count = systems.systems() as usize;
    let paired = partners.len() == count
        && (partners.iter().enumerate())
            .all(|(b, &p)| (p as usize) < count && partners[p as usize] as usize == b);
    match paired {
        true => Ok(()),
        false => Err(Error::State(format!(
            "a tempering exchange needs a partner per system ({count}), each naming the other"
        ))),
    }
}

/// The discrete states of `systems`, 0 for unit vectors.
fn state_count(systems: &VectorSystems) -> usize {
    systems.states.as_ref().map_or(0, |s| s.q as usize)
}

/// The dispatch parameters every launch of a device engine of `systems` shares (the sweep and
/// colour set per launch).
pub fn dispatch_params(systems: &VectorSystems) -> DispatchParams {
    DispatchParams::of_run(systems.seed, systems.systems())
}

/// Refuse `words` spin words for the lattices of `systems` unless they are exactly theirs.
pub fn check_spin_words(systems: &VectorSystems, words: usize) -> Result<()> {
    if words != systems.spin_words() {
        return Err(Error::Usage(format!(
            "vector spins: {words} words given for lattices of {} words",
            systems.spin_words()
        )));
    }
    Ok(())
}

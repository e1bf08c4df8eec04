//! The cluster updates' part of the engine contract: how every random word of a Swendsen-Wang
//! or Wolff update is keyed, what a [`Step::Cluster`](super::Step::Cluster) records, and the
//! error of an engine without them. The CPU twins (`engine/cpu/cluster_bonds.rs`,
//! `cluster_label.rs`, `cluster_flip.rs`, `cluster_wolff.rs`) and the kernels
//! (`shaders/wgsl/cluster_*.wgsl`, `shaders/cuda/cluster_*.cu`) all follow this page.
//!
//! - **Bonds.** Bond `i = site D + d` joins `site` to its forward neighbour along direction `d`
//!   (`D` the lattice's [`directions`](Lattice::directions): the dimension, 3 on the triangular
//!   and kagome lattices, whose third is the diagonal `(1, 1)`; on an `L = 2` lattice a pair of
//!   sites is joined by two bonds, as [`crate::exact::enumerate`] counts them). At cluster
//!   update `n` of system `b` (the run's index, [`SystemIndex::global_system`]) it is active iff
//!   it is there (not across an open edge, not a honeycomb's gap:
//!   [`bond_sign`](crate::model::lattices::bond_sign) not 0), its two spins are equal (across
//!   an antiperiodic edge, sign -1: opposite) and word `i mod 4` of Philox block
//!   `(i / 4, n, ClusterBond = 8, 0, 0, b)` is below the temperature's
//!   [`activation_threshold`](crate::model::ising::activation_threshold) (`1 - exp(-2 beta)`).
//! - **Clusters** are the connected components of the active bonds. A cluster's root is its
//!   smallest site index, unique whatever labelling scheme found it, so every backend finds the
//!   same roots.
//! - **Swendsen-Wang flips** cluster `r` (its root) iff the top bit of word `r mod 4` of block
//!   `(r / 4, n, ClusterFlip = 9, 0, 0, b)` is set.
//! - **Wolff** flips the one cluster that holds the seed site `(w N) >> 32` (a 64-bit product),
//!   `w` word 0 of block `(0, n, WolffSeed = 10, 0, 0, b)`, with the bonds of update `n` above:
//!   the Swendsen-Wang cluster of the seed, grown from it alone.
//! - **Discrete states** (the Potts model, a diluted Ising model; the vector engine's) bond where
//!   equal states' bond is active with `1 - exp(-beta J Delta)`, `Delta` the energy their bond
//!   loses when they part ([`States::bond_gap`]: 1 for Potts, 2 for Ising); an empty site joins
//!   no bond and keeps its vacancy. Swendsen-Wang gives cluster `r` the state
//!   [`drawn_state`] of its flip word (across an antiperiodic edge, two states only, whose
//!   clusters hold both: moves each site by it); Wolff moves the seed's cluster by one plus
//!   [`wolff_shift`] states.
//! - **Clock spins** (the clock ferromagnet, the vector engine's spins on the `q` angles
//!   `2 pi k / q`): Wolff's embedding. Update `n` reflects spins through the mirror at angle
//!   `pi m / q`, [`clock_mirror`] `m`, which takes state `k` ([`clock_index`]) to `(m - k) mod q`:
//!   the `q` mirrors of the clock's symmetry, through states and between them, so that any state
//!   reaches any other. Bond `i` of `site` (coupling `J`, `-J` across an antiperiodic edge) is
//!   active iff it is there, both its sites are occupied (a kagome hole holds the zero vector)
//!   and word `i mod 4` of its block is not below the threshold of the energy the bond gains
//!   when `site`'s spin alone is reflected, `dE = J (s - R s) . s'` (the Metropolis units,
//!   [`accepts`]): probability `1 - exp(-beta dE)` where `dE > 0`, none otherwise. A move then
//!   changes the energy only through its boundary bonds, by exactly the `dE` each was drawn
//!   with (`R R s = s`), which is detailed balance; the fixed-point spins' mirror images keep
//!   a bond inside a cluster to within 0.3 units of the tables' `2^-24`. Swendsen-Wang reflects
//!   cluster `r` iff the top bit of its flip word is set, Wolff the seed's cluster; neither
//!   records a statistic. The bond kernel's `activation` is the temperatures' acceptance
//!   tables ([`VectorSystems::clock_cluster_tables`]; WGSL reads the engine's own).
//! - **Houdayer's move** ([`ClusterMove::Houdayer`]; `Tempering(moves: ..)`, the vector engine's
//!   discrete states) labels each replica pair `k` (the systems `a`, `b` of
//!   [`SystemIndex::overlap_systems`]) instead of each system. Each site of the pair
//!   [`PairSite::Disagrees`], [`PairSite::Agrees`] or is [`PairSite::Empty`] (the vacancy in
//!   both). The move's relation is the one [`PairMoves::seed_relation`] picks from the
//!   [`HOUDAYER_CANDIDATES`] candidate sites [`houdayer_candidates`] (keyed by `a`'s run index):
//!   agreement where the pair's clusters of agreement may move ([`PairMoves::agreement`]: two
//!   states whose energies the exchange of the states keeps, no field) and fewer candidates
//!   agree than disagree, else disagreement. A bond is active iff its temperature takes moves
//!   (activation word not 0) and both its sites have that relation; no randoms. The seed is the
//!   first candidate of the relation. A cluster of disagreement swaps its states between `a`
//!   and `b`; a cluster of agreement takes the other state in both. Where no candidate has the
//!   relation the move leaves the pair as it is. Either way every site keeps its relation, so
//!   the same candidates pick the same cluster, which the same move undoes; and the pair's
//!   total energy stays (a cluster's neighbours outside it have the other relation, whose two
//!   bonds to it add up to the same before and after): detailed balance at any couplings, and
//!   at any field for disagreement. Taking the rarer relation keeps the clusters small: a pair
//!   near opposite states (overlap q < 0) disagrees almost everywhere, and swapping that one
//!   giant cluster would only exchange the two replicas.
//!
//! Update numbers `n` count the run's cluster updates from 0, apart from its Metropolis sweeps,
//! whose randoms keep their keys. What an update records (`sizes: Some(slot)`) is added into
//! [`Measurements::cluster_sizes`](super::Measurements::cluster_sizes) (`[slot][system]`): for
//! Swendsen-Wang `sum_C |C|^2` over its clusters, for Wolff `|C|` of its cluster, the improved
//! estimators of `<M^2>` and of `<M^2> / N` (the same partition before and after the flips).
//! Of discrete states, `M` is the sum of the Potts spins' simplex vectors (a cluster takes a
//! uniform state, independent of the others': `e_a . e_b` averages to 0 between clusters), and
//! an empty site, a cluster of its own, counts in neither statistic. Across an antiperiodic edge
//! (two states) a cluster holds both states: Swendsen-Wang records `sum_C M_C^2` of the clusters'
//! magnetisations instead (`magnetisation_weight` in the `cluster_roots` kernels), Wolff
//! `s_seed M_C` (each member +1 in the seed's state, -1 in the other; a wrapping sum), whose
//! mean over the seed is `sum_C M_C^2 / N`; without such an edge that is `|C|`.
//!
//! [`SystemIndex::global_system`]: crate::model::systems::SystemIndex::global_system
//! [`SystemIndex::overlap_systems`]: crate::model::systems::SystemIndex::overlap_systems
//! [`States::bond_gap`]: crate::model::vector::states::States::bond_gap
//! [`clock_index`]: crate::model::vector::fixed::clock_index
//! [`accepts`]: crate::model::vector::fixed::accepts

use crate::config::{Boundaries, ClusterUpdate};
use crate::engine::dispatch::{DispatchParams, NO_SLOT};
use crate::engine::kernels::ClusterSpins;
use crate::error::Error;
use crate::model::ising::IsingSystems;
use crate::model::vector::VectorSystems;
use crate::model::vector::states::States;
use crate::model::{Lattice, Shape};
use crate::rng::{Counter, Purpose, random_block};

/// The Philox block and the word in it of bond `d` of `site` (bond `site D + d`, `D` the
/// lattice's `directions`), without forming the bond index, which passes 2^32 on the largest 3D
/// lattices: `site D + d = 4 ((site / 4) D) + ((site mod 4) D + d)`.
pub fn bond_block(site: u32, d: u32, directions: u32) -> (u32, u32) {
    let rest = (site % 4) * directions + d;
    ((site / 4) * directions + rest / 4, rest % 4)
}

/// The four bond words of block `block` at cluster update `update` of the run's system `batch`.
pub fn bond_words(seed: u64, block: u32, update: u32, batch: u32) -> [u32; 4] {
    random_block(seed, counter(block, update, Purpose::ClusterBond, batch))
}

/// The word of bond `d` of `site` (`directions` a site) at cluster update `update` of the run's
/// system `batch`: word `i mod 4` of block `i / 4`, `i = site D + d` ([`bond_block`]).
pub fn bond_word(
    seed: u64,
    (site, d, directions): (u32, u32, u32),
    update: u32,
    batch: u32,
) -> u32 {
    let (block, word) = bond_block(site, d, directions);
    bond_words(seed, block, update, batch)[word as usize]
}

/// The flip words of roots `4 block .. 4 block + 3` at update `update` of the run's system
/// `batch`: a root's cluster flips iff the top bit of its word is set.
pub fn flip_words(seed: u64, block: u32, update: u32, batch: u32) -> [u32; 4] {
    random_block(seed, counter(block, update, Purpose::ClusterFlip, batch))
}

/// Whether Swendsen-Wang flips the cluster of root `root` at update `update` of the run's
/// system `batch`.
pub fn flips(seed: u64, root: u32, update: u32, batch: u32) -> bool {
    flip_words(seed, root / 4, update, batch)[(root % 4) as usize] >> 31 == 1
}

/// Wolff's seed site of update `update` of the run's system `batch` on `sites` sites.
pub fn wolff_seed(seed: u64, sites: u64, update: u32, batch: u32) -> u32 {
    let word = random_block(seed, counter(0, update, Purpose::WolffSeed, batch))[0];
    ((u64::from(word) * sites) >> 32) as u32
}

/// The state that a Swendsen-Wang cluster of `q` discrete states takes from its flip word
/// `word` ([`flip_words`]): `floor(word q / 2^32)`, each state alike (its own among them).
pub fn drawn_state(word: u32, q: u32) -> u32 {
    ((u64::from(word) * u64::from(q)) >> 32) as u32
}

/// Wolff's move of discrete states at update `update` of the run's system `batch`: the seed's
/// cluster goes from its state `s` to `(s + 1 + shift) mod q`, never to `s` itself, with
/// `shift = floor(w (q - 1) / 2^32)`, `w` word 1 of the seed's block.
pub fn wolff_shift(seed: u64, q: u32, update: u32, batch: u32) -> u32 {
    let word = random_block(seed, counter(0, update, Purpose::WolffSeed, batch))[1];
    drawn_state(word, q - 1)
}

/// The mirror of clock update `update` of the run's system `batch` with `q` states: `m =
/// floor(w q / 2^32)`, `w` word 2 of the seed's block, which reflects state `k` into `(m - k)
/// mod q`.
pub fn clock_mirror(seed: u64, q: u32, update: u32, batch: u32) -> u32 {
    let word = random_block(seed, counter(0, update, Purpose::WolffSeed, batch))[2];
    drawn_state(word, q)
}

/// The state of a clock with `q` states that mirror `m` reflects state `k` into.
pub fn reflected_state(k: u32, m: u32, q: u32) -> u32 {
    (m + q - k) % q
}

/// Candidate seed sites of a Houdayer move: enough that a pair disagreeing on a tenth of its
/// sites finds a seed more often than not.
pub const HOUDAYER_CANDIDATES: usize = 8;

/// The candidate seed sites of Houdayer move `update` of the replica pair whose first system is
/// the run's system `batch`, on `sites` sites: `(w_j N) >> 32`, `w_j` word `j mod 4` of block
/// `(j / 4, update, HoudayerSeed = 13, 0, 0, batch)`.
pub fn houdayer_candidates(seed: u64, sites: u64, update: u32, batch: u32) -> [u32; 8] {
    let blocks = [0, 1]
        .map(|block| random_block(seed, counter(block, update, Purpose::HoudayerSeed, batch)));
    std::array::from_fn(|j| ((u64::from(blocks[j / 4][j % 4]) * sites) >> 32) as u32)
}

/// How a site of a replica pair holds its two states (Houdayer's move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairSite {
    Disagrees,
    Agrees,
    /// The vacancy in both: joins no cluster.
    Empty,
}

impl PairSite {
    /// The site whose states are `a` and `b` in a model whose empty sites hold `vacancy`.
    pub fn of(a: i32, b: i32, vacancy: i32) -> Self {
        match (a == b, a == vacancy) {
            (false, _) => PairSite::Disagrees,
            (true, false) => PairSite::Agrees,
            (true, true) => PairSite::Empty,
        }
    }
}

/// Which clusters Houdayer's move takes of the replica pairs of a model of discrete states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairMoves {
    /// The state of an empty site.
    pub vacancy: i32,
    /// Whether clusters of agreement move (each site to the other state in both replicas) as
    /// well as those of disagreement: two states whose energies their exchange keeps.
    pub agreement: bool,
}

impl PairMoves {
    /// The moves of pairs of `states`.
    pub fn of(states: &States) -> Self {
        PairMoves {
            vacancy: states.vacancy() as i32,
            agreement: states.exchange_symmetric(),
        }
    }

    /// The relation of the move's seed, given the relations of its candidate sites: agreement
    /// where it may move and fewer candidates agree than disagree, else disagreement.
    pub fn seed_relation(&self, candidates: impl Iterator<Item = PairSite>) -> PairSite {
        let (mut agree, mut disagree) = (0, 0);
        for site in candidates {
            agree += u32::from(site == PairSite::Agrees);
            disagree += u32::from(site == PairSite::Disagrees);
        }
        match self.agreement && agree < disagree {
            true => PairSite::Agrees,
            false => PairSite::Disagrees,
        }
    }
}

/// What a cluster pass does with the clusters it labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterMove {
    /// A cluster update of every system's own spins (`algorithm: Clusters`).
    Update(ClusterUpdate),
    /// Houdayer's move of every replica pair (`Tempering(moves: ..)`).
    Houdayer,
}

fn counter(word: u32, update: u32, purpose: Purpose, batch: u32) -> Counter {
    Counter {
        word,
        sweep: update,
        purpose,
        colour: 0,
        draw: 0,
        batch,
    }
}

/// Which of the device kernels' passes an update runs, in the order `cluster_bonds`,
/// `cluster_label`, `cluster_merge`, `cluster_roots`, `cluster_flip`: every one but
/// `cluster_roots`, which only a recording Swendsen-Wang update needs (its statistic counts each
/// cluster's sites; the flips find their roots themselves).
pub fn cluster_passes(update: ClusterMove, params: &DispatchParams) -> [bool; 5] {
    let sw = ClusterMove::Update(ClusterUpdate::SwendsenWang);
    let counts = update == sw && params.slot != NO_SLOT;
    [true, true, true, counts, true]
}

/// Slots of `sizes` that a vector engine's record of `update` fills
/// ([`crate::engine::backend::vector::VectorBackend::take_cluster_record`]): Houdayer's two
/// words a replica pair (sites moved, moves with a seed), a cluster step's one statistic a
/// system (recorded in slot 0).
pub fn record_slots(update: ClusterMove) -> u32 {
    match update {
        ClusterMove::Houdayer => 2,
        ClusterMove::Update(_) => 1,
    }
}

/// Threads a workgroup (CUDA block) of every cluster pass, whatever the engine's
/// `workgroup_size`: `cluster_label` then takes four sites of its tile a thread, and the other
/// passes' workgroups cover 1024 sites. Measured on an H200 (2026-11-30, Swendsen-Wang at 2D
/// 4096^2): WGSL 23.2 spins/ns with every pass at 64 threads, 29.5 with only the labelling at
/// 256, 32.9 with every pass at 256; CUDA 19.9-20.5 at every size. wgpu guarantees 256
/// invocations a workgroup on every adapter.
pub const WORKGROUP_SIZE: u32 = 256;

// cluster_label's unions give each 32 invocations of a workgroup rows of their own.
const _: () = assert!(WORKGROUP_SIZE.is_multiple_of(32));

/// The largest tiles of a backend's `cluster_label`, in 2D and in 3D ([`tile_shape`]). Each
/// backend has its own (`engine::cuda::clusters::TILES`, `engine::wgpu::clusters::TILES`): the
/// labels, each cluster's smallest site, do not depend on the tiles, only the time does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelTiles {
    /// Sites along x and y (z 1) of a 2D lattice's tiles.
    pub plane: [u32; 3],
    /// Sites along x, y and z of a 3D lattice's tiles.
    pub space: [u32; 3],
}

/// Threads per system of each pass of [`cluster_passes`], in its order, for workgroups (CUDA
/// blocks) of `workgroup_size` threads: one per four sites, but `cluster_label` one workgroup per
/// tile ([`tile_shape`]) and `cluster_merge` one thread per site on a tile's forward face
/// ([`merge_threads`]).
pub fn pass_threads(lattice: &Lattice, tiles: LabelTiles, workgroup_size: u32) -> [u64; 5] {
    let quads = lattice.sites() / 4;
    let label_tiles: u64 = tiles_per_axis(lattice, tiles)
        .iter()
        .map(|&t| u64::from(t))
        .product();
    let label = label_tiles * u64::from(workgroup_size);
    [quads, label, merge_threads(lattice, tiles), quads, quads]
}

/// Sites along x, y and z (1 in 2D) of the tiles of `cluster_label`, which unites each tile's
/// own bonds in workgroup (shared) memory: the backend's largest `tiles`, but on lattices
/// smaller than that along an axis the power of two that covers `L` (a tile of a 4 x 4 lattice
/// is 4 x 4, not 32 x 32 sites of which 16 exist: the kernel's loops and barriers go over the
/// whole tile). Powers of two keep CUDA's rows dividing a warp. The kernels take the shape as
/// the constants `TILE_X`, `TILE_Y`, `TILE_Z` ([`kernel_constants`]).
pub fn tile_shape(lattice: &Lattice, tiles: LabelTiles) -> [u32; 3] {
    let largest = match lattice.dims {
        3 => tiles.space,
        _ => tiles.plane,
    };
    largest.map(|extent| extent.min(lattice.size.next_power_of_two()))
}

/// Tiles along x, y and z covering `lattice`, the last along an axis clipped where the tile's
/// extent does not divide `L` (1 along z in 2D).
pub fn tiles_per_axis(lattice: &Lattice, tiles: LabelTiles) -> [u32; 3] {
    let shape = tile_shape(lattice, tiles);
    std::array::from_fn(|d| match d < lattice.dims as usize {
        true => lattice.size.div_ceil(shape[d]),
        false => 1,
    })
}

/// Threads per system of `cluster_merge`: along every axis with more than one tile, one per
/// site of each tile's forward face (`L^(D-1)` lines across the axis times its tiles), whose
/// forward bond is the one that crosses into the next tile (and on the triangular lattice its
/// diagonal, which crosses with it); an axis of one tile has no bond between tiles (its
/// wrapping bond stays inside the tile).
pub fn merge_threads(lattice: &Lattice, tiles: LabelTiles) -> u64 {
    let lines = lattice.sites() / u64::from(lattice.size);
    tiles_per_axis(lattice, tiles)
        .iter()
        .take(lattice.dims as usize)
        .filter(|&&tiles| tiles > 1)
        .map(|&tiles| lines * u64::from(tiles))
        .sum()
}

/// The cluster kernels' constants beyond their engine's: `WOLFF` (1 for Wolff's flip of the
/// seed's cluster, 0 for Swendsen-Wang's), `HOUDAYER` (Houdayer's move of replica pairs: 1 of
/// their clusters of disagreement, 2 of those of agreement too, [`PairMoves::agreement`]; 0 for
/// no move), the tile ([`tile_shape`]), `OPEN_AXES` and `TWISTED_AXES`, the open and the
/// antiperiodic axes as bits ([`Boundaries::open_axes`], [`Boundaries::antiperiodic_axes`]),
/// and `HONEYCOMB` (1 on the honeycomb lattice, whose brick wall's gaps join nothing).
pub const KERNEL_CONSTANTS: [&str; 8] = [
    "WOLFF",
    "HOUDAYER",
    "TILE_X",
    "TILE_Y",
    "TILE_Z",
    "OPEN_AXES",
    "TWISTED_AXES",
    "HONEYCOMB",
];

/// The values of [`KERNEL_CONSTANTS`] for moves `update` of `lattices` in a backend's `tiles`.
pub fn kernel_constants(
    update: ClusterMove,
    lattices: &ClusterLattices,
    tiles: LabelTiles,
) -> [(&'static str, u32); 8] {
    let [wolff, houdayer, x, y, z, open, twisted, honeycomb] = KERNEL_CONSTANTS;
    let [tile_x, tile_y, tile_z] = tile_shape(&lattices.lattice, tiles);
    let pair_moves = match update {
        ClusterMove::Houdayer => 1 + u32::from(lattices.pair_agreement),
        ClusterMove::Update(_) => 0,
    };
    [
        (
            wolff,
            u32::from(update == ClusterMove::Update(ClusterUpdate::Wolff)),
        ),
        (houdayer, pair_moves),
        (x, tile_x),
        (y, tile_y),
        (z, tile_z),
        (open, lattices.boundaries.open_axes()),
        (twisted, lattices.boundaries.antiperiodic_axes()),
        (
            honeycomb,
            u32::from(lattices.lattice.shape == Shape::Honeycomb),
        ),
    ]
}

/// Kernel passes of the device kernels' labelling of an update: `cluster_label` (the tiles'
/// union-find in workgroup memory) and `cluster_merge` (the bonds between tiles), no
/// iterations, and `cluster_roots` where a Swendsen-Wang update records.
pub fn labelling_passes(update: ClusterUpdate, records: bool) -> u64 {
    2 + u64::from(update == ClusterUpdate::SwendsenWang && records)
}

/// Bytes a Swendsen-Wang update that records nothing must move per site through the device
/// kernels at least (each word read or written once, neighbours' spins and labels from cache):
/// `cluster_bonds` 5 (the spin 4, the bond byte 1), `cluster_label` 5 (the bond byte, the label
/// it writes), `cluster_flip` 12 (the label, the spin read and written); `cluster_merge` reads
/// only the tiles' faces. The benchmark's floor: at 3.35 TB/s (H100) no more than about 152
/// spins per ns.
pub const BYTES_PER_SITE: u64 = 22;

/// Bytes a cluster update of clock spins that records nothing must move per site through the
/// device kernels at least: `clock_bonds` 9 (the spin's two words 8, the bond byte 1),
/// `cluster_label` 5, `clock_flip` 20 (the label; a reflected site's two words read and
/// written, counted for every site as [`BYTES_PER_SITE`] counts the signs' flips).
pub const CLOCK_BYTES_PER_SITE: u64 = 34;

/// Bytes a Houdayer move must move per site of a replica pair through the device kernels at
/// least: `cluster_bonds` 9 (both lattices' states 8, the bond byte 1), `cluster_label` 5,
/// `cluster_flip` 4 (the label; a moved site's states besides).
pub const HOUDAYER_BYTES_PER_PAIR_SITE: u64 = 18;

/// The lattices that a device's cluster buffers and kernels serve: `systems` lattices of one
/// spin a word (signs, or discrete states), numbered and sliced as their engine's, or the
/// replica pairs of discrete states; and the bond activation threshold of every temperature
/// (of replica pairs: not 0 where the moves act).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterLattices {
    pub lattice: Lattice,
    pub systems: u32,
    pub activation: Vec<u32>,
    pub spins: ClusterSpins,
    /// Replica pairs whose clusters of agreement move too ([`PairMoves::agreement`]).
    pub pair_agreement: bool,
    /// How the lattices close: no bond crosses an open edge, one across an antiperiodic edge
    /// joins opposite spins ([`crate::model::lattices::bond_sign`]).
    pub boundaries: Boundaries,
}

impl ClusterLattices {
    /// The Ising lattices of `systems`.
    pub fn of_signs(systems: &IsingSystems) -> Self {
        ClusterLattices {
            lattice: systems.lattice,
            systems: systems.systems(),
            activation: systems.activation_thresholds(),
            spins: ClusterSpins::Signs,
            pair_agreement: false,
            boundaries: Boundaries::PERIODIC,
        }
    }

    /// The discrete states of `systems`; `None` where their bonds are no Fortuin-Kasteleyn
    /// bonds ([`VectorSystems::cluster_thresholds`]).
    pub fn of_states(systems: &VectorSystems) -> Option<Self> {
        Some(ClusterLattices {
            lattice: systems.lattice,
            systems: systems.systems(),
            activation: systems.cluster_thresholds()?,
            spins: ClusterSpins::States,
            pair_agreement: false,
            boundaries: systems.boundaries,
        })
    }

    /// The clock spins of `systems`; `None` where they are no clock ferromagnet
    /// ([`VectorSystems::clock_cluster_tables`]).
    pub fn of_clock(systems: &VectorSystems) -> Option<Self> {
        Some(ClusterLattices {
            lattice: systems.lattice,
            systems: systems.systems(),
            activation: systems.clock_cluster_tables()?,
            spins: ClusterSpins::Clock,
            pair_agreement: false,
            boundaries: systems.boundaries,
        })
    }

    /// The replica pairs of the discrete states of `systems` (a glass's or a diluted model's,
    /// [`VectorSystems::overlaps`]), the moves acting at the temperatures where `acts` holds;
    /// `None` without discrete states or replica pairs.
    pub fn of_pairs(systems: &VectorSystems, acts: impl Fn(f64) -> bool) -> Option<Self> {
        let states = systems.states.as_ref()?;
        if systems.overlaps() == 0 {
            return None;
        }
        Some(ClusterLattices {
            lattice: systems.lattice,
            systems: systems.overlaps(),
            activation: systems.betas.iter().map(|&b| u32::from(acts(b))).collect(),
            spins: ClusterSpins::States,
            pair_agreement: PairMoves::of(states).agreement,
            boundaries: systems.boundaries,
        })
    }

    /// Spins of every lattice.
    pub fn sites(&self) -> u64 {
        self.lattice.sites() * u64::from(self.systems)
    }
}

/// The engine's cluster update state: which update, and the activation threshold of every
/// temperature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterState {
    pub update: ClusterUpdate,
    pub thresholds: Vec<u32>,
}

impl ClusterState {
    /// Cluster updates of kind `update` of `systems` at their betas.
    pub fn of(systems: &IsingSystems, update: ClusterUpdate) -> Self {
        ClusterState {
            update,
            thresholds: systems.activation_thresholds(),
        }
    }
}

/// The error of a cluster step on an engine that was not given its cluster update
/// ([`super::Clusters::set_clusters`]) or has none.
pub fn no_clusters() -> Error {
    Error::State(
        "a cluster step without cluster updates (set_clusters was not called, or this engine \
         has none: cluster updates run on the simple engine)"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bond_blocks_number_the_bonds() {
        for dims in [2, 3] {
            for site in 0..40u32 {
                for d in 0..dims {
                    let bond = site * dims + d;
                    assert_eq!(bond_block(site, d, dims), (bond / 4, bond % 4));
                }
            }
        }
        // The last bond of a 3D lattice just below 2^31 sites: bond index past 2^32.
        let site = (1u32 << 31) - 1;
        let bond = u64::from(site) * 3 + 2;
        let (block, word) = bond_block(site, 2, 3);
        assert_eq!((u64::from(block), u64::from(word)), (bond / 4, bond % 4));
    }

    /// Tiles of 1024 sites (32 x 32, 16 x 8 x 8) and of 2048 (32 x 64, 32 x 8 x 8).
    const TILES: [LabelTiles; 2] = [
        LabelTiles {
            plane: [32, 32, 1],
            space: [16, 8, 8],
        },
        LabelTiles {
            plane: [32, 64, 1],
            space: [32, 8, 8],
        },
    ];

    /// `cluster_merge`'s threads are the bonds whose sites lie in different tiles, on lattices
    /// whose tiles divide them, are clipped, or cover them whole along some axis.
    #[test]
    fn merge_threads_are_the_bonds_between_tiles() {
        for (dims, size) in [
            (2, 2),
            (2, 18),
            (2, 64),
            (2, 50),
            (2, 130),
            (3, 2),
            (3, 12),
            (3, 18),
            (3, 32),
            (3, 40),
        ] {
            let lattice = Lattice::new(dims, size);
            for tiles in TILES {
                let shape = tile_shape(&lattice, tiles);
                let tile = |site: u64| {
                    let coords = lattice.coords(site);
                    [0, 1, 2].map(|d| coords[d] / shape[d])
                };
                let between = (0..lattice.sites())
                    .flat_map(|site| lattice.forward_neighbours(site).map(move |n| (site, n)))
                    .filter(|&(site, neighbour)| tile(site) != tile(neighbour))
                    .count() as u64;
                assert_eq!(
                    merge_threads(&lattice, tiles),
                    between,
                    "{dims}D L={size} {shape:?}"
                );
            }
        }
    }

    /// A backend's largest tiles, but no larger along an axis than the power of two that
    /// covers it.
    #[test]
    fn tiles_cover_small_lattices_by_powers_of_two() {
        let shape = |dims, size| tile_shape(&Lattice::new(dims, size), TILES[1]);
        assert_eq!(shape(2, 4096), [32, 64, 1]);
        assert_eq!(shape(3, 256), [32, 8, 8]);
        assert_eq!(shape(2, 50), [32, 64, 1]);
        assert_eq!(shape(2, 20), [32, 32, 1]);
        assert_eq!(shape(2, 4), [4, 4, 1]);
        assert_eq!(shape(2, 6), [8, 8, 1]);
        assert_eq!(shape(3, 12), [16, 8, 8]);
        assert_eq!(shape(3, 6), [8, 8, 8]);
        assert_eq!(shape(3, 2), [2, 2, 2]);
        assert_eq!(tile_shape(&Lattice::new(2, 50), TILES[0]), [32, 32, 1]);
    }

    #[test]
    fn wolff_seeds_cover_the_lattice() {
        let seeds: Vec<u32> = (0..2000).map(|n| wolff_seed(7, 16, n, 0)).collect();
        assert!(seeds.iter().all(|&s| s < 16));
        for site in 0..16 {
            assert!(seeds.contains(&site), "site {site} is never a seed");
        }
    }
}

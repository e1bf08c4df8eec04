//! What the vector engine's GPU kernels are built with and what their buffers hold, shared by
//! the WGSL and CUDA backends: the kernels' constants, the couplings' and lookup tables' words,
//! and the layout of the 64-bit counts (accepted moves, observations, overlaps) with their
//! reading back.

use super::vector::{
    MetropolisLaunch, StateSums, VectorObservation, VectorOverlap, VectorSweeps, pair_state_words,
    state_words,
};
use crate::engine::planes::planes_of;
use crate::model::Shape;
use crate::model::vector::fixed::{clock_split, quarter_turn_table};
use crate::model::vector::states::StateModel;
use crate::model::vector::{PhaseTable, VectorCouplings, VectorSystems};

/// 64-bit counters per system of unit vectors in the GPU kernels' counts (`COUNTERS` in
/// `shaders/wgsl/vector_site.wgsl` and `shaders/cuda/vector_site.cuh`, set by [`counters`]): the
/// accepted moves, three spare, then the observation ([`counted_observation`]).
const VECTOR_COUNTERS: usize = OBSERVATION_COUNTER + OBSERVATION_COUNTERS;

/// The counters of an observation: 30 sums, then the norm deviation.
const OBSERVATION_COUNTERS: usize = 31;

/// Where a system's observation starts in its counters.
const OBSERVATION_COUNTER: usize = 4;

/// Where a system's counts of discrete states start in its counters, after the observation;
/// their Fourier components follow, `[a][d][cos, sin]` at `q + (3 a + d) 2 + p` from here,
/// then their staggered counts at `7 q + a` ([`StateSums`]).
const STATES_COUNTER: usize = VECTOR_COUNTERS;

/// The 64-bit counters per system of the counts of `systems`, as few as its measurements need
/// (every measurement reads them all back): those of unit vectors; for `q` discrete states
/// also their counts and Fourier components, and for a glass's replica pairs, which reuse two
/// systems' counters, room for the `q^2` pairs of states and theirs.
pub fn counters(systems: &VectorSystems) -> usize {
    let Some(states) = &systems.states else {
        return VECTOR_COUNTERS;
    };
    let q = states.q as usize;
    let observation = VECTOR_COUNTERS + StateSums::words(q);
    match systems.overlaps() {
        0 => observation,
        _ => observation.max(StateSums::pair_words(q * q).div_ceil(2)),
    }
}

/// 64-bit counters per replica pair in the counts of `vector_overlap`, which reuses the counts
/// of the systems (two per pair, so that the counts hold every pair's): `q[mu][nu]` at
/// `3 mu + nu`, then `fourier[d][mu][nu][cos, sin]` from [`OVERLAP_FOURIER`] (63 in all); of
/// discrete states the `q^2` pairs' counts, then their Fourier components.
pub fn overlap_counters(systems: &VectorSystems) -> usize {
    2 * counters(systems)
}

/// Where an overlap's Fourier components start in its counters.
const OVERLAP_FOURIER: usize = 9;

/// The constants the GPU kernels are built with (WGSL overrides, CUDA `SPINFLIP_` defines),
/// besides the slice index's ([`kernel_constants`]).
pub const KERNEL_CONSTANTS: [&str; 23] = [
    "L",
    "DIMS",
    "TRIANGULAR",
    "HONEYCOMB",
    "COMPONENTS",
    "CLOCK",
    "CLOCK_TURN",
    "CLOCK_REMAINDER",
    "STATES",
    "SAMPLES",
    "REPLICAS",
    "UNIFORM_COUPLINGS",
    "COUPLING_BITS",
    "FIELD_SHIFT",
    "FIELD_BITS",
    "HITS",
    "TILE",
    "COUNTERS",
    "HEAT_BATH_SWEEPS",
    "SITES_PER_THREAD",
    "FLAT_SYSTEMS",
    "PLANES",
    "BLUME_CAPEL",
];

/// The values of [`KERNEL_CONSTANTS`] for `systems` updated by `updates` (`TILE` 0 for the
/// plain checkerboard, which builds no `vector_tiles`); a clock model's states with `T` and `R`
/// of [`clock_split`] (zeros for spins of every direction); a discrete model's states `q` (0
/// for unit vectors); the `CouplingScale`'s bits; the field
/// in local-field units as the bits of its `i32` (both backends take unsigned constants); the
/// [`counters`] per system; whether discrete states take the heat bath, and the backend's
/// launch of the Metropolis kernel ([`MetropolisLaunch`]); the bit planes a site of states
/// swept in bit planes ([`crate::engine::planes`], 0 without) and whether they are the
/// Blume-Capel model's (the planes' energy classes); then
/// the systems' slice index ([`crate::model::systems::SliceIndex::CONSTANTS`]), which turns a
/// local system into the run's, the Philox batch of its randoms.
pub fn kernel_constants(
    systems: &VectorSystems,
    updates: VectorSweeps,
    metropolis: MetropolisLaunch,
) -> Vec<(&'static str, u32)> {
    let uniform = matches!(systems.couplings, VectorCouplings::Uniform(_));
    let scale = systems.coupling_scale();
    let (turn, remainder) = match systems.clock {
        0 => (0, 0),
        q => clock_split(q),
    };
    let values = [
        systems.lattice.size,
        systems.lattice.dims,
        u32::from(systems.lattice.is_triangular()),
        u32::from(systems.lattice.shape == Shape::Honeycomb),
        systems.components,
        systems.clock,
        turn,
        remainder,
        systems.states.as_ref().map_or(0, |states| states.q),
        systems.samples,
        systems.replicas,
        u32::from(uniform),
        scale.fraction_bits,
        scale.field_shift,
        systems.field_units() as u32,
        updates.hits,
        updates.tile.unwrap_or(0),
        counters(systems) as u32,
        u32::from(updates.heat_bath),
        metropolis.sites_per_thread,
        u32::from(metropolis.flat),
        match updates.planes {
            true => planes_of(systems.states.as_ref().map_or(0, |states| states.q)),
            false => 0,
        },
        u32::from(
            systems.states.as_ref().map(|states| states.model) == Some(StateModel::BlumeCapel),
        ),
    ];
    let slice = systems.slice_index().constants();
    KERNEL_CONSTANTS
        .into_iter()
        .zip(values)
        .chain(slice)
        .collect()
}

/// The couplings as the GPU kernels read them: the one `J` of the ferromagnet, or every
/// sample's bonds (`sample * d N + site * d + direction`): `+-1`, or the Gaussian words.
pub fn coupling_words(couplings: &VectorCouplings) -> Vec<i32> {
    match couplings {
        VectorCouplings::Uniform(j) => vec![*j],
        VectorCouplings::Bonds(samples) => {
            samples.iter().flatten().map(|&j| i32::from(j)).collect()
        }
        VectorCouplings::Gaussian(samples) => samples.concat(),
    }
}

/// The lookup tables as the GPU kernels read them: the phase table's cosines, then its sines
/// (`L` each); then for discrete states their tables ([`States::table_words`]), for unit
/// vectors the quarter turn's table of their proposals' angles (cosine and sine of each entry,
/// [`quarter_turn_table`]).
///
/// [`States::table_words`]: crate::model::vector::states::States::table_words
pub fn lookup_words(systems: &VectorSystems, phases: &PhaseTable) -> Vec<i32> {
    let tables: Vec<i32> = match &systems.states {
        Some(states) => states.table_words(),
        None => quarter_turn_table().concat(),
    };
    (phases.cos.iter().chain(&phases.sin).copied())
        .chain(tables)
        .collect()
}

/// Every system's accepted moves in the `counts` of `systems`, [`counters`] per system.
pub fn counted_accepted(systems: &VectorSystems, counts: &[u64]) -> Vec<u64> {
    counts
        .chunks_exact(counters(systems))
        .map(|c| c[0])
        .collect()
}

/// Every system's observation and [`StateSums`] (of discrete states) in the `counts` of
/// `vector_observables` (or `discrete_observables`) of `systems`, [`counters`] per system.
pub fn counted_observations(
    systems: &VectorSystems,
    counts: &[u64],
) -> (Vec<VectorObservation>, Vec<i64>) {
    let words = state_words(systems);
    let chunks = counts.chunks_exact(counters(systems));
    let sums = chunks
        .clone()
        .flat_map(|c| &c[STATES_COUNTER..STATES_COUNTER + words]);
    let observations = chunks.map(counted_observation).collect();
    (observations, sums.map(|&w| w as i64).collect())
}

/// The observation in one system's [`counters`]: bonds, twists and magnetisation (three
/// each), the Fourier components `[d][a][cos, sin]`, the staggered magnetisation (three), the
/// norm deviation (the discrete states' [`StateSums`] after them).
fn counted_observation(counters: &[u64]) -> VectorObservation {
    let sum = |k: usize| counters[OBSERVATION_COUNTER + k] as i64;
    let mut o = VectorObservation {
        bonds: [0, 1, 2].map(sum),
        twists: [3, 4, 5].map(sum),
        magnetisation: [6, 7, 8].map(sum),
        staggered: [27, 28, 29].map(sum),
        norm_deviation: counters[OBSERVATION_COUNTER + OBSERVATION_COUNTERS - 1],
        ..VectorObservation::default()
    };
    for (d, direction) in o.fourier.iter_mut().enumerate() {
        for (a, component) in direction.iter_mut().enumerate() {
            *component = [0, 1].map(|p| sum(9 + 2 * (3 * d + a) + p));
        }
    }
    o
}

/// The overlaps of every replica pair of `systems` in the `counts` of `vector_overlap` (or
/// `discrete_overlap`), and of discrete states their [`StateSums`] (from each pair's first
/// counter; their overlaps are zero).
pub fn counted_overlaps(systems: &VectorSystems, counts: &[u64]) -> (Vec<VectorOverlap>, Vec<i64>) {
    let words = pair_state_words(systems);
    let chunks = (counts.chunks_exact(overlap_counters(systems))).take(systems.overlaps() as usize);
    let sums = chunks
        .clone()
        .flat_map(|c| &c[..words])
        .map(|&w| w as i64)
        .collect();
    let overlaps = match words {
        0 => chunks.map(counted_overlap).collect(),
        _ => vec![VectorOverlap::default(); systems.overlaps() as usize],
    };
    (overlaps, sums)
}

/// One pair's overlap from its [`overlap_counters`].
fn counted_overlap(counters: &[u64]) -> VectorOverlap {
    let mut o = VectorOverlap::default();
    for (mu, row) in o.q.iter_mut().enumerate() {
        for (nu, q) in row.iter_mut().enumerate() {
            *q = counters[3 * mu + nu] as i64;
        }
    }
    for (d, direction) in o.fourier.iter_mut().enumerate() {
        for (mu, row) in direction.iter_mut().enumerate() {
            for (nu, f) in row.iter_mut().enumerate() {
                let at = OVERLAP_FOURIER + 2 * (9 * d + 3 * mu + nu);
                *f = [0, 1].map(|p| counters[at + p] as i64);
            }
        }
    }
    o
}

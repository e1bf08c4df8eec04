//! Counter-based random numbers: Philox4x32-10 and the counter scheme.
//!
//! Every random word spinflip uses is a pure function of
//! `(seed, purpose, sweep, colour, word index, batch)`: the key is the 64-bit seed and the
//! counter encodes the rest (see [`Counter`]). Results therefore do not depend on workgroup
//! size, dispatch order, backend or device count, and a checkpoint needs no RNG state.

mod philox;

pub use philox::{
    PHILOX_KNOWN_ANSWERS, PHILOX_M0, PHILOX_M1, PHILOX_W0, PHILOX_W1, mulhilo, philox4x32_10,
};

/// What a random word is used for; part of the counter so that streams never overlap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Purpose {
    /// The initial (hot start) spin configuration.
    InitialSpins = 1,
    /// Metropolis acceptance tests of the simple (one spin per word) engine.
    MetropolisSimple = 2,
    /// Bit-sliced per-lane acceptance tests of the multispin engine (`Randoms::Exact`, and
    /// `Randoms::Packed`, whose packed tails take draws 8..14 of a run's first word).
    MetropolisMultispin = 3,
    /// One shared acceptance word per multispin word (`Randoms::Shared`).
    MetropolisShared = 4,
    /// Edwards-Anderson couplings of one disorder sample.
    Couplings = 5,
    /// Parallel-tempering swap decisions.
    Swap = 6,
    /// Population-annealing resampling decisions (copy numbers).
    Resample = 7,
    /// Bond activation of the cluster updates (Swendsen-Wang, Wolff).
    ClusterBond = 8,
    /// Swendsen-Wang's flip of each cluster, keyed by its root (its smallest site).
    ClusterFlip = 9,
    /// Wolff's seed site.
    WolffSeed = 10,
    /// Vector-spin Metropolis proposals and acceptance words (purposes 8 to 10 belong to the
    /// cluster updates).
    VectorMetropolis = 11,
    /// The initial vector spins (hot start).
    VectorInitialSpins = 12,
    /// The candidate seed sites of Houdayer's replica cluster move.
    HoudayerSeed = 13,
    /// Proposals and bit-sliced decisions of discrete states in bit planes
    /// (`discrete_planes_metropolis`).
    DiscretePlanes = 14,
}

/// The 128-bit Philox counter of one block of four random words.
///
/// Layout (x = c0, y = c1, z = c2, w = c3):
/// - `c0`: word index: the index of the block of four words within (sweep, colour, batch);
/// - `c1`: sweep number;
/// - `c2`: `purpose << 24 | draw << 1 | colour`: `draw` numbers the blocks one update consumes
///   (the multispin engine's bit-sliced comparison draws up to eight);
/// - `c3`: batch: the system index (temperature-major, then replica).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    pub word: u32,
    pub sweep: u32,
    pub purpose: Purpose,
    pub colour: u32,
    /// Which block of one update's random stream (0 where an update needs one block).
    pub draw: u32,
    pub batch: u32,
}

impl Counter {
    /// The four 32-bit counter words handed to Philox.
    pub fn words(&self) -> [u32; 4] {
        [
            self.word,
            self.sweep,
            ((self.purpose as u32) << 24) | (self.draw << 1) | self.colour,
            self.batch,
        ]
    }
}

/// The Philox key of a run: the low and high halves of the 64-bit seed.
pub fn seed_key(seed: u64) -> [u32; 2] {
    [seed as u32, (seed >> 32) as u32]
}

/// Four random words for `counter` under `seed`.
pub fn random_block(seed: u64, counter: Counter) -> [u32; 4] {
    philox4x32_10(counter.words(), seed_key(seed))
}

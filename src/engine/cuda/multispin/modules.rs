//! The multispin engine's CUDA modules: the constants its kernels are compiled with (the
//! geometry's and the compiled-in thresholds), the update modules of each colour, of a swap
//! round's tally and of the paired updates after a round, and the observables kernels; with the
//! shapes they are launched in.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule};

use crate::config::Randoms;
use crate::engine::Betas;
use crate::engine::cuda::context::CudaDevice;
use crate::engine::cuda::launch::FittedKernel;
use crate::engine::kernels::{Kernel, WordLayout};
use crate::engine::multispin::{
    COUNT_UP, MAX_CATEGORIES, MultispinLayout, STAGGERED, TALLY_RUNS, THRESHOLD_CONSTANTS,
};
use crate::error::Result;

/// Names of the constants the kernels are compiled with (as `SPINFLIP_<name>`), the WGSL
/// override constants of the multispin kernels but the block size (CUDA's `blockDim`): the
/// geometry's, then the compiled-in thresholds.
pub(in crate::engine::cuda) const CONSTANTS: [&str; 44] =
    concat_names(GEOMETRY_CONSTANTS, THRESHOLD_CONSTANTS);

const GEOMETRY_CONSTANTS: [&str; 30] = [
    "L",
    "DIMS",
    "HONEYCOMB",
    "TRIANGULAR",
    "KAGOME",
    "OPEN_AXES",
    "REPLICA_WORDS",
    "SAMPLE_WORDS",
    "WORDS_PER_TABLE",
    "CLASSES_LO",
    "CLASSES_HI",
    "CLASSES_ODD_LO",
    "CLASSES_ODD_HI",
    "CLASS_COUNT",
    "SHARED_RANDOMS",
    "DISORDERED",
    "TABLE_WORDS",
    "CONSTANT_THRESHOLDS",
    "FIXED_THRESHOLDS",
    "WORD_RUN",
    "PACK_ROTATIONS",
    "LINE_RUN",
    "PLANES",
    "STORED_PLANES",
    "WORD_OFFSET",
    "SEED_LO",
    "SEED_HI",
    "SLICE_BLOCK",
    "RUN_BLOCK",
    "SLICE_FIRST",
];

const fn concat_names(first: [&'static str; 30], second: [&'static str; 14]) -> [&'static str; 44] {
    let mut names = [""; 44];
    let mut i = 0;
    while i < 44 {
        names[i] = if i < 30 { first[i] } else { second[i - 30] };
        i += 1;
    }
    names
}

/// Threshold tables up to this many words (64 KiB, a module's whole constant memory) live in
/// constant memory, where the update reads each bit plane as a uniform operand; larger ones are
/// read from global memory.
pub const CONSTANT_TABLE_WORDS: usize = 1 << 14;

/// The observables kernel's constant: whether it counts satisfied bonds, or copies them from a
/// swap round's tally ([`Counts::UpSpins`]).
pub(in crate::engine::cuda) const COUNT_BONDS: &str = "COUNT_BONDS";

/// What an observables kernel counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Counts {
    /// A measurement: up spins and satisfied bonds.
    Both,
    /// A swap round at zero field: the satisfied bonds alone.
    Bonds,
    /// A measurement right after the colour-1 update that tallied the next swap round
    /// ([`SwapTally`]): the up spins, the satisfied bonds copied from the round's records.
    UpSpins,
}

/// The observables kernel of `layout` with `constants`, counting `counts`.
pub(super) fn observables_kernel(
    device: &mut CudaDevice,
    layout: &MultispinLayout,
    constants: &[(&'static str, u32)],
    counts: Counts,
    block_size: u32,
) -> Result<FittedKernel> {
    let mut constants = constants.to_vec();
    constants.push((COUNT_UP, u32::from(counts != Counts::Bonds)));
    constants.push((COUNT_BONDS, u32::from(counts != Counts::UpSpins)));
    constants.push((STAGGERED, u32::from(layout.systems.staggered())));
    let kernel = Kernel::MultispinObservables(WordLayout::of(layout));
    FittedKernel::new(device.function(kernel, &constants)?, block_size)
}

/// The update kernel's extra constant: the colour it updates (one module per colour, so that
/// the other colour's arrays are at constant offsets).
pub(in crate::engine::cuda) const COLOUR: &str = "COLOUR";

/// The update's constant for the runs of words each thread of its paired update updates where
/// it does not tally.
pub(in crate::engine::cuda) const PAIR_RUNS: &str = "PAIR_RUNS";

/// The update's constant for the threads of the tally's blocks ([`TALLY_BLOCK_SIZE`]).
pub(in crate::engine::cuda) const TALLY_BLOCK: &str = "TALLY_BLOCK";

/// The tally's blocks ([`SwapTally`]): their threads' tallies are summed in a tree over the
/// warps before one warp per word system transposes them, so larger blocks share the transposes
/// among more words.
pub(super) const TALLY_BLOCK_SIZE: u32 = 256;

/// Words of each word system that a thread of the tally updates, in runs of the layout's word
/// run. With the tree, fewer words a thread (so more threads, hiding more latency) share the
/// transposes well enough. 3D spin glass, H200, PT ps/flip at L = 16 / 32 (docs/BENCHMARKS.md):
/// with packed randoms (two-word runs) main's four runs a thread, each warp transposing its own,
/// took 0.598-0.603 / 0.515, the tree's one run 0.604 / 0.525 and two 0.588-0.592 / 0.510; with
/// exact randoms (one-word runs) 0.671-0.677 / 0.593, the tree's two runs 0.676-0.679 / 0.593 and
/// four 0.664-0.667 / 0.580.
pub(super) const TALLY_WORDS_PER_THREAD: u32 = 4;

/// Runs of words of `layout` in `words` words a thread (one at least).
pub(super) fn runs_per_thread(layout: &MultispinLayout, words: u32) -> u32 {
    (words / layout.word_run()).max(1)
}

/// The constants of `layout` with threshold tables `tables`, in the order of [`CONSTANTS`];
/// thresholds are compiled in only where the betas stay fixed.
pub(super) fn constants(
    layout: &MultispinLayout,
    tables: &[u32],
    betas: Betas,
) -> Vec<(&'static str, u32)> {
    let [classes_lo, classes_hi, odd_lo, odd_hi] = layout.category_classes();
    let classes = layout.energy_classes().len();
    let fixed = layout.fixed_thresholds(betas);
    let mut thresholds = fixed.clone().unwrap_or_default();
    thresholds.resize(MAX_CATEGORIES as usize, 0);
    let seed_key = crate::rng::seed_key(layout.systems.seed);
    let values = [
        layout.lattice().size,
        layout.lattice().dims,
        u32::from(layout.is_honeycomb()),
        u32::from(layout.is_triangular()),
        u32::from(layout.is_kagome()),
        layout.open_axes(),
        layout.replica_words,
        layout.sample_words,
        layout.replica_words * layout.sample_words,
        classes_lo,
        classes_hi,
        odd_lo,
        odd_hi,
        classes as u32,
        u32::from(layout.randoms == Randoms::Shared),
        u32::from(layout.systems.reads_couplings()),
        tables.len() as u32,
        u32::from(tables.len() <= CONSTANT_TABLE_WORDS),
        u32::from(fixed.is_some()),
        layout.word_run(),
        layout.pack_rotations(),
        layout.line_run(),
        layout.own_planes(),
        layout.stored_planes(),
        layout.word_offset(),
        seed_key[0],
        seed_key[1],
    ];
    // The word systems' slice index, in the order of SliceIndex::CONSTANTS.
    let slice = layout
        .word_slice_index()
        .constants()
        .map(|(_, value)| value);
    CONSTANTS
        .into_iter()
        .zip(values.into_iter().chain(slice).chain(thresholds))
        .collect()
}

/// The update module of word layout `words` with `constants` for `colour`, tallying a swap
/// round's satisfied bonds with `runs` runs per thread, or (`tally` false) with `runs` runs per
/// thread of its paired update that does not tally.
pub(super) fn update_module(
    device: &mut CudaDevice,
    words: WordLayout,
    constants: &[(&'static str, u32)],
    colour: u32,
    (runs, tally): (u32, bool),
) -> Result<(Arc<CudaModule>, CudaFunction)> {
    let mut constants = constants.to_vec();
    let (tally_runs, pair_runs) = if tally { (runs, 1) } else { (0, runs) };
    constants.extend([
        (COLOUR, colour),
        (TALLY_RUNS, tally_runs),
        (PAIR_RUNS, pair_runs),
        (TALLY_BLOCK, TALLY_BLOCK_SIZE),
    ]);
    device.kernel(Kernel::MultispinMetropolis(words), &constants)
}

/// An update kernel as launched: its function, block size and runs of words per thread.
#[derive(Clone, Copy)]
pub(super) struct UpdateKernel<'a> {
    pub(super) function: &'a CudaFunction,
    pub(super) block_size: u32,
    pub(super) runs_per_thread: u32,
}

/// The colour-1 update that also counts each lane's satisfied bonds after it into a swap round's
/// records, in place of the observables kernel between the sweep and the round (zero field,
/// whose decisions need those counts alone): that kernel read every word system again, as long
/// as a colour's update on an H100 (3D spin glass, L = 16). Its blocks of [`TALLY_BLOCK_SIZE`]
/// threads sum their bit-sliced counts, transpose them with shuffles and add them to the records
/// once, each thread updating [`TALLY_WORDS_PER_THREAD`] words ([`runs_per_thread`]).
pub(super) struct SwapTally {
    pub(super) module: Arc<CudaModule>,
    pub(super) kernel: FittedKernel,
}

/// The entry point of the update modules that updates the pairs of a swap round's word systems,
/// applying the round's spin exchange as it loads them.
pub(super) const PAIRS_FUNCTION: &str = "multispin_metropolis_pairs";

/// The paired updates ([`PAIRS_FUNCTION`]) of each colour and of the tally, from the same modules
/// as the plain ones: the sweep after a swap round that exchanges lanes or whole word systems
/// updates both systems of each of its pairs in one thread, exchanging their words on load, so
/// that no `tempering_exchange` reads and writes every word system between the round and the
/// sweep (3D spin glass at L = 32 on an H100: 178 us a round, about a sixth of a sweep).
pub(super) struct PairKernels {
    pub(super) colours: [FittedKernel; 2],
    pub(super) tally: Option<FittedKernel>,
    /// Where word systems are small enough ([`DECIDING_MOST_COLOUR_WORDS`]).
    pub(super) deciding: Option<DecidingPairs>,
}

/// The paired colour-0 update that decides the swap round it follows (`PendingRound`), from
/// a module compiled with the tempering constants: each block decides its pair unit's lanes
/// (its first block also keeps the round's books), so its threads update
/// [`DECIDING_WORDS_PER_THREAD`] words each in blocks of [`DECIDING_BLOCK_SIZE`], fewer blocks
/// to repeat each decision.
pub(super) struct DecidingPairs {
    pub(super) module: Arc<CudaModule>,
    pub(super) kernel: FittedKernel,
    pub(super) runs_per_thread: u32,
}

/// Words a thread of the deciding update updates, and its blocks. 3D spin glass, H200, PT
/// ps/flip at L = 16 / 32 (docs/BENCHMARKS.md), against 0.571 / 0.498 packed and 0.648 / 0.568
/// exact with the swap kernel: 2 words in blocks of 128, 0.544 / 0.498 and 0.639 / 0.582; 4 in
/// 256, 0.555 / 0.501 and 0.639 / 0.576; 8 in 256, 0.560 / 0.504 and 0.646 / 0.576.
pub(super) const DECIDING_WORDS_PER_THREAD: u32 = 2;
pub(super) const DECIDING_BLOCK_SIZE: u32 = 128;

/// Most words of one colour of a word system whose paired update decides the rounds: in larger
/// systems the swap kernel costs less of a sweep than each block's decisions (3D spin glass at
/// L = 32, 16384 words, above; at L = 16, 2048 words, the deciding update gains).
pub(super) const DECIDING_MOST_COLOUR_WORDS: u32 = 4096;

/// Where the update reads its threshold tables.
pub(super) enum ThresholdHome {
    /// Compiled into the update (`FIXED_THRESHOLDS`): fixed betas only.
    Compiled,
    /// The `__constant__` array `threshold_planes` of each colour's module.
    Constant,
    /// The global buffer `thresholds`.
    Global,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Lanes, Layout, MultispinOptions};
    use crate::model::Lattice;
    use crate::model::ising::IsingSystems;

    /// One temperature whose threshold every lane shares: compiled into the update for fixed
    /// betas, never for changing ones (population annealing), whose tables `set_betas` rewrites.
    #[test]
    fn thresholds_are_compiled_in_only_for_fixed_betas() {
        let systems = IsingSystems::ferromagnet(Lattice::new(2, 8), 0.0, vec![0.4], 32, 3);
        let options = MultispinOptions {
            layout: Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            randoms: Randoms::Exact,
        };
        let layout = MultispinLayout::new(systems, options);
        let tables = layout.threshold_tables();
        let compiled_in =
            |betas| constants(&layout, &tables, betas).contains(&("FIXED_THRESHOLDS", 1));
        assert!(compiled_in(Betas::Fixed));
        assert!(!compiled_in(Betas::Changing));
    }
}

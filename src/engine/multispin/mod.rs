//! The data layout of the multispin engine, shared by its CPU, WGSL and CUDA kernels: one spin
//! per bit, 32 lanes per `u32` word.
//!
//! Storage. The spins of one *word system* are two colour arrays of `rows * row_words` words,
//! `words[(g * 2 + colour) * colour_words + row * row_words + w]`, with `row = z L + y`. In a row
//! of colour `c` the sites of that colour sit at `x = 2k + p`, `p = (y + z + c) mod 2`:
//! - AMSC (asynchronous): word `w` is the site `k = w` (`row_words = L/2`), and bit `b` of it is
//!   that site in lane `b`: 32 systems side by side;
//! - SMSC (synchronous): word `w` holds the sites `k = 32 w + j` in its bits `j`
//!   (`row_words = L/64`): 32 sites of one system.
//!
//! Either way the +-y, +-z neighbours of a word are the words at the same `w` in the other
//! colour's neighbouring rows, one x-neighbour is the other colour's word at the same `w`, and
//! the other comes from the adjacent word `w - 1` (p = 0, the -x side) or `w + 1` (p = 1, +x):
//! AMSC takes that word as it is, SMSC shifts its bits by one with the carry from the adjacent
//! word ([`shift_in`]).
//!
//! Word systems are numbered `g = (tw * sample_words + sw) * replica_words + rw`; what a lane is
//! depends on [`Lanes`] (see [`MultispinLayout::lane_system`]). Couplings are stored per
//! *coupling group* (32 samples in lanes, or one sample broadcast to every lane / spread over the
//! sites of an SMSC word) as the forward bond of each site and direction, in the same colour
//! arrays: `couplings[((group * dims + d) * 2 + colour) * colour_words + row * row_words + w]`.
//! Thresholds are bit-sliced per table, energy class and bit: `tables[(table * classes + class)
//! * 32 + k]` holds, in lane `b`, bit `k` of the acceptance threshold of lane `b`'s temperature
//! for the energy change of that class (the distinct positive `dE` of the categories), and for
//! every class but the first that bit XOR the first class's ([`MultispinLayout::threshold_tables`]).
//!
//! Slabs ([`crate::engine::slabs`]): where the systems are a slab of planes of the slowest axis,
//! the rows are those of the slab's planes and its two halos ([`MultispinLayout::stored_planes`]).
//!
//! The files, by role: the word geometry (`geometry.rs`: word systems, rows, planes, a word's
//! index and neighbours), what the lanes of a word hold (`lanes.rs`), the spins packed into
//! words and back (`packing.rs`), the couplings (`couplings.rs`), the energy categories and the
//! bit-sliced thresholds (`thresholds.rs`), a sweep's passes (a colour, or on the triangular and
//! kagome lattices half its rows) and how the update kernels split a pass among threads
//! (`update.rs`), how the observables and overlap kernels walk a colour (`strips.rs`), the overlap
//! pairs and their counts (`overlaps.rs`), and the kernels' counts read back as [`Measurements`]
//! (`measurements.rs`).

mod couplings;
#[cfg(test)]
pub(crate) mod fixtures;
mod geometry;
mod lanes;
mod measurements;
mod overlaps;
mod packing;
mod strips;
mod thresholds;
mod update;

pub use geometry::{WordSite, shift_in};
pub use measurements::SlotsRead;
pub use packing::{compact_even, spread_even};
pub use strips::{
    COUNT_UP, MAX_STRIP_WORDS, MIN_STRIP_THREADS, PACKED_OVERLAPS, STAGGERED, overlap_constants,
};
pub use thresholds::{MAX_CATEGORIES, NO_CLASS, THRESHOLD_CONSTANTS};
pub use update::{RUNS_PER_TALLY_THREAD, TALLY_RUNS};

use crate::config::{Lanes, Layout, MultispinOptions, Randoms};
#[cfg(doc)]
use crate::engine::Measurements;
use crate::model::Lattice;
use crate::model::ising::IsingSystems;

/// Bits per spin word.
pub const LANES: u32 = 32;

/// The multispin packing of a run's systems.
#[derive(Debug, Clone, PartialEq)]
pub struct MultispinLayout {
    pub systems: IsingSystems,
    pub layout: Layout,
    pub randoms: Randoms,
    /// Word systems along temperatures, samples and replicas.
    pub temperature_words: u32,
    pub sample_words: u32,
    pub replica_words: u32,
}

impl MultispinLayout {
    /// The packing of `systems` (a validated config guarantees the counts fit the lanes).
    pub fn new(systems: IsingSystems, options: MultispinOptions) -> Self {
        let (t, s, r) = (
            systems.betas.len() as u32,
            systems.samples,
            systems.replicas,
        );
        let (temperature_words, sample_words, replica_words) = match options.layout {
            Layout::Smsc => (t, s, r),
            Layout::Amsc {
                lanes: Lanes::Samples,
            } => (t, s / LANES, r),
            Layout::Amsc {
                lanes: Lanes::Temperatures,
            } => (1, s, r),
            Layout::Amsc {
                lanes: Lanes::Replicas,
            } => (t, s, r / LANES),
        };
        if let Layout::Amsc {
            lanes: Lanes::Samples,
        } = options.layout
        {
            assert!(
                systems.first_sample.is_multiple_of(LANES)
                    && systems.all_samples.is_multiple_of(LANES),
                "lanes: Samples packs 32 samples per word: a sample slice must start at a \
                 multiple of 32 of a run of a multiple of 32 samples, not at {} of {}",
                systems.first_sample,
                systems.all_samples
            );
        }
        MultispinLayout {
            systems,
            layout: options.layout,
            randoms: options.randoms,
            temperature_words,
            sample_words,
            replica_words,
        }
    }

    /// The engine's name in summaries: `multispin AMSC (lanes: Samples, randoms: Exact)`.
    pub fn describe(&self) -> String {
        match self.layout {
            Layout::Amsc { lanes } => format!(
                "multispin AMSC (lanes: {lanes:?}, randoms: {:?})",
                self.randoms
            ),
            Layout::Smsc => format!("multispin SMSC (randoms: {:?})", self.randoms),
        }
    }

    pub fn lattice(&self) -> Lattice {
        self.systems.lattice
    }

    /// Whether the bits of a word are sites (SMSC) rather than lanes (AMSC).
    pub fn smsc(&self) -> bool {
        self.layout == Layout::Smsc
    }

    /// What the 32 lanes of a word hold (AMSC); `None` for SMSC, whose bits are sites.
    fn lanes(&self) -> Option<Lanes> {
        match self.layout {
            Layout::Amsc { lanes } => Some(lanes),
            Layout::Smsc => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "a sample slice must start at a multiple of 32")]
    fn a_slice_within_a_word_of_samples_is_refused() {
        let systems = IsingSystems::spin_glass(Lattice::new(2, 4), 0.0, vec![0.3], 64, 2, 3)
            .sample_slice(16, 32);
        let options = MultispinOptions {
            layout: Layout::Amsc {
                lanes: Lanes::Samples,
            },
            randoms: Randoms::Exact,
        };
        MultispinLayout::new(systems, options);
    }
}

//! How the update kernels (CUDA and WGSL) split a colour among threads: runs of words per
//! thread, the packed tail's rotations, and the update that also tallies a swap round.

use std::ops::Range;

use super::MultispinLayout;
use crate::config::Disorder;
use crate::config::{Lanes, Layout, Randoms};
use crate::engine::ISING_PASSES;
use crate::model::Shape;

/// The kagome lattice's pass of its holes: colour 0 (`x + y` even) on the rows of odd `y`,
/// whose sites have odd `x`.
const HOLES_PASS: u32 = 2;

/// The update's constant (CUDA define and WGSL override alike) for the colour-1 update before a
/// swap round at zero field, which also tallies the round's satisfied bonds: the runs of words
/// each of its threads updates, which share the tally's transposes (0: an update alone).
pub const TALLY_RUNS: &str = "TALLY_RUNS";

/// Runs of words per thread of the WGSL update that tallies a swap round, which share its
/// transposes: on an H100 (then the CUDA tally's too: 3D spin glass, packed randoms, L = 32,
/// docs/BENCHMARKS.md) PT took 0.668-0.675 ps/flip with one run (two words) per thread and
/// 0.609-0.619 with four, against 0.718 with the observables kernel. The CUDA tally now sums its
/// blocks' tallies before transposing them and takes fewer (cuda::multispin).
pub const RUNS_PER_TALLY_THREAD: u32 = 4;

impl MultispinLayout {
    /// Words one thread of the update kernels (CUDA and WGSL) updates: words of one row share
    /// its geometry and array pointers. Up to four, dividing the words of a row; one for the spin
    /// glass, whose thirteen loads per word made longer runs slower on the H100 (CUDA, 3D L = 64:
    /// 1787 flips/ns with one word per thread, 1748 with two, 1552 with four), while the
    /// ferromagnet gains (CUDA 2D SMSC 32768^2: 2344, 2424, 2432).
    ///
    /// With [`Randoms::Packed`] the run is also the group of words whose undecided lanes share
    /// one packed tail of random planes, and the spin glass takes two words: the shared tail
    /// pays for the longer run there (CUDA, 3D L = 64: 2534 flips/ns with two words, 2060 with
    /// four; docs/BENCHMARKS.md).
    pub fn word_run(&self) -> u32 {
        let most = match (self.systems.disorder, self.randoms) {
            (Disorder::Ferromagnet, _) => 4,
            (_, Randoms::Packed) => 2,
            (_, _) => 1,
        };
        let row_words = self.row_words();
        [4, 2, 1]
            .into_iter()
            .find(|&run| run <= most && row_words.is_multiple_of(run))
            .unwrap_or(1)
    }

    /// Threads of one update pass of one word system: one per run of words of the pass's rows
    /// ([`Self::pass_updates_row`]).
    pub fn update_threads(&self) -> u32 {
        self.own_colour_words() / self.row_halves() / self.word_run()
    }

    /// Whether the lattice is the triangular one (or the kagome lattice drawn on it), whose
    /// diagonal bond from `(x, y)` to `(x + 1, y + 1)` joins sites of one colour of the
    /// checkerboard: each colour updates in two passes, its sites of even `y`, then those of odd
    /// `y`, whose diagonal neighbours lie in the rows of the other half (the four classes of
    /// `(x mod 2, y mod 2)` colour the triangular lattice of even size).
    pub fn is_triangular(&self) -> bool {
        self.lattice().is_triangular()
    }

    /// Whether the lattice is the kagome lattice, the triangular one without its sites of odd
    /// `x` and odd `y` (the holes): one of the four classes of the triangular lattice's passes,
    /// which no pass updates ([`Self::pass_updates_row`]), and whose words no measurement
    /// counts ([`Self::is_hole`]).
    pub fn is_kagome(&self) -> bool {
        self.lattice().shape == Shape::Kagome
    }

    /// The halves a colour's rows update in: 2 on the triangular lattice, else 1.
    pub fn row_halves(&self) -> u32 {
        match self.is_triangular() {
            true => 2,
            false => 1,
        }
    }

    /// Update passes of a sweep: pass `pass` updates colour `pass mod 2`
    /// ([`Self::pass_colour`]), on the triangular lattice the rows of parity `pass / 2` of it
    /// ([`Self::pass_updates_row`]); the kernels take the pass as the dispatch's colour.
    pub fn sweep_passes(&self) -> u32 {
        ISING_PASSES * self.row_halves()
    }

    /// The colour that update pass `pass` updates.
    pub fn pass_colour(pass: u32) -> u32 {
        pass % ISING_PASSES
    }

    /// Whether the last pass of a sweep, colour 1's update, can count a swap round's satisfied
    /// bonds ([`TALLY_RUNS`]), and the GPU engines' first sweep after a round can make its
    /// exchange as it loads the words of two colour passes: where every bond joins the two
    /// colours, so that colour 1's bonds count each bond once. Not on the triangular lattice,
    /// whose diagonal bonds join sites of one colour, updated in two passes each; its rounds
    /// are counted by the observables kernel and exchanged by the exchange kernel.
    pub fn bonds_join_the_colours(&self) -> bool {
        !self.is_triangular()
    }

    /// Whether colour 1's update can tally a swap round's satisfied bonds ([`TALLY_RUNS`]):
    /// where every bond joins the two colours ([`Self::bonds_join_the_colours`]) and every site
    /// has all its bonds, the tally counting a site's satisfied bonds as `z` less its
    /// unsatisfied ones (not with an open axis, whose rounds the observables kernel counts).
    pub fn tallies_swap_rounds(&self) -> bool {
        self.bonds_join_the_colours() && self.open_axes() == 0
    }

    /// Whether the engines update pieces of a sweep ([`crate::engine::Step::Part`]), a pass on
    /// a range of planes: not on the triangular lattice, whose passes of half the rows the
    /// pieces' units (two passes of `L` planes a sweep) do not count.
    pub fn sweep_parts(&self) -> bool {
        !self.is_triangular()
    }

    /// Whether update pass `pass` updates stored row `row` of its colour: every row, but on
    /// the triangular lattice (2D, whole lattices: a row is `y`) those of parity `pass / 2`,
    /// and on the kagome lattice none of pass 2, colour 0's odd rows, whose sites sit at odd
    /// `x`: the holes ([`Self::holes_pass`]).
    pub fn pass_updates_row(&self, pass: u32, row: u32) -> bool {
        let halves = self.row_halves();
        row % halves == (pass / ISING_PASSES) % halves && !self.holes_pass(pass)
    }

    /// Whether update pass `pass` holds the kagome lattice's holes and updates nothing (the
    /// kernels return at once).
    pub fn holes_pass(&self, pass: u32) -> bool {
        self.is_kagome() && pass == HOLES_PASS
    }

    /// The threads of update pass `pass` on the own planes `planes`: the update's threads go
    /// row by row and a row's words are whole runs, so these are the threads of the pass's rows
    /// among [`Self::plane_rows_of`] (on the triangular lattice every other row, from the
    /// pass's half: thread row `r` is row `r halves + half`).
    pub fn plane_threads(&self, pass: u32, planes: Range<u32>) -> Range<u32> {
        let rows = self.plane_rows_of(planes);
        let (halves, half) = (self.row_halves(), (pass / ISING_PASSES) % self.row_halves());
        let pass_rows = |row: u32| (row + halves - 1 - half) / halves;
        let per_row = self.row_words() / self.word_run();
        pass_rows(rows.start) * per_row..pass_rows(rows.end) * per_row
    }

    /// The own rows on the own planes `planes` (a colour's rows go plane by plane): the rows a
    /// piece of a sweep updates ([`crate::engine::Step::Part`]), whole runs of words each.
    pub fn plane_rows_of(&self, planes: Range<u32>) -> Range<u32> {
        planes.start * self.plane_rows()..planes.end * self.plane_rows()
    }

    /// How many rotations the packed tail ([`Randoms::Packed`]) may give a word's undecided
    /// lanes to fit them beside those of the run's earlier words, by multiples of
    /// `32 / rotations` bits: four where every lane of a word has the same thresholds (a
    /// rotated lane then meets its own threshold planes), one (by 0) where lanes hold
    /// temperatures; 0 for the other randoms (no packing). With four, a run of four words
    /// leaves a word to its own blocks in about 3% of threads; eight rotations (0.5%) measured
    /// slower on the H100, their tests costing more than the blocks they save.
    pub fn pack_rotations(&self) -> u32 {
        match (self.randoms, self.layout) {
            (
                Randoms::Packed,
                Layout::Amsc {
                    lanes: Lanes::Temperatures,
                },
            ) => 1,
            (Randoms::Packed, _) => 4,
            _ => 0,
        }
    }
}

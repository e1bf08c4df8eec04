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

use rayon::prelude::*;

use crate::config::{Disorder, Lanes, Layout, MultispinOptions, Randoms};
use crate::engine::spins::SpinBits;
use crate::engine::{Betas, Measurements, Observation};
use crate::model::Lattice;
use crate::model::couplings::{antiferromagnetic_bonds, is_antiferromagnetic};
use crate::model::ising::{IsingSystems, SliceIndex, threshold};
use crate::threads;

/// Words a thread of the observables and overlap kernels walks at most where it walks several
/// lines (see [`MultispinLayout::line_run`]).
pub const MAX_STRIP_WORDS: u32 = 256;

/// Threads the observables and overlap kernels are given at least where shorter strips allow:
/// two waves of an H100 (132 SMs of 2048 threads) and more of smaller GPUs. With fewer, a
/// measurement waits on the memory latency of a few long strips (3D EA L = 16 with 2^16
/// replicas: 66 K threads of 8 lines, 103 us on the H100, docs/BENCHMARKS.md).
pub const MIN_STRIP_THREADS: u64 = 1 << 18;

/// Bits per spin word.
pub const LANES: u32 = 32;

/// Most energy categories: `2 (z + 1)` for `z = 6`.
pub const MAX_CATEGORIES: u32 = 14;

/// The class of a category that never raises the energy (its flips are always accepted).
pub const NO_CLASS: u32 = 15;

/// The observables kernel's constant (CUDA define and WGSL override alike): whether it counts
/// up spins; off for a swap round at zero field, whose decisions need the satisfied bonds alone.
pub const COUNT_UP: &str = "COUNT_UP";

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

/// Names of the update's compiled-in thresholds, one per energy class ([`MAX_CATEGORIES`] at
/// most): CUDA defines and WGSL override constants alike.
pub const THRESHOLD_CONSTANTS: [&str; MAX_CATEGORIES as usize] = [
    "THRESHOLD_0",
    "THRESHOLD_1",
    "THRESHOLD_2",
    "THRESHOLD_3",
    "THRESHOLD_4",
    "THRESHOLD_5",
    "THRESHOLD_6",
    "THRESHOLD_7",
    "THRESHOLD_8",
    "THRESHOLD_9",
    "THRESHOLD_10",
    "THRESHOLD_11",
    "THRESHOLD_12",
    "THRESHOLD_13",
];

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

/// A count or index within one word system, which the kernels hold in a `u32`; a validated
/// config keeps it below [`crate::config::MAX_MULTISPIN_WORDS`], so this only fails for a
/// layout built around the config's checks.
fn within_a_word_system(value: u64, what: &str) -> u32 {
    u32::try_from(value).unwrap_or_else(|_| {
        panic!("{what} of a word system: {value} exceeds the 32-bit indices of the kernels")
    })
}

/// The x-neighbour word that comes from the adjacent word: AMSC takes it as it is; SMSC shifts
/// `same` by one bit towards the neighbour, carrying in the end bit of `adjacent`.
pub fn shift_in(smsc: bool, same: u32, adjacent: u32, p: u32) -> u32 {
    match (smsc, p) {
        (false, _) => adjacent,
        (true, 0) => (same << 1) | (adjacent >> 31),
        (true, _) => (same >> 1) | (adjacent << 31),
    }
}

/// The even bits of `bits` (bit `2 j` to bit `j`): one colour's sites of 64 consecutive sites.
pub fn compact_even(bits: u64) -> u32 {
    let mut x = bits & 0x5555_5555_5555_5555;
    x = (x | x >> 1) & 0x3333_3333_3333_3333;
    x = (x | x >> 2) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x >> 4) & 0x00ff_00ff_00ff_00ff;
    x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
    x = (x | x >> 16) & 0x0000_0000_ffff_ffff;
    x as u32
}

/// The inverse of [`compact_even`]: bit `j` of `word` to bit `2 j`, the odd bits zero.
pub fn spread_even(word: u32) -> u64 {
    let mut x = u64::from(word);
    x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    x = (x | x << 1) & 0x5555_5555_5555_5555;
    x
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

    fn lanes(&self) -> Option<Lanes> {
        match self.layout {
            Layout::Amsc { lanes } => Some(lanes),
            Layout::Smsc => None,
        }
    }

    /// Number of word systems.
    pub fn word_systems(&self) -> u32 {
        self.temperature_words * self.sample_words * self.replica_words
    }

    /// Rows of one colour stored: `L^(d-1)`, and in a slab its planes' and the two halos'.
    pub fn rows(&self) -> u32 {
        let rows = u64::from(self.stored_planes()) * u64::from(self.plane_rows());
        within_a_word_system(rows, "rows")
    }

    /// Rows of one plane of the slowest axis: 1 in 2D (a plane is a row), `L` in 3D.
    pub fn plane_rows(&self) -> u32 {
        let lattice = self.lattice();
        within_a_word_system(u64::from(lattice.size).pow(lattice.dims - 2), "plane rows")
    }

    /// Planes of the slowest axis that this layout updates and measures: `L`, or a slab's
    /// (see [`Self::stored_planes`]).
    pub fn own_planes(&self) -> u32 {
        self.systems
            .slab
            .map_or(self.lattice().size, |slab| slab.planes)
    }

    /// Planes of the slowest axis stored: `L`; in a slab its `P` planes at `0 .. P`, the upper
    /// halo (the upper neighbour's first plane) at `P` and the lower halo (the lower
    /// neighbour's last plane) at `P + 1`. The slowest axis wraps modulo this, so the -1
    /// neighbour of plane 0 is the lower halo and the +1 neighbour of plane `P - 1` the upper
    /// one, and the other axes wrap as in the whole lattice. Slabs start at even planes and hold
    /// an even number, so every stored plane has the parity of its plane in the lattice.
    pub fn stored_planes(&self) -> u32 {
        self.systems
            .slab
            .map_or(self.lattice().size, |slab| slab.planes + 2)
    }

    /// Rows of one colour updated and measured: the own planes' (see [`Self::stored_planes`]).
    pub fn own_rows(&self) -> u32 {
        self.own_planes() * self.plane_rows()
    }

    /// Words of one colour updated and measured (the rest are halos).
    pub fn own_colour_words(&self) -> u32 {
        self.own_rows() * self.row_words()
    }

    /// The lattice's row of stored row 0: a slab's first plane's; 0 for whole lattices.
    pub fn row_offset(&self) -> u32 {
        self.systems.slab.map_or(0, |slab| slab.first) * self.plane_rows()
    }

    /// What the Philox counter's word index adds to a colour word's index here to make the
    /// lattice's (the run's) index of that word: the words of the planes before a slab.
    pub fn word_offset(&self) -> u32 {
        self.row_offset() * self.row_words()
    }

    /// `(y, z)` of stored row `row` (counted in the slab's planes in a slab).
    pub fn row_coords(&self, row: u32) -> (u32, u32) {
        let l = self.lattice().size;
        match self.lattice().dims {
            2 => (row, 0),
            _ => (row % l, row / l),
        }
    }

    /// The lattice's site of stored site `site` (`row L + x`): the same for whole lattices; in
    /// a slab, stored plane `q` is the lattice's plane `first + q`, the upper halo `first + P`
    /// and the lower halo `first - 1` (modulo `L`).
    pub fn lattice_site(&self, site: u64) -> u64 {
        let Some(slab) = self.systems.slab else {
            return site;
        };
        let lattice = self.lattice();
        let plane_sites = u64::from(lattice.size).pow(lattice.dims - 1);
        let (q, rest) = ((site / plane_sites) as u32, site % plane_sites);
        let plane = match q.checked_sub(slab.planes) {
            None | Some(0) => slab.first + q,
            Some(_) => slab.first + lattice.size - 1,
        } % lattice.size;
        u64::from(plane) * plane_sites + rest
    }

    /// The words of stored plane `plane` of `colour` of word system `g` in storage: the
    /// plane's rows, in order (the halo exchange's unit, see [`crate::engine::slabs`]).
    pub fn plane_words(&self, g: u32, colour: u32, plane: u32) -> std::ops::Range<usize> {
        let start = self.word_index(g, colour, plane * self.plane_rows(), 0);
        start..start + (self.plane_rows() * self.row_words()) as usize
    }

    /// Words per row of one colour.
    pub fn row_words(&self) -> u32 {
        let l = self.lattice().size;
        if self.smsc() { l / 64 } else { l / 2 }
    }

    /// Words of one colour of one word system (below 2^30 for a validated config: see
    /// [`crate::config::MAX_MULTISPIN_WORDS`]; 2^26 for the 65536^2 SMSC lattice).
    pub fn colour_words(&self) -> u32 {
        within_a_word_system(self.colour_words_u64(), "words of one colour")
    }

    fn colour_words_u64(&self) -> u64 {
        u64::from(self.rows()) * u64::from(self.row_words())
    }

    /// Spin words of one word system, both colours.
    pub fn system_words(&self) -> u64 {
        2 * self.colour_words_u64()
    }

    /// Spin words of every word system.
    pub fn words(&self) -> u64 {
        self.system_words() * u64::from(self.word_systems())
    }

    /// Samples per word system: 32 in lanes `Samples`, else 1.
    fn samples_per_word(&self) -> u32 {
        match self.lanes() {
            Some(Lanes::Samples) => LANES,
            _ => 1,
        }
    }

    /// The run's numbering of word systems `g = (tw Sw + sw) Rw + rw` where these systems are
    /// a sample slice: the run's `sw` is offset by the slice's first sample word (its first
    /// sample over 32 in lanes `Samples`), and `Sw` is the run's.
    pub fn word_slice_index(&self) -> SliceIndex {
        let per_word = self.samples_per_word();
        let s = &self.systems;
        SliceIndex {
            block: self.sample_words * self.replica_words,
            run_block: s.all_samples / per_word * self.replica_words,
            first: s.first_sample / per_word * self.replica_words,
        }
    }

    /// The run's index of word system `g`: the Philox batch of its Metropolis randoms.
    pub fn global_word_system(&self, g: u32) -> u32 {
        self.word_slice_index().global(g)
    }

    /// The system of lane `lane` of word system `g` (for SMSC every bit is the same system);
    /// `None` for an idle lane (lanes beyond the temperatures).
    pub fn lane_system(&self, g: u32, lane: u32) -> Option<u32> {
        let rw = g % self.replica_words;
        let sw = (g / self.replica_words) % self.sample_words;
        let tw = g / (self.replica_words * self.sample_words);
        let s = &self.systems;
        let (t, sample, r) = match self.lanes() {
            None => (tw, sw, rw),
            Some(Lanes::Samples) => (tw, sw * LANES + lane, rw),
            Some(Lanes::Temperatures) if lane >= s.betas.len() as u32 => return None,
            Some(Lanes::Temperatures) => (lane, sw, rw),
            Some(Lanes::Replicas) => (tw, sw, rw * LANES + lane),
        };
        Some(s.system(t, sample, r))
    }

    /// Where system `b` lives: its word system and lane (lane 0 for SMSC, whose word system is
    /// the whole system); the inverse of [`MultispinLayout::lane_system`].
    pub fn system_lane(&self, b: u32) -> (u32, u32) {
        let s = &self.systems;
        let (t, sample, r) = (
            s.temperature_of(b),
            (b / s.replicas) % s.samples,
            b % s.replicas,
        );
        let (tw, sw, rw, lane) = match self.lanes() {
            None => (t, sample, r, 0),
            Some(Lanes::Samples) => (t, sample / LANES, r, sample % LANES),
            Some(Lanes::Temperatures) => (0, sample, r, t),
            Some(Lanes::Replicas) => (t, sample, r / LANES, r % LANES),
        };
        let g = (tw * self.sample_words + sw) * self.replica_words + rw;
        (g, lane)
    }

    /// The Philox batch of every lane, `[g * 32 + lane]`: the run's index
    /// ([`IsingSystems::global_system`]) of [`Self::lane_system`] (SMSC: the word system's one
    /// system in every lane), `u32::MAX` for an idle lane. The hot start kernel reads it.
    pub fn lane_batches(&self) -> Vec<u32> {
        (0..self.word_systems())
            .flat_map(|g| {
                (0..LANES).map(move |lane| {
                    self.lane_system(g, lane)
                        .map_or(u32::MAX, |b| self.systems.global_system(b))
                })
            })
            .collect()
    }

    /// Systems (lanes) per word: 32 for AMSC, 1 for SMSC.
    pub fn systems_per_word(&self) -> u32 {
        if self.smsc() { 1 } else { LANES }
    }

    /// Coupling groups: 32 samples each with lanes = samples, else one per sample.
    pub fn coupling_groups(&self) -> u32 {
        match self.lanes() {
            Some(Lanes::Samples) => self.systems.samples / LANES,
            _ => self.systems.samples,
        }
    }

    /// The coupling group of word system `g`.
    pub fn coupling_group(&self, g: u32) -> u32 {
        (g / self.replica_words) % self.sample_words
    }

    /// Threshold tables: one for all words when lanes are temperatures, else one per
    /// temperature.
    pub fn tables(&self) -> u32 {
        self.temperature_words
    }

    /// The threshold table of word system `g`.
    pub fn table(&self, g: u32) -> u32 {
        g / (self.replica_words * self.sample_words)
    }

    /// Energy categories: `(spin up, unsatisfied bonds c)` as `up * (z + 1) + c`.
    pub fn categories(&self) -> u32 {
        2 * (self.lattice().coordination() + 1)
    }

    /// Energy change of flipping a spin of category `cat`: `dE = 2z - 4c + 2 h s`.
    fn category_delta_e(&self, cat: u32) -> f64 {
        let z = self.lattice().coordination();
        let (up, c) = (cat / (z + 1), cat % (z + 1));
        let spin = if up == 1 { 1.0 } else { -1.0 };
        f64::from(2 * z as i32 - 4 * c as i32) + 2.0 * self.systems.field * spin
    }

    /// The energy classes: the distinct positive energy changes, ascending. Only lanes in a
    /// category of some class need random numbers; categories of one class share a threshold
    /// (with `h = 0`, the up and down spins with `c` unsatisfied bonds).
    pub fn energy_classes(&self) -> Vec<f64> {
        let mut classes: Vec<f64> = (0..self.categories())
            .map(|cat| self.category_delta_e(cat))
            .filter(|&delta_e| delta_e > 0.0)
            .collect();
        classes.sort_by(f64::total_cmp);
        classes.dedup();
        classes
    }

    /// The class of each category, 4 bits per category (categories 0..8 in the first word, 8..14
    /// in the second); [`NO_CLASS`] for categories that never raise the energy.
    pub fn category_classes(&self) -> [u32; 2] {
        let classes = self.energy_classes();
        let mut packed = [0u32; 2];
        for cat in 0..MAX_CATEGORIES {
            let class = (cat < self.categories())
                .then(|| {
                    let delta_e = self.category_delta_e(cat);
                    classes.iter().position(|&c| c == delta_e)
                })
                .flatten()
                .map_or(NO_CLASS, |class| class as u32);
            packed[(cat / 8) as usize] |= class << (4 * (cat % 8));
        }
        packed
    }

    /// The inverse temperature of lane `lane` under table `table` (idle lanes run at the last
    /// temperature; their results are discarded).
    fn lane_beta(&self, table: u32, lane: u32) -> f64 {
        let betas = &self.systems.betas;
        match self.lanes() {
            Some(Lanes::Temperatures) => betas[(lane as usize).min(betas.len() - 1)],
            _ => betas[table as usize],
        }
    }

    /// The bit-sliced threshold tables that the updates read: per table, class 0's planes,
    /// then every other class's planes XOR class 0's. A lane of class `c` then has the threshold
    /// bits `T_0 ^ (m_c & D_c)` and, the class masks `m` being disjoint, every lane those of
    /// `T_0 ^ XOR_c (m_c & D_c)` over the classes from 1: one operation per class and plane, a
    /// class fewer than `OR_c (m_c & T_c)` (a lane of no class is decided before any plane, so
    /// its bits do not matter).
    pub fn threshold_tables(&self) -> Vec<u32> {
        let mut tables = self.class_thresholds();
        let table_len = self.energy_classes().len() * 32;
        for table in tables.chunks_mut(table_len.max(1)) {
            let (first, others) = table.split_at_mut(32);
            for planes in others.chunks_mut(32) {
                for (plane, first) in planes.iter_mut().zip(&*first) {
                    *plane ^= first;
                }
            }
        }
        tables
    }

    /// The bit-sliced thresholds per table, energy class and bit, each class's own. A flip is
    /// accepted iff the lane's uniform word `U <= t`, `t` as in [`threshold`].
    pub fn class_thresholds(&self) -> Vec<u32> {
        let classes = self.energy_classes();
        let mut tables = Vec::with_capacity(self.tables() as usize * classes.len() * 32);
        for table in 0..self.tables() {
            for &delta_e in &classes {
                let thresholds: Vec<u32> = (0..LANES)
                    .map(|lane| threshold(self.lane_beta(table, lane), delta_e))
                    .collect();
                tables.extend((0..32).map(|k| {
                    (0..LANES).fold(0u32, |word, lane| {
                        word | (thresholds[lane as usize] >> k & 1) << lane
                    })
                }));
            }
        }
        tables
    }

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
            (Disorder::Bimodal, Randoms::Packed) => 2,
            (Disorder::Bimodal, _) => 1,
            (Disorder::Ferromagnet, _) => 4,
        };
        let row_words = self.row_words();
        [4, 2, 1]
            .into_iter()
            .find(|&run| run <= most && row_words.is_multiple_of(run))
            .unwrap_or(1)
    }

    /// Threads of the update of one colour of one word system: one per run of words.
    pub fn update_threads(&self) -> u32 {
        self.own_colour_words() / self.word_run()
    }

    /// The update threads of the own planes `planes`: the update's threads go row by row and
    /// its rows plane by plane.
    pub fn plane_threads(&self, planes: std::ops::Range<u32>) -> std::ops::Range<u32> {
        let per_plane = self.plane_rows() * self.row_words() / self.word_run();
        planes.start * per_plane..planes.end * per_plane
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

    /// The thresholds the GPU updates are compiled with, one per energy class: where the betas
    /// stay fixed ([`Betas::Fixed`]) and the run has one table whose every lane has the same
    /// threshold (one temperature, lanes not holding temperatures). Each threshold plane then
    /// selects class masks at compile time; with changing betas a new beta stays a table write.
    pub fn fixed_thresholds(&self, betas: Betas) -> Option<Vec<u32>> {
        if betas == Betas::Changing {
            return None;
        }
        let tables = self.class_thresholds();
        let uniform = tables.iter().all(|&plane| plane == 0 || plane == u32::MAX);
        (self.tables() == 1 && uniform).then(|| {
            tables
                .chunks(32)
                .map(|planes| (0..32).fold(0u32, |t, k| t | u32::from(planes[k] != 0) << k))
                .collect()
        })
    }

    /// Index of word `w` of row `row`, colour `colour`, word system `g`.
    pub fn word_index(&self, g: u32, colour: u32, row: u32, w: u32) -> usize {
        let colour_words = self.colour_words() as usize;
        (g as usize * 2 + colour as usize) * colour_words
            + row as usize * self.row_words() as usize
            + w as usize
    }

    /// Calls `f(bit, system, site)` for every bit of word `w` of `row`, `colour` in word
    /// system `g`; idle lanes are skipped.
    pub(crate) fn for_each_bit(
        &self,
        g: u32,
        colour: u32,
        row: u32,
        w: u32,
        mut f: impl FnMut(u32, u32, u64),
    ) {
        let l = self.lattice().size;
        let (y, z) = self.row_coords(row);
        let p = (y + z + colour) & 1;
        let row_start = u64::from(row) * u64::from(l);
        for bit in 0..LANES {
            let (lane, x) = if self.smsc() {
                (0, 2 * (LANES * w + bit) + p)
            } else {
                (bit, 2 * w + p)
            };
            if let Some(system) = self.lane_system(g, lane) {
                f(bit, system, row_start + u64::from(x));
            }
        }
    }

    /// Calls `f(index, g, colour, row, w)` for every word of every word system (the tests'
    /// site-by-site references).
    #[cfg(test)]
    pub(crate) fn for_each_word(&self, mut f: impl FnMut(usize, u32, u32, u32, u32)) {
        for g in 0..self.word_systems() {
            for colour in 0..2 {
                for row in 0..self.rows() {
                    for w in 0..self.row_words() {
                        f(self.word_index(g, colour, row, w), g, colour, row, w);
                    }
                }
            }
        }
    }

    /// Pack the lattices into spin words (bit 1 = up). Idle lanes copy nothing and stay down.
    /// Rows are packed in parallel; SMSC rows take 64 sites at a time (see [`Self::smsc_row`]).
    pub fn pack(&self, spins: &SpinBits) -> Vec<u32> {
        let rows = self.rows() as usize;
        let mut words = vec![0u32; self.words() as usize];
        words
            .par_chunks_mut(self.row_words() as usize)
            .enumerate()
            .for_each(|(i, row_words)| {
                let (g, colour, row) = (
                    (i / (2 * rows)) as u32,
                    ((i / rows) % 2) as u32,
                    (i % rows) as u32,
                );
                if row >= self.own_rows() {
                    return;
                }
                if self.smsc() {
                    let (start, p) = self.smsc_row(g, colour, row);
                    for (w, word) in row_words.iter_mut().enumerate() {
                        let bits = spins.bits_at(start + 64 * w as u64, 64);
                        *word = compact_even(bits >> p);
                    }
                    return;
                }
                for (w, word) in row_words.iter_mut().enumerate() {
                    self.for_each_bit(g, colour, row, w as u32, |bit, system, site| {
                        if spins.up(system, site) {
                            *word |= 1 << bit;
                        }
                    });
                }
            });
        words
    }

    /// The lattices held in spin words, converted in parallel chunks of 64 spins: SMSC
    /// interleaves the two colours' words of a row segment, AMSC gathers each spin's lane.
    pub fn unpack(&self, words: &[u32]) -> SpinBits {
        let mut spins = SpinBits::for_systems(&self.systems);
        let n = self.systems.held_sites();
        let total = spins.len();
        spins
            .words_mut()
            .par_iter_mut()
            .enumerate()
            .for_each(|(k, out)| {
                let start = 64 * k as u64;
                if self.smsc() {
                    *out = self.smsc_segment(words, start);
                    return;
                }
                let mut located = (u32::MAX, (0, 0));
                for j in 0..(total - start).min(64) {
                    let (system, site) = ((start + j) / n, (start + j) % n);
                    let system = system as u32;
                    if located.0 != system {
                        located = (system, self.system_lane(system));
                    }
                    let (g, lane) = located.1;
                    let [x, y, z] = self.lattice().coords(site);
                    let row = z * self.lattice().size + y;
                    let word = words[self.word_index(g, (x + y + z) & 1, row, x / 2)];
                    *out |= u64::from(word >> lane & 1) << j;
                }
            });
        spins
    }

    /// For SMSC: the run bit of the first site of row `row` of system `g` (a word system is one
    /// system), and the parity `p` of the sites of `colour` in it. Word `w` of the colour holds
    /// the sites `x = 2 (32 w + j) + p`, so the 64 run bits from `start + 64 w` hold its bits at
    /// every other position from `p`. Rows hold a multiple of 64 sites.
    fn smsc_row(&self, g: u32, colour: u32, row: u32) -> (u64, u32) {
        let (y, z) = self.row_coords(row);
        let start = u64::from(g) * self.systems.held_sites()
            + u64::from(row) * u64::from(self.lattice().size);
        (start, (y + z + colour) & 1)
    }

    /// For SMSC: the 64 run bits from `start` (a multiple of 64), interleaved from the two
    /// colours' words of their row segment.
    fn smsc_segment(&self, words: &[u32], start: u64) -> u64 {
        let held = self.systems.held_sites();
        let (g, site) = (start / held, start % held);
        let l = u64::from(self.lattice().size);
        let (row, w) = ((site / l) as u32, (site % l / 64) as u32);
        let (y, z) = self.row_coords(row);
        let even_colour = (y + z) & 1;
        let even = words[self.word_index(g as u32, even_colour, row, w)];
        let odd = words[self.word_index(g as u32, even_colour ^ 1, row, w)];
        spread_even(even) | spread_even(odd) << 1
    }

    /// The coupling words of every group (empty for the ferromagnet): bit 1 marks an
    /// antiferromagnetic forward bond. A sample's bonds are drawn by its index in the run.
    pub fn coupling_words(&self) -> Vec<u32> {
        let s = &self.systems;
        if s.disorder == Disorder::Ferromagnet {
            return Vec::new();
        }
        let lattice = self.lattice();
        let dims = lattice.dims;
        let bonds: Vec<Vec<u32>> = (0..s.samples)
            .into_par_iter()
            .map(|sample| {
                antiferromagnetic_bonds(s.disorder, &lattice, s.seed, s.global_sample(sample))
            })
            .collect();
        let rows = self.rows() as usize;
        let colour_words = self.colour_words() as usize;
        let mut words =
            vec![0u32; self.coupling_groups() as usize * dims as usize * 2 * colour_words];
        // Rows in parallel; the first word system of each group stands for the group (same
        // samples, same sites).
        words
            .par_chunks_mut(self.row_words() as usize)
            .enumerate()
            .for_each(|(i, row_words)| {
                let (row, colour) = ((i % rows) as u32, ((i / rows) % 2) as u32);
                let (d, group) = (
                    (i / (2 * rows)) as u32 % dims,
                    (i / (2 * rows)) as u32 / dims,
                );
                for (w, word) in row_words.iter_mut().enumerate() {
                    let g = group * self.replica_words;
                    self.for_each_bit(g, colour, row, w as u32, |bit, system, site| {
                        let sample = (system / s.replicas) % s.samples;
                        let bond = self.lattice_site(site) * u64::from(dims) + u64::from(d);
                        if is_antiferromagnetic(&bonds[sample as usize], bond) {
                            *word |= 1 << bit;
                        }
                    });
                }
            });
        words
    }

    /// Word-system pairs whose overlap is measured: `(g, g + replica_words / 2)` for
    /// `rw < replica_words / 2`, numbered `(tw * sample_words + sw) * (replica_words / 2) + rw`.
    pub fn overlap_word_pairs(&self) -> Vec<(u32, u32)> {
        if self.systems.overlap_pairs() == 0 {
            return Vec::new();
        }
        let (words, half) = (self.replica_words, self.replica_words / 2);
        (0..self.temperature_words * self.sample_words)
            .flat_map(|ts| (0..half).map(move |rw| (ts * words + rw, ts * words + rw + half)))
            .collect()
    }

    /// Per-plane slots of one word pair's overlap counts: `L` planes x lanes (AMSC) or `L`
    /// planes (SMSC).
    pub fn overlap_slots(&self) -> u32 {
        self.lattice().size * self.systems_per_word()
    }

    /// u32 counts per overlap word pair, `[2][overlap slot]`: the sites where the two replicas
    /// differ, then the forward bonds of those sites whose two ends differ differently (the link
    /// overlap's `q_i q_j = -1`). Per plane, so that each count fits a u32 where a whole
    /// lattice's `d N` bonds would not.
    pub fn pair_counts(&self) -> u32 {
        2 * self.overlap_slots()
    }

    /// The overlap slot of bit `j` of a word at `w`, parity `p`: lane `j` and plane `x = 2w + p`
    /// (AMSC) or plane `x = 2(32 w + j) + p` (SMSC). Lane-major, so that the `L` planes of one
    /// overlap are contiguous, in the order of [`Measurements::overlap_planes`].
    pub fn overlap_slot(&self, w: u32, p: u32, j: u32) -> u32 {
        if self.smsc() {
            2 * (LANES * w + j) + p
        } else {
            j * self.lattice().size + 2 * w + p
        }
    }

    /// A plan's [`Measurements`] from what every backend's kernels count: per-word observations
    /// `[slot][g][lane]` (up, satisfied) and per-pair overlap counts `[slot][pair][pair count]`
    /// (see [`pair_counts`](Self::pair_counts); empty without overlap pairs).
    pub fn measurements(
        &self,
        per_word: &[[u64; 2]],
        per_pair: &[u32],
        slots: u32,
    ) -> Measurements {
        let mut measurements = self.measurements_for(slots);
        self.fill_slots(&mut measurements, 0, per_word, per_pair);
        measurements
    }

    /// [`Measurements`] of `slots` slots, zero, for [`fill_slots`](Self::fill_slots) to fill:
    /// a plan's read back batch by batch is allocated once, as zeroed memory whose pages each
    /// fill touches first (`vec!` of a struct would write them all at once, on one thread), in
    /// huge pages where the system gives them ([`advise_huge_pages`]).
    pub fn measurements_for(&self, slots: u32) -> Measurements {
        let slots = slots as usize;
        let overlaps = slots * self.systems.overlaps() as usize;
        let measurements = Measurements {
            observations: bytemuck::zeroed_vec(slots * self.systems.systems() as usize),
            overlap_planes: vec![0; overlaps * self.lattice().size as usize],
            link_overlaps: vec![0; overlaps],
            ..Measurements::default()
        };
        advise_huge_pages(&measurements.observations);
        advise_huge_pages(&measurements.overlap_planes);
        advise_huge_pages(&measurements.link_overlaps);
        measurements
    }

    /// Fill the slots from `first` on of `into` ([`measurements_for`](Self::measurements_for))
    /// with the counts of those slots, as [`measurements`](Self::measurements) reads them;
    /// returns how many slots the counts held.
    pub fn fill_slots(
        &self,
        into: &mut Measurements,
        first: u32,
        per_word: &[[u64; 2]],
        per_pair: &[u32],
    ) -> u32 {
        let systems = self.systems.systems() as usize;
        let slots = per_word.len() / (self.word_systems() as usize * LANES as usize);
        let observations = &mut into.observations[first as usize * systems..][..slots * systems];
        self.systems_of_words_into(per_word, observations);
        let overlaps = first as usize * self.systems.overlaps() as usize;
        let planes = &mut into.overlap_planes[overlaps * self.lattice().size as usize..];
        let links = &mut into.link_overlaps[overlaps..];
        self.overlaps_of_pairs(per_pair, slots, planes, links);
        slots as u32
    }

    /// Reorder per-word observations `[slot][g][lane]` (up, satisfied) into per-system ones
    /// `[slot][system]`; SMSC sums the 32 site lanes of its one system.
    pub fn systems_of_words(&self, per_word: &[[u64; 2]], slots: u32) -> Vec<Observation> {
        let mut observations =
            bytemuck::zeroed_vec(slots as usize * self.systems.systems() as usize);
        self.systems_of_words_into(per_word, &mut observations);
        observations
    }

    /// [`systems_of_words`](Self::systems_of_words) into `observations`, as many slots as it
    /// holds. Each system gathers its own lane, so systems fill in parallel within a slot too: a
    /// population anneal measures 2^20 systems in one slot per step.
    fn systems_of_words_into(&self, per_word: &[[u64; 2]], observations: &mut [Observation]) {
        let systems = self.systems.systems() as usize;
        let words = self.word_systems() as usize * LANES as usize;
        threads::for_chunks(observations, 1, |i, observation| {
            let (slot, b) = (i / systems, i % systems);
            let (g, lane) = self.system_lane(b as u32);
            let lanes = &per_word[slot * words + g as usize * LANES as usize..][..LANES as usize];
            let [up, satisfied] = match self.smsc() {
                true => lanes
                    .iter()
                    .fold([0, 0], |sum, c| [sum[0] + c[0], sum[1] + c[1]]),
                false => lanes[lane as usize],
            };
            observation[0] = Observation { up, satisfied };
        });
    }

    /// Reorder per-pair counts `[slot][pair][sites, bonds][overlap slot]` of `slots` slots into
    /// the differing sites `[slot][overlap][x]` (`planes`) and the differing bonds summed over
    /// the planes `[slot][overlap]` (`links`), overlaps numbered as [`IsingSystems::overlaps`].
    /// An overlap's `L` planes are contiguous in the counts (lane-major overlap slots), so each
    /// overlap copies one run of sites and sums one run of bonds, in parallel like
    /// [`systems_of_words`](Self::systems_of_words).
    fn overlaps_of_pairs(
        &self,
        per_pair: &[u32],
        slots: usize,
        planes: &mut [u32],
        links: &mut [u64],
    ) {
        let l = self.lattice().size as usize;
        let overlaps = self.systems.overlaps() as usize;
        let per_word = self.pair_counts() as usize;
        let bonds = self.overlap_slots() as usize;
        let pair_counts = self.overlap_word_pairs().len() * per_word;
        if pair_counts == 0 {
            // Overlap pairs within one word (AMSC lanes with fewer than 64 replicas, which the
            // config refuses for the spin glass) have no word pairs: nothing was counted, the
            // planes and links stay zero.
            return;
        }
        // The sites of overlap `i mod overlaps` at slot `i / overlaps`: its lane's run of planes,
        // and the bonds `bonds` further.
        let sites_of = |i: usize| {
            let (slot, o) = (i / overlaps, i % overlaps);
            let (pw, lane) = self.overlap_source(o as u32);
            let first = slot * pair_counts + pw * per_word + self.overlap_slot(0, 0, lane) as usize;
            first..first + l
        };
        threads::join(
            slots * overlaps * l,
            || {
                threads::for_chunks(&mut planes[..slots * overlaps * l], l, |i, planes| {
                    planes.copy_from_slice(&per_pair[sites_of(i)]);
                })
            },
            || {
                threads::for_chunks(&mut links[..slots * overlaps], 1, |i, link| {
                    let sites = sites_of(i);
                    let bonds = &per_pair[sites.start + bonds..sites.end + bonds];
                    link[0] = bonds.iter().map(|&b| u64::from(b)).sum();
                })
            },
        );
    }

    /// Where overlap `o = (t S + s) P + p` is counted: the word pair and the lane of its first
    /// replica, system `(t S + s) R + p` (pair `(g, g + replica_words / 2)` is number
    /// `g / replica_words * replica_words / 2 + g mod replica_words`, as
    /// [`overlap_word_pairs`](Self::overlap_word_pairs) numbers them).
    fn overlap_source(&self, o: u32) -> (usize, u32) {
        let s = &self.systems;
        let (ts, p) = (o / s.overlap_pairs(), o % s.overlap_pairs());
        let (g, lane) = self.system_lane(ts * s.replicas + p);
        let (words, half) = (self.replica_words, self.replica_words / 2);
        ((g / words * half + g % words) as usize, lane)
    }
}

/// Ask Linux to back the whole 2 MiB pages within `items` (memory not yet touched) with huge
/// pages, where transparent huge pages are enabled for such advice: a plan's measurements can be
/// gigabytes (3D spin glass at L = 16, 65536 systems, 819 slots: 2.5 GB), whose 4 KiB pages cost
/// a fault each as they fill and their unmapping when the caller drops them. With the advice
/// that plan's time outside its kernels fell from 96 ms to 12 ms of 1.4 s on an H100 machine.
/// It changes no contents; elsewhere it is a no-op.
fn advise_huge_pages<T>(items: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = items.as_ptr() as usize;
        let first = start.next_multiple_of(HUGE);
        let end = (start + std::mem::size_of_val(items)) / HUGE * HUGE;
        if end > first {
            #[allow(unsafe_code, reason = "madvise is a libc call")]
            // SAFETY: [first, end) lies within `items`' allocation, which outlives the call;
            // MADV_HUGEPAGE only changes how the kernel backs the pages, never their contents,
            // and a refusal (no THP) leaves them as they were.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = items;
}

/// A plan's measurements as a GPU engine reads them back, batch by batch while the device runs
/// the next: filled up to slot `slots` of the plan's `total`, with the time spent on the host.
#[derive(Debug, Default)]
pub struct SlotsRead {
    pub slots: u32,
    total: u32,
    /// Sized for the plan at the first fill (a plan read as histograms allocates none).
    measurements: Measurements,
    downloading: std::time::Duration,
    reordering: std::time::Duration,
    /// Slots read while the device ran later batches.
    beside: u32,
}

impl SlotsRead {
    /// Nothing read yet of a plan of `total` slots.
    pub fn new(total: u32) -> Self {
        SlotsRead {
            total,
            ..SlotsRead::default()
        }
    }

    /// Fill the slots from `self.slots` on with their counts (see
    /// [`MultispinLayout::measurements`]), downloaded in `downloading`.
    pub fn fill(
        &mut self,
        layout: &MultispinLayout,
        per_word: &[[u64; 2]],
        per_pair: &[u32],
        downloading: std::time::Duration,
    ) {
        let started = std::time::Instant::now();
        if self.slots == 0 {
            self.measurements = layout.measurements_for(self.total);
        }
        let into = &mut self.measurements;
        self.slots += layout.fill_slots(into, self.slots, per_word, per_pair);
        self.downloading += downloading;
        self.reordering += started.elapsed();
    }

    /// The slots filled so far were read beside the device's work.
    pub fn mark_beside(&mut self) {
        self.beside = self.slots;
    }

    /// The measurements, once every slot is filled; `backend` names the engine in the log.
    pub fn finish(self, backend: &str) -> Measurements {
        log::debug!(
            "{backend} multispin: {} measurements downloaded in {:.1} ms, reordered in {:.1} ms \
             ({} of them beside the kernels)",
            self.slots,
            self.downloading.as_secs_f64() * 1e3,
            self.reordering.as_secs_f64() * 1e3,
            self.beside,
        );
        self.measurements
    }
}

/// Where a word of one colour sits and where its neighbours are; twin of
/// `shaders/wgsl/multispin_lattice.wgsl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordSite {
    pub row: u32,
    pub w: u32,
    /// `x` offset of the colour in this row: `(y + z + colour) mod 2`.
    pub p: u32,
    /// The adjacent word that supplies the shifted x-neighbour: `w - 1` (p = 0) or `w + 1`.
    pub adjacent: u32,
    /// Rows of the -y and -z neighbours (the z entry is unused in 2D).
    pub minus_rows: [u32; 2],
    /// Rows of the +y and +z neighbours.
    pub plus_rows: [u32; 2],
}

impl MultispinLayout {
    /// The site of word `w` in row `row` of colour `colour`.
    pub fn word_site(&self, colour: u32, row: u32, w: u32) -> WordSite {
        let l = self.lattice().size;
        let wr = self.row_words();
        let (y, z) = self.row_coords(row);
        let p = (y + z + colour) & 1;
        // The slowest axis wraps over the stored planes (a slab's halos), the others over L.
        let (y_size, z_size) = match self.lattice().dims {
            2 => (self.stored_planes(), 1),
            _ => (l, self.stored_planes()),
        };
        let wrap = |v: u32, step: i32, size: u32| (v as i32 + step).rem_euclid(size as i32) as u32;
        let layer = z * l;
        let plane = |zz: u32| zz * l + y;
        WordSite {
            row,
            w,
            p,
            adjacent: if p == 0 {
                (w + wr - 1) % wr
            } else {
                (w + 1) % wr
            },
            minus_rows: [layer + wrap(y, -1, y_size), plane(wrap(z, -1, z_size))],
            plus_rows: [layer + wrap(y, 1, y_size), plane(wrap(z, 1, z_size))],
        }
    }

    /// The site visited at step `y` of line `line`: lines run along y with fixed
    /// `(z, w, p)`, `line = (z * row_words + w) * 2 + p`; returns the colour and the site.
    pub fn line_site(&self, line: u32, y: u32) -> (u32, WordSite) {
        let (z, w, p) = self.line_position(line);
        let colour = (p + y + z) & 1;
        (
            colour,
            self.word_site(colour, z * self.lattice().size + y, w),
        )
    }

    /// The sites a strip walks, in order: lines `strip + r * strips()` for `r` below
    /// [`line_run`](Self::line_run), each along y (see [`line_site`](Self::line_site)).
    pub fn strip_sites(&self, strip: u32) -> impl Iterator<Item = (u32, WordSite)> + '_ {
        let size = self.line_length();
        (0..self.line_run()).flat_map(move |r| {
            let line = strip + r * self.strips();
            (0..size).map(move |y| self.line_site(line, y))
        })
    }

    /// `(z, w, p)` of line `line`.
    pub fn line_position(&self, line: u32) -> (u32, u32, u32) {
        (
            (line >> 1) / self.row_words(),
            (line >> 1) % self.row_words(),
            line & 1,
        )
    }

    /// Lines per word system (see [`line_site`](Self::line_site)): of the own planes in a slab.
    pub fn lines(&self) -> u32 {
        let planes = u64::from(self.own_rows() / self.line_length());
        within_a_word_system(planes * u64::from(self.row_words()) * 2, "lines")
    }

    /// Sites of a line (steps along y): `L`, or in 2D a slab's planes (y is its slowest axis).
    pub fn line_length(&self) -> u32 {
        match self.lattice().dims {
            2 => self.own_planes(),
            _ => self.lattice().size,
        }
    }

    /// Lines each thread of the observables and overlap kernels walks: `line_run` lines of one
    /// `(w, p)` (so of one x-plane), `strips()` lines apart. Walking several lines amortises each
    /// thread's tail (extracting 32 lane counts and adding them up, for the overlaps with global
    /// atomics per x-plane and lane): up to 8 lines of at most [`MAX_STRIP_WORDS`] words, fewer
    /// where the longest runs would leave the kernels fewer than [`MIN_STRIP_THREADS`] threads,
    /// and 1 in 2D, where lines are whole x-planes.
    pub fn line_run(&self) -> u32 {
        let size = self.line_length();
        let planes = self.lines() / (2 * self.row_words());
        let lines = u64::from(self.lines()) * u64::from(self.word_systems());
        let runs: Vec<u32> = [8, 4, 2]
            .into_iter()
            .filter(|&run| planes.is_multiple_of(run) && run * size <= MAX_STRIP_WORDS)
            .collect();
        let enough_threads = |run: u32| lines / u64::from(run) >= MIN_STRIP_THREADS;
        (runs.iter().copied().find(|&run| enough_threads(run)))
            .or(runs.last().copied())
            .unwrap_or(1)
    }

    /// Strips per word system: groups of [`line_run`](Self::line_run) lines, one per thread.
    pub fn strips(&self) -> u32 {
        self.lines() / self.line_run()
    }

    /// The `-x` and `+x` neighbours of the word at `site`, from the other colour's `words`:
    /// one is the word at `w`, the other comes from the adjacent word (twin of `x_neighbours`
    /// in `multispin_lattice.wgsl`).
    pub fn x_neighbours(&self, words: &[u32], site: &WordSite) -> [u32; 2] {
        let row = (site.row * self.row_words()) as usize;
        let same = words[row + site.w as usize];
        let shifted = shift_in(
            self.smsc(),
            same,
            words[row + site.adjacent as usize],
            site.p,
        );
        if site.p == 0 {
            [shifted, same]
        } else {
            [same, shifted]
        }
    }

    /// The neighbours in directions `-d` and `+d` of the word at `site`, from the other
    /// colour's `words`.
    pub fn neighbours(&self, words: &[u32], site: &WordSite, d: u32) -> [u32; 2] {
        let wr = self.row_words();
        let at = |row: u32| words[(row * wr + site.w) as usize];
        match d {
            0 => self.x_neighbours(words, site),
            _ => [
                at(site.minus_rows[d as usize - 1]),
                at(site.plus_rows[d as usize - 1]),
            ],
        }
    }

    /// The coupling words of group `group`, direction `d`, colour `colour` (empty for the
    /// ferromagnet).
    pub fn bond_array<'a>(
        &self,
        couplings: &'a [u32],
        group: u32,
        d: u32,
        colour: u32,
    ) -> &'a [u32] {
        if couplings.is_empty() {
            return &[];
        }
        let colour_words = self.colour_words() as usize;
        let dims = self.lattice().dims as usize;
        let array = (group as usize * dims + d as usize) * 2 + colour as usize;
        &couplings[array * colour_words..][..colour_words]
    }
}

/// Layouts for the tests of the multispin engine: every lane meaning and both layouts, 2D and
/// 3D, the spin glass with overlaps.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    pub fn layout(
        dims: u32,
        size: u32,
        layout: Layout,
        samples: u32,
        replicas: u32,
        betas: usize,
    ) -> MultispinLayout {
        let betas = (0..betas).map(|i| 0.2 + 0.01 * i as f64).collect();
        let lattice = Lattice::new(dims, size);
        let systems = IsingSystems::spin_glass(lattice, 0.1, betas, samples, replicas, 3);
        MultispinLayout::new(
            systems,
            MultispinOptions {
                layout,
                randoms: Randoms::Exact,
            },
        )
    }

    pub fn all_layouts() -> Vec<MultispinLayout> {
        vec![
            layout(
                2,
                6,
                Layout::Amsc {
                    lanes: Lanes::Samples,
                },
                64,
                2,
                2,
            ),
            layout(
                3,
                4,
                Layout::Amsc {
                    lanes: Lanes::Temperatures,
                },
                3,
                2,
                5,
            ),
            layout(
                2,
                4,
                Layout::Amsc {
                    lanes: Lanes::Replicas,
                },
                2,
                64,
                1,
            ),
            layout(2, 64, Layout::Smsc, 2, 2, 2),
            layout(3, 64, Layout::Smsc, 1, 2, 1),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{all_layouts, layout};
    use super::*;
    use crate::model::couplings::coupling_values;

    /// Observation threads walk up to 8 lines of one x-plane, at most MAX_STRIP_WORDS words,
    /// and the strips cover every line once.
    #[test]
    fn strips_walk_whole_lines_of_one_plane() {
        let samples = Layout::Amsc {
            lanes: Lanes::Samples,
        };
        // (dims, L, layout, samples, line run): enough samples for the longest runs' threads,
        // then too few, so that shorter runs give more threads.
        for (dims, size, layout, samples, run) in [
            (3, 32, samples, 32 * 2048, 8),
            (3, 32, samples, 32 * 512, 4),
            (3, 32, samples, 32, 2),
            (3, 16, samples, 32 * 8192, 8),
            (3, 16, samples, 32 * 1024, 2),
            (3, 64, samples, 32 * 1024, 4),
            (3, 6, samples, 32, 2),
            (3, 128, Layout::Smsc, 32, 2),
            (2, 64, samples, 32, 1),
            (2, 4096, Layout::Smsc, 32, 1),
        ] {
            let l = fixtures::layout(dims, size, layout, samples, 2, 1);
            assert_eq!(
                l.line_run(),
                run,
                "{dims}D L={size} {layout:?} {samples} samples"
            );
            assert_eq!(l.strips() * l.line_run(), l.lines());
            assert!(l.line_run() == 1 || l.line_run() * size <= MAX_STRIP_WORDS);
            assert_eq!(l.strips() % (2 * l.row_words()), 0);
        }
    }

    #[test]
    fn every_system_site_is_one_bit_and_pack_round_trips() {
        for layout in all_layouts() {
            let n = layout.systems.spin_count();
            let signs: Vec<i32> = (0..n)
                .map(|i| if (i * 7919) % 13 < 6 { 1 } else { -1 })
                .collect();
            let spins =
                SpinBits::from_signs(layout.systems.systems(), layout.lattice().sites(), &signs);
            let words = layout.pack(&spins);
            assert_eq!(words.len() as u64, layout.words());
            assert_eq!(layout.unpack(&words), spins, "{:?}", layout.layout);
            let mut seen = vec![0u8; n];
            layout.for_each_word(|index, g, colour, row, w| {
                layout.for_each_bit(g, colour, row, w, |bit, system, site| {
                    let [x, y, z] = layout.lattice().coords(site);
                    assert_eq!((x + y + z) % 2, colour);
                    assert_eq!(words[index] >> bit & 1 == 1, spins.up(system, site));
                    seen[(u64::from(system) * layout.lattice().sites() + site) as usize] += 1;
                });
            });
            assert!(seen.iter().all(|&c| c == 1), "{:?}", layout.layout);
        }
    }

    /// A slice's word system `g` holds in each lane the run's system that the run's word system
    /// `global_word_system(g)` holds there, and its coupling groups are the run's.
    #[test]
    fn slices_number_word_systems_and_couplings_as_the_run_does() {
        for (lanes, samples, replicas, slice) in [
            (Some(Lanes::Samples), 96, 2, (32, 64)),
            (Some(Lanes::Replicas), 5, 64, (2, 2)),
            (Some(Lanes::Temperatures), 5, 2, (1, 3)),
            (None, 5, 2, (3, 2)),
        ] {
            let layout = match lanes {
                Some(lanes) => Layout::Amsc { lanes },
                None => Layout::Smsc,
            };
            // SMSC packs 64 sites of a row in a word.
            let size = if lanes.is_none() { 64 } else { 4 };
            let systems = IsingSystems::spin_glass(
                Lattice::new(2, size),
                0.0,
                vec![0.3, 0.4, 0.5],
                samples,
                replicas,
                3,
            );
            let options = MultispinOptions {
                layout,
                randoms: Randoms::Exact,
            };
            let run = MultispinLayout::new(systems.clone(), options);
            let part = MultispinLayout::new(systems.sample_slice(slice.0, slice.1), options);
            for g in 0..part.word_systems() {
                let global = part.global_word_system(g);
                for lane in 0..LANES {
                    let mine = part
                        .lane_system(g, lane)
                        .map(|b| part.systems.global_system(b));
                    assert_eq!(mine, run.lane_system(global, lane), "{layout:?} g = {g}");
                }
            }
            let group_words = part.coupling_words().len() / part.coupling_groups() as usize;
            let first_group = run.coupling_group(part.global_word_system(0)) as usize;
            assert_eq!(
                part.coupling_words(),
                run.coupling_words()[first_group * group_words..][..part.coupling_words().len()],
                "{layout:?}"
            );
        }
    }

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

    #[test]
    fn coupling_words_hold_each_sample_bond() {
        for layout in all_layouts() {
            let words = layout.coupling_words();
            let lattice = layout.lattice();
            let dims = lattice.dims;
            let s = &layout.systems;
            let values: Vec<Vec<i8>> = (0..s.samples)
                .map(|sample| coupling_values(s.disorder, &lattice, s.seed, sample))
                .collect();
            for g in 0..layout.word_systems() {
                let group = layout.coupling_group(g);
                for d in 0..dims {
                    for colour in 0..2 {
                        for row in 0..layout.rows() {
                            for w in 0..layout.row_words() {
                                let word = words[((group * dims + d) * 2 + colour) as usize
                                    * layout.colour_words() as usize
                                    + (row * layout.row_words() + w) as usize];
                                layout.for_each_bit(g, colour, row, w, |bit, system, site| {
                                    let sample = (system / s.replicas) % s.samples;
                                    let j = values[sample as usize]
                                        [(site * u64::from(dims) + u64::from(d)) as usize];
                                    assert_eq!(word >> bit & 1 == 1, j < 0);
                                });
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn threshold_tables_hold_each_lane_threshold() {
        let layout = layout(
            3,
            4,
            Layout::Amsc {
                lanes: Lanes::Temperatures,
            },
            1,
            1,
            5,
        );
        let tables = layout.class_thresholds();
        let relative = layout.threshold_tables();
        // h = 0.1 in 3D: dE = 12 -+ 0.2, 8 -+ 0.2, 4 -+ 0.2 (c = 0, 1, 2) and 0.2 (c = 3, up).
        let classes = layout.energy_classes();
        assert_eq!(classes, vec![0.2, 3.8, 4.2, 7.8, 8.2, 11.8, 12.2]);
        assert_eq!(tables.len(), classes.len() * 32);
        for (class, &delta_e) in classes.iter().enumerate() {
            for lane in 0..32u32 {
                let t = (0..32).fold(0u32, |t, k| {
                    t | (tables[class * 32 + k as usize] >> lane & 1) << k
                });
                let beta = 0.2 + 0.01 * f64::from(lane.min(4));
                assert_eq!(t, threshold(beta, delta_e), "class {class} lane {lane}");
            }
            for k in 0..32 {
                let first = if class == 0 { 0 } else { tables[k] };
                assert_eq!(relative[class * 32 + k], tables[class * 32 + k] ^ first);
            }
        }
        let packed = layout.category_classes();
        let class_of = |cat: u32| packed[(cat / 8) as usize] >> (4 * (cat % 8)) & 15;
        for cat in 0..14 {
            let delta_e = layout.category_delta_e(cat);
            match class_of(cat) {
                NO_CLASS => assert!(delta_e <= 0.0, "cat {cat}"),
                class => assert_eq!(classes[class as usize], delta_e, "cat {cat}"),
            }
        }
        let zero_field = MultispinLayout::new(
            IsingSystems {
                field: 0.0,
                ..layout.systems.clone()
            },
            MultispinOptions {
                layout: layout.layout,
                randoms: Randoms::Exact,
            },
        );
        assert_eq!(
            zero_field.energy_classes(),
            vec![4.0, 8.0, 12.0],
            "spins share classes at h = 0"
        );
    }

    fn ferromagnet_layout(dims: u32, size: u32, layout: Layout, replicas: u32) -> MultispinLayout {
        let systems =
            IsingSystems::ferromagnet(Lattice::new(dims, size), 0.0, vec![0.44], replicas, 1);
        let randoms = Randoms::Exact;
        MultispinLayout::new(systems, MultispinOptions { layout, randoms })
    }

    /// The benchmark target, 65536^2 = 2^32 sites with SMSC, without allocating it: sizes,
    /// word indices and site numbers past `u32`.
    #[test]
    fn index_arithmetic_holds_at_65536_squared_smsc() {
        let layout = ferromagnet_layout(2, 65536, Layout::Smsc, 64);
        let n = layout.lattice().sites();
        assert_eq!(n, 1 << 32);
        assert_eq!(layout.systems.spin_count() as u64, 64 << 32);
        assert_eq!((layout.rows(), layout.row_words()), (65536, 1024));
        assert_eq!(layout.colour_words(), 1 << 26);
        assert_eq!(layout.system_words(), 1 << 27);
        assert_eq!(layout.words(), 64 << 27);
        assert_eq!(layout.lines(), 2048);
        assert_eq!(layout.overlap_slots(), 65536);
        // The last word of the last word system.
        let last = layout.word_index(63, 1, 65535, 1023) as u64;
        assert_eq!(last, layout.words() - 1);
        assert_eq!(layout.word_index(32, 0, 0, 0) as u64, 64 << 26);
        // Its sites: row y = 65535, colour 1, so x = 2 (32 * 1023 + bit).
        let mut sites = Vec::new();
        layout.for_each_bit(63, 1, 65535, 1023, |bit, system, site| {
            assert_eq!(system, 63);
            sites.push((bit, site));
        });
        assert_eq!(sites.len(), 32);
        assert_eq!(sites[0], (0, 65535 * 65536 + 2 * 32 * 1023));
        assert_eq!(sites[31], (31, n - 2));
        let mut colour_0 = Vec::new();
        layout.for_each_bit(63, 0, 65535, 1023, |_, _, site| colour_0.push(site));
        assert_eq!(colour_0[31], n - 1);
        // The spin index pack and unpack compute for it, past 2^32 and 2^38.
        assert_eq!(u64::from(63u32) * n + (n - 1), (64 << 32) - 1);
        // Neighbours wrap at the far edges; indices within a colour stay below colour_words.
        let site = layout.word_site(0, 65535, 1023);
        assert_eq!((site.p, site.adjacent), (1, 0));
        assert_eq!((site.minus_rows[0], site.plus_rows[0]), (65534, 0));
        let (colour, end) = layout.line_site(layout.lines() - 1, 65535);
        assert_eq!((colour, end.row, end.w, end.p), (0, 65535, 1023, 1));
        assert_eq!(layout.line_position(layout.lines() - 1), (0, 1023, 1));
        let cw = u64::from(end.row) * u64::from(layout.row_words()) + u64::from(end.w);
        assert_eq!(cw, u64::from(layout.colour_words()) - 1);
        assert_eq!(layout.overlap_slot(1023, 1, 31), 65535);
    }

    #[test]
    fn index_arithmetic_holds_at_the_largest_lattices() {
        // SMSC: the largest 2D and 3D sizes below 2^34 sites.
        let smsc_2d = ferromagnet_layout(2, 131_008, Layout::Smsc, 1);
        assert_eq!(smsc_2d.colour_words(), 131_008 * 2047);
        assert_eq!(smsc_2d.system_words(), 131_008 * 131_008 / 32);
        let smsc_3d = ferromagnet_layout(3, 2560, Layout::Smsc, 1);
        assert_eq!(smsc_3d.rows(), 2560 * 2560);
        assert_eq!(smsc_3d.lines(), 2560 * 40 * 2);
        assert_eq!(smsc_3d.system_words(), 2560u64.pow(3) / 32);
        // AMSC: one site per word, below 2^31 sites.
        let amsc = ferromagnet_layout(
            2,
            46340,
            Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            32,
        );
        assert_eq!(amsc.colour_words(), 46340 * 23170);
        assert!(amsc.system_words() < crate::config::MAX_MULTISPIN_WORDS);
    }

    #[test]
    #[should_panic(expected = "exceeds the 32-bit indices")]
    fn word_counts_beyond_u32_are_refused_not_wrapped() {
        let too_big = ferromagnet_layout(
            2,
            131_072,
            Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            32,
        );
        too_big.colour_words();
    }

    /// Per-lane counts of one SMSC system sum past `u32` into its observation.
    #[test]
    fn smsc_lane_counts_sum_past_u32() {
        let layout = ferromagnet_layout(2, 65536, Layout::Smsc, 1);
        let per_word = vec![[1u64 << 27, 1u64 << 28]; 32];
        let measured = layout.measurements(&per_word, &[], 1);
        assert_eq!(
            measured.observations,
            vec![Observation {
                up: 1 << 32,
                satisfied: 1 << 33
            }]
        );
    }

    #[test]
    fn overlap_pairs_join_replica_r_with_r_plus_half() {
        for layout in all_layouts() {
            let s = layout.systems.clone();
            let mut pairs = 0;
            for (g, h) in layout.overlap_word_pairs() {
                for lane in 0..layout.systems_per_word() {
                    if let (Some(a), Some(b)) =
                        (layout.lane_system(g, lane), layout.lane_system(h, lane))
                    {
                        assert_eq!(b - a, s.replicas / 2, "{:?}", layout.layout);
                        assert!(a % s.replicas < s.replicas / 2);
                        pairs += 1;
                    }
                }
            }
            assert_eq!(pairs, s.overlaps(), "{:?}", layout.layout);
        }
    }
}

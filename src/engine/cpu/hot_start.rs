//! The hot start written straight into an engine's own storage (CPU twin of
//! `shaders/wgsl/hot_start.wgsl` and `shaders/cuda/hot_start.cu`): spin `i` of system `b` is up
//! iff the top bit of word `i mod 4` of Philox block `(i / 4, sweep 0, InitialSpins, colour 0,
//! batch b)` is set, `b` the run's index of the system (a sample slice starts as its samples do
//! in the whole run), the lattices of [`initial_spins`], so the lattices of a run
//! never exist on the host before its first checkpoint.
//!
//! Threads (the same on every backend): the simple engine's thread `i` of system `z` writes
//! sites `4 i .. 4 i + 3` of system `z` (one block of batch `slice.global(z)`; `N` is a multiple
//! of 4); the multispin
//! engine's thread `i` of word system `z` writes word `i` (row `i / W`, word `i mod W` of the
//! row) of both colours, each bit from its lane's system (`batches[z * 32 + lane]`, see
//! [`MultispinLayout::lane_batches`]; SMSC: every bit is a site of system `z`), drawing each
//! Philox block once for the consecutive bits that share it.

use rayon::prelude::*;

use crate::engine::SpinBits;
use crate::engine::multispin::{LANES, MultispinLayout};
use crate::model::ising::IsingSystems;
use crate::model::systems::SliceIndex;
use crate::rng::{Counter, Purpose, random_block};

/// The lane of an idle lane in the batch table: it stays down.
pub const IDLE: u32 = u32::MAX;

/// The kernel's geometry, the same on every backend (the WGSL override constants, the CUDA
/// kernel's parameter struct).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotStartGrid {
    pub seed: u64,
    /// `L`.
    pub size: u32,
    pub multispin: bool,
    pub smsc: bool,
    pub row_words: u32,
    /// Words of one colour stored (a slab's halos included).
    pub colour_words: u32,
    /// Threads per (word) system: `N / 4` blocks, or the words of one colour (a slab's own).
    pub system_threads: u32,
    /// The lattice's row of the multispin engine's row 0 (a slab's first plane's row).
    pub row_offset: u32,
    /// (Word) systems: the grid's z.
    pub systems: u32,
    /// `[z][lane]`: the run's system of each lane ([`MultispinLayout::lane_batches`]); one
    /// unused word for the simple engine.
    pub batches: Vec<u32>,
    /// The simple engine's batches: the run's index of system `z`
    /// ([`SystemIndex::slice_index`]); the identity for the multispin engine, whose lane table
    /// holds the run's indices.
    ///
    /// [`SystemIndex::slice_index`]: crate::model::systems::SystemIndex::slice_index
    pub slice: SliceIndex,
}

impl HotStartGrid {
    /// The simple engine's grid: one thread per block of 4 sites.
    pub fn simple(systems: &IsingSystems) -> Self {
        HotStartGrid {
            seed: systems.seed,
            size: systems.lattice.size,
            multispin: false,
            smsc: false,
            row_words: 1,
            colour_words: 1,
            row_offset: 0,
            system_threads: u32::try_from(systems.lattice.sites() / 4)
                .expect("the simple engine's lattices have fewer than 2^34 sites"),
            systems: systems.systems(),
            batches: vec![0],
            slice: systems.slice_index(),
        }
    }

    /// A multispin engine's grid: one thread per word of each colour.
    pub fn multispin(layout: &MultispinLayout) -> Self {
        HotStartGrid {
            seed: layout.systems.seed,
            size: layout.lattice().size,
            multispin: true,
            smsc: layout.smsc(),
            row_words: layout.row_words(),
            colour_words: layout.colour_words(),
            system_threads: layout.own_colour_words(),
            row_offset: layout.row_offset(),
            systems: layout.word_systems(),
            batches: layout.lane_batches(),
            slice: SliceIndex::IDENTITY,
        }
    }
}

/// The Philox block of sites `4 block .. 4 block + 3` of system `batch`.
pub fn hot_start_block(seed: u64, block: u32, batch: u32) -> [u32; 4] {
    let counter = Counter {
        word: block,
        sweep: 0,
        purpose: Purpose::InitialSpins,
        colour: 0,
        draw: 0,
        batch,
    };
    random_block(seed, counter)
}

/// Thread `(z, i)` of the simple engine: its four `+1/-1` spins.
pub fn hot_start_simple(grid: &HotStartGrid, z: u32, i: u32) -> [i32; 4] {
    hot_start_block(grid.seed, i, grid.slice.global(z))
        .map(|word| if word >> 31 == 1 { 1 } else { -1 })
}

/// The block and the word in it of site `x` of row `row` (rows of `l` sites), without forming
/// the site index, which passes 2^32 on the largest SMSC lattices: `row l + x = 4 (row (l / 4))
/// + (row (l mod 4) + x)`.
pub fn block_of(row: u32, x: u32, l: u32) -> (u32, u32) {
    let rest = row * (l % 4) + x;
    (row * (l / 4) + rest / 4, rest % 4)
}

/// Thread `(z, i)` of the multispin engine: word `i` of colour 0 and of colour 1 of word system
/// `z`.
pub fn hot_start_multispin(grid: &HotStartGrid, z: u32, i: u32) -> [u32; 2] {
    let l = grid.size;
    // The lattice's row: a slab draws its planes' spins.
    let (row, w) = (i / grid.row_words + grid.row_offset, i % grid.row_words);
    let parity = (row % l + row / l) & 1;
    let mut cached = (IDLE, 0u32, [0u32; 4]);
    let mut words = [0u32; 2];
    // Bits outer, colours inner: a bit's two sites (x and x + 1 of one lane) share a block.
    for bit in 0..LANES {
        let (lane, pair) = match grid.smsc {
            true => (0, 2 * (LANES * w + bit)),
            false => (bit, 2 * w),
        };
        let batch = grid.batches[(z * LANES + lane) as usize];
        if batch == IDLE {
            continue;
        }
        for (colour, word) in words.iter_mut().enumerate() {
            let (block, k) = block_of(row, pair + (parity ^ colour as u32), l);
            if (cached.0, cached.1) != (batch, block) {
                cached = (batch, block, hot_start_block(grid.seed, block, batch));
            }
            *word |= (cached.2[k as usize] >> 31) << bit;
        }
    }
    words
}

/// The simple engine's lattices, every thread in parallel.
pub fn hot_start_lattices(systems: &IsingSystems, spins: &mut [i32]) {
    let grid = HotStartGrid::simple(systems);
    let blocks = grid.system_threads as usize;
    spins.par_chunks_mut(4).enumerate().for_each(|(t, out)| {
        let (z, i) = ((t / blocks) as u32, (t % blocks) as u32);
        out.copy_from_slice(&hot_start_simple(&grid, z, i));
    });
}

/// The multispin engine's words, every thread in parallel.
pub fn hot_start_words(layout: &MultispinLayout, words: &mut [u32]) {
    let grid = HotStartGrid::multispin(layout);
    let colour_words = grid.colour_words as usize;
    words
        .par_chunks_mut(2 * colour_words)
        .enumerate()
        .for_each(|(z, system)| {
            let (colour_0, colour_1) = system.split_at_mut(colour_words);
            let own = grid.system_threads as usize;
            colour_0[..own]
                .par_iter_mut()
                .zip(&mut colour_1[..own])
                .enumerate()
                .for_each(|(i, (w0, w1))| {
                    [*w0, *w1] = hot_start_multispin(&grid, z as u32, i as u32);
                });
        });
}

/// The hot start: spin `i` of system `b` is up iff the top bit of word `i mod 4` of Philox block
/// `(word = i / 4, sweep 0, InitialSpins, colour 0, batch b)` is set, `b` the run's index of the
/// system ([`SystemIndex::global_system`]: a sample slice starts as its samples do in the
/// whole run). Computed in parallel, 64
/// spins (16 blocks, all of one system: `N` is a multiple of 4) per word of bits. The block
/// number is a 32-bit counter word, so a system may have up to 2^34 sites
/// ([`crate::config::MAX_MULTISPIN_SITES`]).
///
/// [`SystemIndex::global_system`]: crate::model::systems::SystemIndex::global_system
pub fn initial_spins(systems: &IsingSystems) -> SpinBits {
    let n = systems.lattice.sites();
    let mut spins = SpinBits::for_systems(systems);
    let total = spins.len();
    spins
        .words_mut()
        .par_iter_mut()
        .enumerate()
        .for_each(|(k, word)| {
            for q in 0..16 {
                let first = 64 * k as u64 + 4 * q;
                if first >= total {
                    break;
                }
                let (batch, site) = ((first / n) as u32, first % n);
                let block = initial_spins_counter(site / 4, batch).word;
                let words = hot_start_block(systems.seed, block, systems.global_system(batch));
                for (j, random) in words.into_iter().enumerate() {
                    *word |= u64::from(random >> 31) << (4 * q + j as u64);
                }
            }
        });
    spins
}

/// The Philox counter of block `block` (sites `4 block .. 4 block + 4`) of the hot start of
/// system `batch`. Panics past 2^32 blocks, which would reuse random words.
fn initial_spins_counter(block: u64, batch: u32) -> Counter {
    let word = u32::try_from(block).unwrap_or_else(|_| {
        panic!("hot start block {block}: a system of more than 2^34 sites would reuse random words")
    });
    Counter {
        word,
        sweep: 0,
        purpose: Purpose::InitialSpins,
        colour: 0,
        draw: 0,
        batch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::multispin::fixtures::all_layouts;
    use crate::model::Lattice;

    /// Both kernels write `initial_spins`'s lattices, in every layout.
    #[test]
    fn the_kernel_writes_the_hot_start_in_every_layout() {
        for layout in all_layouts() {
            let mut words = vec![0u32; layout.words() as usize];
            hot_start_words(&layout, &mut words);
            let expected = initial_spins(&layout.systems);
            assert_eq!(layout.unpack(&words), expected, "{}", layout.describe());
            assert_eq!(words, layout.pack(&expected), "{}", layout.describe());
        }
        for size in [6, 8] {
            let systems = IsingSystems::ferromagnet(Lattice::new(2, size), 0.0, vec![0.4], 3, 9);
            let mut spins = vec![0i32; systems.spin_count()];
            hot_start_lattices(&systems, &mut spins);
            let bits = SpinBits::from_signs(3, systems.lattice.sites(), &spins);
            assert_eq!(bits, initial_spins(&systems), "L = {size}");
        }
    }

    #[test]
    fn blocks_are_found_past_32_bit_sites() {
        for (row, x, l) in [(0, 5, 6), (1, 0, 6), (7, 3, 6), (3, 9, 10), (5, 63, 64)] {
            let site = row * l + x;
            assert_eq!(block_of(row, x, l), (site / 4, site % 4), "{row} {x} {l}");
        }
        // The last site of the largest SMSC lattice, 131072^2 = 2^34 sites.
        assert_eq!(
            block_of(131_071, 131_071, 131_072),
            (u32::MAX, 3),
            "site 2^34 - 1"
        );
    }

    #[test]
    fn hot_start_counters_reach_the_largest_lattices() {
        let systems = IsingSystems::ferromagnet(Lattice::new(2, 6), 0.0, vec![0.4], 2, 77);
        let spins = initial_spins(&systems);
        let n = systems.lattice.sites();
        for i in 0..spins.len() {
            let (batch, site) = ((i / n) as u32, i % n);
            let word =
                random_block(77, initial_spins_counter(site / 4, batch))[(site % 4) as usize];
            assert_eq!(spins.up(batch, site), word >> 31 == 1, "spin {i}");
        }
        // The last site of 65536^2 (2^32 sites) and of the largest multispin lattice (2^34).
        let last = Lattice::new(2, 65536).sites() - 1;
        assert_eq!(initial_spins_counter(last / 4, 3).word, (1 << 30) - 1);
        let largest = crate::config::MAX_MULTISPIN_SITES - 1;
        assert_eq!(initial_spins_counter(largest / 4, 0).word, u32::MAX);
    }

    #[test]
    #[should_panic(expected = "more than 2^34 sites")]
    fn hot_start_refuses_to_reuse_random_words() {
        initial_spins_counter(crate::config::MAX_MULTISPIN_SITES / 4, 0);
    }
}

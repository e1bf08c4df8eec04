//! The simulation layer: building plans, choosing an engine, and the run loop.

mod annealing;
mod backend;
mod ladder;
mod resampling;
mod run;
mod schedule;

pub use annealing::{AnnealingSummary, anneal_engine, annealing_table, engine_systems};
pub use backend::{
    open_engine, open_engine_with_betas, open_gpu_context, open_local_engine, open_slab_engine,
};
pub use ladder::{TUNING_STAGES, retune, tuning_stops};
pub use run::{
    FINAL_STATE, RunDescription, RunOptions, RunOutcome, SUMMARY, Summary, TemperatureSummary, run,
    summary_table,
};
pub use schedule::Schedule;

use crate::config::Config;
use crate::engine::SpinBits;
use crate::engine::cpu::hot_start::hot_start_block;
use crate::model::Lattice;
use crate::model::ising::IsingSystems;
use crate::rng::{Counter, Purpose};
use rayon::prelude::*;

/// The systems a (validated) config describes.
pub fn ising_systems(config: &Config) -> IsingSystems {
    let model = config.model;
    IsingSystems {
        lattice: Lattice::new(model.dims(), model.size()),
        field: model.field(),
        betas: config.temperatures.betas(),
        disorder: model.disorder(),
        samples: config.samples,
        replicas: config.replicas,
        seed: config.seed,
        first_sample: 0,
        all_samples: config.samples,
        slab: None,
    }
}

/// The hot start: spin `i` of system `b` is up iff the top bit of word `i mod 4` of Philox block
/// `(word = i / 4, sweep 0, InitialSpins, colour 0, batch b)` is set, `b` the run's index of the
/// system ([`IsingSystems::global_system`]: a sample slice starts as its samples do in the
/// whole run). Computed in parallel, 64
/// spins (16 blocks, all of one system: `N` is a multiple of 4) per word of bits. The block
/// number is a 32-bit counter word, so a system may have up to 2^34 sites
/// ([`crate::config::MAX_MULTISPIN_SITES`]).
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
    use crate::rng::random_block;

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

//! The simulation layer: building plans, choosing an engine, and the run loop.

mod backend;
mod run;
mod schedule;

pub use backend::{open_engine, open_gpu_context};
pub use run::{RunOptions, RunOutcome, Summary, TemperatureSummary, run, summary_table};
pub use schedule::Schedule;

use crate::config::Config;
use crate::model::Lattice;
use crate::model::ising::IsingSystems;
use crate::rng::{Counter, Purpose, random_block};
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
    }
}

/// The hot start: spin `i` of system `b` is +1 iff the top bit of word `i mod 4` of Philox block
/// `(word = i / 4, sweep 0, InitialSpins, colour 0, batch b)` is set. System-major; computed in
/// parallel (a lattice of 2^30 sites takes a second).
pub fn initial_spins(systems: &IsingSystems) -> Vec<i32> {
    let n = systems.lattice.sites() as usize;
    let mut spins = vec![0i32; n * systems.systems() as usize];
    spins
        .par_chunks_mut(n)
        .enumerate()
        .for_each(|(batch, lattice)| {
            lattice
                .par_chunks_mut(4)
                .enumerate()
                .for_each(|(block, out)| {
                    let counter = Counter {
                        word: block as u32,
                        sweep: 0,
                        purpose: Purpose::InitialSpins,
                        colour: 0,
                        draw: 0,
                        batch: batch as u32,
                    };
                    let words = random_block(systems.seed, counter);
                    for (spin, word) in out.iter_mut().zip(words) {
                        *spin = if word >> 31 == 1 { 1 } else { -1 };
                    }
                });
        });
    spins
}

//! Population annealing's copies: every system takes the lattice of its source system, read
//! from a snapshot of the state before the copy (a gather, so chains of copies and swaps of
//! two systems need no ordering). Destinations are independent: each task writes only its own
//! lattice or word system.

use rayon::prelude::*;

use crate::engine::multispin::MultispinLayout;

/// The simple engine: whole lattices of `sites` spins.
pub fn copy_lattices(sources: &[u32], sites: usize, spins: &mut [i32]) {
    let snapshot = spins.to_vec();
    spins
        .par_chunks_mut(sites)
        .zip(sources)
        .enumerate()
        .filter(|&(b, (_, &source))| source as usize != b)
        .for_each(|(_, (lattice, &source))| {
            lattice.copy_from_slice(&snapshot[source as usize * sites..][..sites]);
        });
}

/// The multispin engine: AMSC copies lane to lane, bit by bit, within and across words; SMSC
/// (one system per word system) copies whole word systems.
pub fn copy_lanes(layout: &MultispinLayout, sources: &[u32], words: &mut [u32]) {
    let len = layout.system_words() as usize;
    let snapshot = words.to_vec();
    let word_system = |g: u32| &snapshot[g as usize * len..][..len];
    words
        .par_chunks_mut(len)
        .enumerate()
        .for_each(|(g, destination)| {
            for lane in 0..layout.systems_per_word() {
                let Some(system) = layout.lane_system(g as u32, lane) else {
                    continue;
                };
                let source = sources[system as usize];
                if source == system {
                    continue;
                }
                let (source_g, source_lane) = layout.system_lane(source);
                let from = word_system(source_g);
                if layout.smsc() {
                    destination.copy_from_slice(from);
                    continue;
                }
                for (word, &source_word) in destination.iter_mut().zip(from) {
                    let bit = (source_word >> source_lane) & 1;
                    *word = (*word & !(1 << lane)) | (bit << lane);
                }
            }
        });
}

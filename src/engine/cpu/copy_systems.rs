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

/// The multispin engine, by the copy kernel's map (`engine::copy_maps::lane_map`): AMSC lane
/// `[g][lane]` takes bit `map % 32` of the words of word system `map / 32`; SMSC word system
/// `g` (one system) takes the words of word system `map[g]`.
pub fn copy_lanes(layout: &MultispinLayout, map: &[u32], words: &mut [u32]) {
    let len = layout.system_words() as usize;
    let per_word = layout.systems_per_word() as usize;
    let snapshot = words.to_vec();
    let word_system = |g: u32| &snapshot[g as usize * len..][..len];
    words
        .par_chunks_mut(len)
        .zip(map.par_chunks(per_word))
        .for_each(|(destination, sources)| {
            if layout.smsc() {
                destination.copy_from_slice(word_system(sources[0]));
                return;
            }
            destination.fill(0);
            for (lane, &source) in sources.iter().enumerate() {
                let from = word_system(source / 32);
                for (word, &source_word) in destination.iter_mut().zip(from) {
                    *word |= ((source_word >> (source % 32)) & 1) << lane;
                }
            }
        });
}

//! CPU mirror of `shaders/wgsl/tempering_exchange.wgsl`: the accepted swaps of a round move
//! spins between the systems of neighbour temperatures (see [`crate::engine::tempering`]).

use rayon::prelude::*;

use crate::engine::tempering::{Exchange, SwapLayout, exchange_masked, exchange_neighbour_lanes};

/// Apply the masks `[k][q]` of a round of parity `parity` to `words`, `system_words` words per
/// (word) system, systems numbered `k Q + q` (the simple engine's `i32` spins as their bits).
pub fn exchange(
    swaps: &SwapLayout,
    parity: u32,
    masks: &[u32],
    system_words: usize,
    words: &mut [u32],
) {
    let groups = swaps.groups as usize;
    if swaps.exchange == Exchange::WithinWords {
        words
            .par_chunks_mut(system_words)
            .zip(masks.par_iter())
            .filter(|(_, mask)| **mask != 0)
            .for_each(|(system, &mask)| {
                for word in system {
                    *word = exchange_neighbour_lanes(*word, mask);
                }
            });
        return;
    }
    let temperature_words = groups * system_words;
    let pairs = (swaps.chains.temperatures as usize).saturating_sub(1);
    for k in (parity as usize..pairs).step_by(2) {
        let (lower, upper) =
            words[k * temperature_words..][..2 * temperature_words].split_at_mut(temperature_words);
        lower
            .par_chunks_mut(system_words)
            .zip(upper.par_chunks_mut(system_words))
            .zip(&masks[k * groups..][..groups])
            .filter(|(_, mask)| **mask != 0)
            .for_each(|((a, b), &mask)| {
                for (a, b) in a.iter_mut().zip(b) {
                    exchange_masked(a, b, mask);
                }
            });
    }
}

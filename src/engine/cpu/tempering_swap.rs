//! CPU mirror of `shaders/wgsl/tempering_swap.wgsl`: the decisions of one swap round, with the
//! labels, round trips and acceptance counts they update (see [`crate::engine::tempering`]).

use crate::engine::tempering::{Section, SwapLayout, accept_swap};
use crate::rng::{Counter, Purpose, random_block};

/// Parallel tempering as the CPU engines hold it.
#[derive(Debug, Clone)]
pub struct CpuTempering {
    pub swaps: SwapLayout,
    pub tables: Vec<u32>,
    pub state: Vec<u32>,
}

impl CpuTempering {
    /// One round after sweep `sweep` on pairs of parity `parity`, from every system's counts
    /// `[up, satisfied]`; returns the exchange masks `[k][q]`.
    pub fn round(&mut self, seed: u64, sweep: u32, parity: u32, counts: &[[u64; 2]]) -> Vec<u32> {
        let chains = self.swaps.chains;
        let t = chains.temperatures as usize;
        let mut accepted = vec![false; chains.sets as usize * t];
        for c in 0..chains.sets {
            let decisions = &mut accepted[c as usize * t..][..t];
            swap_chain_set(
                &self.swaps,
                &self.tables,
                (seed, sweep, parity),
                c,
                counts,
                &mut self.state,
                decisions,
            );
        }
        self.swaps.masks(&accepted)
    }

    /// The labels `[r][k]` of the chain sets of sample 0 (of a sample slice: its first sample),
    /// for the temperature history.
    pub fn history_labels(&self) -> Vec<u32> {
        let chains = self.swaps.chains;
        let start = chains.index(Section::Labels, 0, 0);
        self.state[start..][..(self.swaps.replicas * chains.temperatures) as usize].to_vec()
    }
}

/// The uniforms of pair `k` of chain set `c` (the run's index) in the round after `sweep`.
pub fn swap_uniforms(seed: u64, sweep: u32, k: u32, c: u32) -> [u32; 2] {
    let block = random_block(
        seed,
        Counter {
            word: k,
            sweep,
            purpose: Purpose::Swap,
            colour: 0,
            draw: 0,
            batch: c,
        },
    );
    [block[0], block[1]]
}

/// Decide the pairs of `parity` of chain set `c` into `decisions[k]`, swapping labels and
/// counting acceptances and round trips in `state`.
fn swap_chain_set(
    swaps: &SwapLayout,
    tables: &[u32],
    (seed, sweep, parity): (u64, u32, u32),
    c: u32,
    counts: &[[u64; 2]],
    state: &mut [u32],
    decisions: &mut [bool],
) {
    let chains = &swaps.chains;
    let accepts = |k: u32| {
        let lower = counts[chains.system(k, c) as usize];
        let upper = counts[chains.system(k + 1, c) as usize];
        let u = swap_uniforms(seed, sweep, k, swaps.slice.global(c));
        accept_swap(tables, k, lower, upper, u)
    };
    chains.track_round(state, (c, parity), accepts, decisions);
}

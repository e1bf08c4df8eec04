//! CPU twin of `shaders/wgsl/cluster_flip.wgsl` and `shaders/cuda/cluster_flip.cu`: the flips
//! of a cluster update after [`super::cluster_roots`] ([`crate::engine::clusters`]).
//!
//! Swendsen-Wang: site `i` flips iff its root `labels[i]` flips (the top bit of word `r mod 4` of
//! block `(r / 4, n, ClusterFlip, 0, 0, b)`). Wolff: the sites labelled as the seed's root flip;
//! its statistic is `|C|`. The flips are decided a range of sites at a time into a mask (a bit a
//! site), as the pieces of an update ([`crate::engine::Step::ClusterPart`]) take them, and made
//! at once: the lattice stays as it was until the update's last piece. Houdayer's move of a
//! replica pair swaps the states of the seed's cluster between the two lattices.

use std::ops::Range;

use crate::engine::clusters::{PairMoves, PairSite, drawn_state, flip_words};

/// Mark in `flips` (bit `i mod 64` of word `i / 64` for site `i`) the sites `sites`, pointed at
/// their roots in `labels`, whose Swendsen-Wang cluster flips at update `update` of the run's
/// system `batch`.
pub fn mark_flips(
    labels: &[u32],
    sites: Range<u64>,
    (seed, update, batch): (u64, u32, u32),
    flips: &mut [u64],
) {
    // Neighbouring sites mostly share a root: its block is drawn once for them (as the kernels
    // do within a thread's four sites).
    let mut cached = (u32::MAX, [0u32; 4]);
    for site in sites {
        let root = labels[site as usize];
        if cached.0 != root / 4 {
            cached = (root / 4, flip_words(seed, root / 4, update, batch));
        }
        if cached.1[(root % 4) as usize] >> 31 == 1 {
            flips[(site / 64) as usize] |= 1 << (site % 64);
        }
    }
}

/// Mark in `flips` the sites `sites` of the Wolff cluster: those pointed at `root`, the seed's;
/// returns how many.
pub fn mark_seed_cluster(labels: &[u32], sites: Range<u64>, root: u32, flips: &mut [u64]) -> u64 {
    let mut size = 0;
    for site in sites {
        if labels[site as usize] == root {
            flips[(site / 64) as usize] |= 1 << (site % 64);
            size += 1;
        }
    }
    size
}

/// Swendsen-Wang's new discrete states of `q` (state `q` the vacancy of an empty site, which
/// keeps it): every site, pointed at its root `r` in `labels`, takes its cluster's
/// [`drawn_state`] `k` of word `r mod 4` of `r`'s flip block at update `update` of the run's
/// system `batch`; where the lattice is `twisted` (an antiperiodic edge, two states), whose
/// clusters hold both states across the edge, it moves to `(s + k) mod q` instead.
pub fn draw_states(
    states: &mut [i32],
    labels: &[u32],
    (q, twisted): (u32, bool),
    (seed, update, batch): (u64, u32, u32),
) {
    let mut cached = (u32::MAX, [0u32; 4]);
    for (state, &root) in states.iter_mut().zip(labels) {
        if *state as u32 == q {
            continue;
        }
        if cached.0 != root / 4 {
            cached = (root / 4, flip_words(seed, root / 4, update, batch));
        }
        let drawn = drawn_state(cached.1[(root % 4) as usize], q);
        *state = match twisted {
            true => ((*state as u32 + drawn) % q) as i32,
            false => drawn as i32,
        };
    }
}

/// Wolff's new discrete states of `q`: the occupied sites of the seed's cluster `members`, of
/// one state `s`, go to `(s + 1 + shift) mod q`.
pub fn shift_cluster(states: &mut [i32], members: &[u32], (q, shift): (u32, u32)) {
    for &site in members {
        let state = &mut states[site as usize];
        if *state as u32 != q {
            *state = ((*state as u32 + 1 + shift) % q) as i32;
        }
    }
}

/// Houdayer's relation and seed: the relation that `moves` picks from the `candidates`
/// ([`houdayer_candidates`]) of the replica pair `(a, b)` ([`PairMoves::seed_relation`]) and
/// the first candidate of that relation; `None` where no candidate has it.
///
/// [`houdayer_candidates`]: crate::engine::clusters::houdayer_candidates
pub fn houdayer_seed(
    candidates: &[u32],
    (a, b): (&[i32], &[i32]),
    moves: PairMoves,
) -> (PairSite, Option<u32>) {
    let relation = |site: u32| PairSite::of(a[site as usize], b[site as usize], moves.vacancy);
    let wanted = moves.seed_relation(candidates.iter().map(|&site| relation(site)));
    let seed = candidates
        .iter()
        .copied()
        .find(|&site| relation(site) == wanted);
    (wanted, seed)
}

/// Houdayer's move of the sites pointed at `root` (the seed's cluster, of relation `relation`)
/// of the replica pair's lattices `a` and `b`: a cluster of disagreement swaps its states
/// between the two, one of agreement (two states) takes the other state in both. Returns how
/// many sites moved.
pub fn move_seed_cluster(
    labels: &[u32],
    (root, relation): (u32, PairSite),
    (a, b): (&mut [i32], &mut [i32]),
) -> u64 {
    let mut size = 0;
    for ((&label, a), b) in labels.iter().zip(a).zip(b) {
        if label != root {
            continue;
        }
        match relation {
            PairSite::Agrees => (*a, *b) = (1 - *a, 1 - *b),
            _ => std::mem::swap(a, b),
        }
        size += 1;
    }
    size
}

/// Flip the sites marked in `flips`.
pub fn flip_marked(spins: &mut [i32], flips: &[u64]) {
    for (spins, &word) in spins.chunks_mut(64).zip(flips) {
        for (k, spin) in spins.iter_mut().enumerate() {
            if (word >> k) & 1 == 1 {
                *spin = -*spin;
            }
        }
    }
}

//! CPU twin of `shaders/wgsl/clock_flip.wgsl` and `shaders/cuda/clock_flip.cu`: a cluster
//! update's reflections of clock spins after the labelling ([`crate::engine::clusters`]). The
//! clusters that flip are marked as for signs ([`super::mark_flips`],
//! [`super::mark_seed_cluster`]); each marked occupied site then takes the state its update's
//! mirror reflects its own into.

use super::clock_bonds::clock_lattice;
use super::vector_metropolis::clock_spin;
use crate::engine::clusters::reflected_state;
use crate::model::vector::fixed::{clock_index, is_empty};

/// Reflect through `mirror` the clock spins (`q` states, the lattice's two components one after
/// the other in `spins`) of the sites marked in `flips` (bit `i mod 64` of word `i / 64` for
/// site `i`); empty sites stay empty.
pub fn reflect_marked(spins: &mut [i32], flips: &[u64], (q, mirror): (u32, u32)) {
    let sites = spins.len() / 2;
    for site in 0..sites {
        let s = clock_lattice(spins)(site as u64);
        if (flips[site / 64] >> (site % 64)) & 1 == 0 || is_empty(&s) {
            continue;
        }
        let reflected = clock_spin(reflected_state(clock_index(&s, q), mirror, q), q);
        spins[site] = reflected[0];
        spins[sites + site] = reflected[1];
    }
}

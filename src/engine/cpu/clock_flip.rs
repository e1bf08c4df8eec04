//! CPU twin of `shaders/wgsl/clock_flip.wgsl` and `shaders/cuda/clock_flip.cu`: a cluster
//! update's reflections of clock spins ([`crate::engine::clusters`]). Swendsen-Wang's clusters
//! that flip are marked after the labelling as for signs ([`super::mark_flips`]); Wolff's
//! cluster is grown from its seed ([`super::WolffGrowth`]). Each of their occupied sites then
//! takes the state its update's mirror reflects its own into.

use super::clock_bonds::{clock_lattice, reflected_spin};
use crate::model::vector::fixed::is_empty;

/// Reflect through `mirror` the clock spins (`q` states, the lattice's two components one after
/// the other in `spins`) of `sites`; empty sites stay empty.
pub fn reflect_sites(spins: &mut [i32], sites: impl Iterator<Item = u64>, (q, mirror): (u32, u32)) {
    let n = spins.len() / 2;
    for site in sites {
        let s = clock_lattice(spins)(site);
        if is_empty(&s) {
            continue;
        }
        let reflected = reflected_spin(&s, (q, mirror));
        spins[site as usize] = reflected[0];
        spins[n + site as usize] = reflected[1];
    }
}

/// The sites marked in `flips` (bit `i mod 64` of word `i / 64` for site `i`) of `sites`.
pub fn marked(flips: &[u64], sites: u64) -> impl Iterator<Item = u64> + '_ {
    (0..sites).filter(|&site| (flips[(site / 64) as usize] >> (site % 64)) & 1 == 1)
}

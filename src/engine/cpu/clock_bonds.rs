//! CPU twin of `shaders/wgsl/clock_bonds.wgsl` and `shaders/cuda/clock_bonds.cu`: the active
//! bonds of one lattice of clock spins at one cluster update, Wolff's embedding
//! ([`crate::engine::clusters`]).
//!
//! Thread `g` handles sites `4g .. 4g + 3` and their `4D` forward bonds, Philox blocks
//! `gD .. gD + D - 1` as for discrete states ([`super::active_bonds`]), and writes word `g` of the
//! bond words (byte `k` for site `4g + k`, bit `d` for direction `d`). A bond is active where
//! reflecting its site's spin alone would raise its energy and the word is not below that
//! energy's acceptance threshold.

use std::ops::Range;

use super::cluster_bonds::thread_bond_words;
use super::vector_metropolis::clock_spin;
use crate::config::Boundaries;
use crate::engine::clusters::reflected_state;
use crate::model::Lattice;
use crate::model::lattices::bond_sign;
use crate::model::vector::fixed::{ENERGY_SHIFT, Vector, accepts, clock_index, dot, is_empty};

/// Bit `d` of byte `k` of `bonds[g]` for the threads `g` of `groups`: bond `(4g + k) D + d` is
/// active. `spins` is one lattice of a clock with `q` states, its two components one after the
/// other; `mirror` the update's ([`crate::engine::clusters::clock_mirror`]), `table` its
/// temperature's acceptance table and `(seed, update, batch)` the keys of update `update` of
/// the run's system `batch`. The coupling is 1, `-1` across an antiperiodic edge of
/// `boundaries`, and no bond crosses an open edge or a honeycomb's gap ([`bond_sign`] 0); an
/// empty site (the zero vector) joins none.
pub fn clock_bonds(
    (lattice, boundaries): (&Lattice, Boundaries),
    spins: &[i32],
    (q, mirror): (u32, u32),
    (table, key): (&[u32], (u64, u32, u32)),
    groups: Range<u32>,
    bonds: &mut [u32],
) {
    let directions = lattice.directions();
    let spin = clock_lattice(spins);
    let words = &mut bonds[groups.start as usize..groups.end as usize];
    for (g, word) in groups.zip(words) {
        let randoms = thread_bond_words(key, g, directions);
        *word = 0;
        for k in 0..4 {
            let site = 4 * u64::from(g) + u64::from(k);
            let s = spin(site);
            if is_empty(&s) {
                continue;
            }
            let reflected = reflected_spin(&s, (q, mirror));
            for (d, neighbour) in lattice.forward_neighbours(site).enumerate() {
                let bond = site * u64::from(directions) + d as u64;
                let sign = bond_sign(boundaries, lattice, bond);
                let random = randoms[(k * directions) as usize + d];
                if reflection_bonds((&s, &reflected), &spin(neighbour), sign, (random, table)) {
                    *word |= 1 << (8 * k + d as u32);
                }
            }
        }
    }
}

/// The spin of the state that `mirror` reflects the clock spin `s`'s state into (`q` states).
pub fn reflected_spin(s: &Vector, (q, mirror): (u32, u32)) -> Vector {
    clock_spin(reflected_state(clock_index(s, q), mirror, q), q)
}

/// Whether a bond of coupling sign `sign` (0: missing) from the occupied clock spin `s`, whose
/// reflection is `reflected`, to `near` is active with the random word `random`: `near`
/// occupied and the Metropolis test of the energy the bond gains when `s` alone is reflected,
/// `sign (s - R s) . near`, refused under the temperature's acceptance `table`.
pub fn reflection_bonds(
    (s, reflected): (&Vector, &Vector),
    near: &Vector,
    sign: i8,
    (random, table): (u32, &[u32]),
) -> bool {
    if sign == 0 || is_empty(near) {
        return false;
    }
    let change = [s[0] - reflected[0], s[1] - reflected[1], 0];
    let gain = i64::from(sign) * dot(&change, near, 2);
    !accepts(gain, ENERGY_SHIFT, random, table)
}

/// The spin of each site of a lattice of clock spins whose two components lie one after the
/// other in `spins`.
pub fn clock_lattice(spins: &[i32]) -> impl Fn(u64) -> Vector + '_ {
    let sites = spins.len() / 2;
    move |site| [spins[site as usize], spins[sites + site as usize], 0]
}

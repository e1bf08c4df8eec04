//! CPU twin of `shaders/wgsl/cluster_bonds.wgsl` and `shaders/cuda/cluster_bonds.cu`: the
//! active bonds of one system at one cluster update ([`crate::engine::clusters`]).
//!
//! Thread `g` of system `b` handles sites `4g .. 4g + 3` (`N` is a multiple of 4): their `4D`
//! forward bonds (`D` the lattice's bond directions: its dimension, 3 on the triangular and
//! kagome lattices) are exactly the Philox blocks `gD .. gD + D - 1`. It writes word `g` of the
//! bond words: byte `k` holds the forward bonds of site `4g + k`, bit `d` the bond along
//! direction `d`, set where the bond is active. Houdayer's move of a replica pair has no randoms: a bond
//! is active where both its sites have the relation the move takes ([`pair_bonds`]).

use std::ops::Range;

use crate::config::Boundaries;
use crate::engine::clusters::{PairSite, bond_words};
use crate::model::Lattice;
use crate::model::lattices::{bond_sign, is_missing_bond};

/// Bit `d` of byte `k` of `bonds[g]` for the threads `g` of `groups`: bond `(4g + k) D + d` is
/// active. `spins` is one system's lattice, `(seed, update, batch)` the keys of update `update`
/// of the run's system `batch`, `threshold` its temperature's activation threshold. Word `g` is
/// thread `g`'s: the active bonds of sites `4g .. 4g + 3`. A bond may activate where its spins
/// are equal, or across an antiperiodic edge of `boundaries` (`-J`) opposite (two states: the
/// other one). A site holding `empty` (discrete states' vacancy; 0, which no sign is, for Ising
/// spins) joins no bond, nor does a missing bond (across an open edge, a honeycomb's gap:
/// [`bond_sign`] 0).
pub fn active_bonds(
    (lattice, boundaries): (&Lattice, Boundaries),
    (spins, empty): (&[i32], i32),
    threshold: u32,
    (seed, update, batch): (u64, u32, u32),
    groups: Range<u32>,
    bonds: &mut [u32],
) {
    let directions = lattice.directions();
    let words = &mut bonds[groups.start as usize..groups.end as usize];
    for (g, word) in groups.zip(words) {
        let randoms = thread_bond_words((seed, update, batch), g, directions);
        *word = 0;
        for k in 0..4 {
            let site = 4 * u64::from(g) + u64::from(k);
            let spin = spins[site as usize];
            for (d, neighbour) in lattice.forward_neighbours(site).enumerate() {
                let random = randoms[(k * directions) as usize + d];
                let bond = site * u64::from(directions) + d as u64;
                let pair = (spin, spins[neighbour as usize]);
                let joins = bondable(pair, empty, bond_sign(boundaries, lattice, bond));
                if joins && random < threshold {
                    *word |= 1 << (8 * k + d as u32);
                }
            }
        }
    }
}

/// Whether the spins `(spin, neighbour)` of a bond of coupling sign `sign` may bond: neither
/// `empty`, equal where the coupling is positive, opposite where it is reversed (across an
/// antiperiodic edge), and never across a missing bond (`sign` 0).
pub fn bondable((spin, neighbour): (i32, i32), empty: i32, sign: i8) -> bool {
    match sign {
        0 => false,
        sign => spin != empty && neighbour != empty && (neighbour == spin) == (sign > 0),
    }
}

/// The bond words of thread `g` of a lattice with `directions` bond directions at update
/// `update` of the run's system `batch`: word `k D + d` is bond `d` of site `4g + k`'s, from the
/// Philox blocks `gD .. gD + D - 1` (the first `4D` of the 12 words).
pub fn thread_bond_words(
    (seed, update, batch): (u64, u32, u32),
    g: u32,
    directions: u32,
) -> [u32; 12] {
    let mut randoms = [0u32; 12];
    for j in 0..directions {
        let block = bond_words(seed, g * directions + j, update, batch);
        randoms[4 * j as usize..][..4].copy_from_slice(&block);
    }
    randoms
}

/// Houdayer's bonds of the replica pair of lattices `a`, `b` for the threads `g` of `groups`
/// (bit `d` of byte `k` of `bonds[g]`, as [`active_bonds`]): bond `(4g + k) D + d` is active
/// iff both its sites have the relation `wanted` (disagreement or agreement) that the move
/// takes ([`seed_relation`]); empty sites (the vacancy `vacancy` in both) have
/// neither; no missing bond joins ([`is_missing_bond`]).
///
/// [`seed_relation`]: crate::engine::clusters::PairMoves::seed_relation
pub fn pair_bonds(
    (lattice, boundaries): (&Lattice, Boundaries),
    (a, b): (&[i32], &[i32]),
    (wanted, vacancy): (PairSite, i32),
    groups: Range<u32>,
    bonds: &mut [u32],
) {
    let wanted_at = |site: u64| PairSite::of(a[site as usize], b[site as usize], vacancy) == wanted;
    let words = &mut bonds[groups.start as usize..groups.end as usize];
    for (g, word) in groups.zip(words) {
        *word = 0;
        for k in 0..4 {
            let site = 4 * u64::from(g) + u64::from(k);
            if !wanted_at(site) {
                continue;
            }
            for (d, neighbour) in lattice.forward_neighbours(site).enumerate() {
                let bond = site * u64::from(lattice.directions()) + d as u64;
                if wanted_at(neighbour) && !is_missing_bond(boundaries, lattice, bond) {
                    *word |= 1 << (8 * k + d as u32);
                }
            }
        }
    }
}

/// The threads (groups of four sites) whose first site lies on planes `planes` of the slowest
/// axis: a piece of an update's bonds and labelling ([`crate::engine::Step::ClusterPart`]).
pub fn plane_groups(lattice: &Lattice, planes: Range<u32>) -> Range<u32> {
    let groups = lattice.units_on_planes(planes, lattice.sites(), 4);
    groups.start as u32..groups.end as u32
}

/// Whether bond `d` of `site` is active in the bond words.
pub fn bond_active(bonds: &[u32], site: u64, d: u32) -> bool {
    (bonds[(site / 4) as usize] >> (8 * (site % 4) as u32 + d)) & 1 == 1
}

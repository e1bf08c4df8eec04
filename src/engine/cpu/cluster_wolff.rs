//! The Wolff update of one system on the CPU ([`crate::engine::clusters`]): the cluster of the
//! seed site grown from it alone, over the bonds of update `n`, then flipped. It is the
//! Swendsen-Wang cluster of the seed (a bond's word is fixed by the update, whichever end of
//! it the growth reaches first), which is how the GPU kernels find it (`cluster_bonds`,
//! `cluster_label`, `cluster_merge`, then `cluster_flip` of the seed's root alone).

use crate::engine::clusters::{bond_block, bond_words, wolff_seed};
use crate::model::Lattice;

/// Grow and flip the Wolff cluster of update `update` of one system (`batch` its run's index);
/// returns its size. `stack` and `inside` are scratch (`inside` one flag per site, all false).
#[allow(clippy::too_many_arguments)]
pub fn wolff_update(
    lattice: &Lattice,
    spins: &mut [i32],
    threshold: u32,
    seed: u64,
    update: u32,
    batch: u32,
    stack: &mut Vec<u32>,
    inside: &mut [bool],
) -> u64 {
    let dims = lattice.dims;
    let first = wolff_seed(seed, lattice.sites(), update, batch);
    let spin = spins[first as usize];
    let active = |site: u64, d: u32| {
        let (block, word) = bond_block(site as u32, d, dims);
        bond_words(seed, block, update, batch)[word as usize] < threshold
    };
    stack.clear();
    stack.push(first);
    inside[first as usize] = true;
    let mut members = vec![first];
    while let Some(site) = stack.pop() {
        let site = u64::from(site);
        // Neighbours -x, +x, -y, +y[, -z, +z]: the bond of a backward neighbour is its own
        // forward bond.
        for (k, neighbour) in lattice.neighbours(site).enumerate() {
            let (d, forward) = ((k / 2) as u32, k % 2 == 1);
            let n = neighbour as usize;
            if inside[n] || spins[n] != spin {
                continue;
            }
            let bond_site = if forward { site } else { neighbour };
            if active(bond_site, d) {
                inside[n] = true;
                stack.push(neighbour as u32);
                members.push(neighbour as u32);
            }
        }
    }
    for &site in &members {
        spins[site as usize] = -spin;
        inside[site as usize] = false;
    }
    members.len() as u64
}

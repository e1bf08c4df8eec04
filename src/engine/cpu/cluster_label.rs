//! CPU twin of the kernels' labelling, `shaders/{wgsl,cuda}/cluster_label` and
//! `cluster_merge`: the union-find of one system's active bonds ([`crate::engine::clusters`]).
//! Every site starts as its own root; each active bond joins the roots of its two sites, the
//! larger under the smaller, so parents only decrease and a cluster's root is its smallest site;
//! [`super::cluster_roots`] then points every site at its root. The kernels label in two stages
//! (each tile's bonds in workgroup memory, then the bonds between tiles in global memory, both
//! joining concurrently with `atomicMin`); the CPU has no tiles and joins every bond in one
//! stage, a range of sites at a time as the pieces of an update
//! ([`crate::engine::Step::ClusterPart`]) take them. The roots are a property of the clusters,
//! so they end the same.

use std::ops::Range;

use super::cluster_bonds::bond_active;
use crate::model::Lattice;

/// Every site its own root: the forest before any bond.
pub fn start_labelling(parents: &mut [u32]) {
    for (i, parent) in parents.iter_mut().enumerate() {
        *parent = i as u32;
    }
}

/// Join the active forward bonds (the bond words of `cluster_bonds`) of the sites `sites` into
/// `parents`. Consecutive ranges join the bonds in the order one range of every site does, so
/// they leave the same forest: every root its cluster's smallest site once every site's bonds
/// are joined.
pub fn label_sites(lattice: &Lattice, bonds: &[u32], parents: &mut [u32], sites: Range<u64>) {
    for site in sites {
        for (d, neighbour) in lattice.forward_neighbours(site).enumerate() {
            if bond_active(bonds, site, d as u32) {
                join(parents, site as u32, neighbour as u32);
            }
        }
    }
}

/// The root of `i`.
pub fn find_root(parents: &[u32], mut i: u32) -> u32 {
    while parents[i as usize] != i {
        i = parents[i as usize];
    }
    i
}

/// Join the clusters of `a` and `b`: the larger root goes under the smaller.
fn join(parents: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find_root(parents, a), find_root(parents, b));
    if ra != rb {
        parents[ra.max(rb) as usize] = ra.min(rb);
    }
}

//! CPU twin of `shaders/wgsl/cluster_label.wgsl` and `shaders/cuda/cluster_label.cu`: the
//! connected components of the active bonds of one system, each site labelled with its
//! cluster's root, the cluster's smallest site index ([`crate::engine::clusters`]).
//!
//! The kernels find the same labels another way (union-find within blocks, then merges across
//! them); the root is a property of the cluster, so any scheme that finds the components gives
//! these labels. Here a serial union-find: every active bond joins the roots of its two sites,
//! the larger under the smaller, so a component's root is its smallest site.

use super::cluster_bonds::bond_active;
use crate::model::Lattice;

/// `labels[i]`: the root of site `i`'s cluster, from the bond words of `cluster_bonds`.
pub fn label_clusters(lattice: &Lattice, bonds: &[u32], labels: &mut [u32]) {
    for (i, label) in labels.iter_mut().enumerate() {
        *label = i as u32;
    }
    for site in 0..lattice.sites() {
        for (d, neighbour) in lattice.forward_neighbours(site).enumerate() {
            if bond_active(bonds, site, d as u32) {
                union(labels, site as u32, neighbour as u32);
            }
        }
    }
    for i in 0..labels.len() {
        labels[i] = find(labels, i as u32);
    }
}

/// The root of `i`, halving the path to it.
fn find(parents: &mut [u32], mut i: u32) -> u32 {
    while parents[i as usize] != i {
        let grandparent = parents[parents[i as usize] as usize];
        parents[i as usize] = grandparent;
        i = grandparent;
    }
    i
}

/// Join the clusters of `a` and `b`: the larger root goes under the smaller.
fn union(parents: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parents, a), find(parents, b));
    if ra != rb {
        parents[ra.max(rb) as usize] = ra.min(rb);
    }
}

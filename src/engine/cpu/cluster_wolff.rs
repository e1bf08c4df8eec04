//! The Wolff update of one system on the CPU ([`crate::engine::clusters`]): the cluster of the
//! seed site grown from it alone, over the bonds of update `n`, then flipped (Ising signs; the
//! vector engine moves discrete states and reflects clock spins, `engine::cpu::vector`, whose
//! bond rules [`WolffGrowth::grow_over`] takes). It is the Swendsen-Wang cluster of the seed (a
//! bond's word is fixed by the update, whichever end of it the growth reaches first), which is
//! how the GPU kernels find it (`cluster_bonds` or `clock_bonds`, `cluster_label`,
//! `cluster_merge`, then the flip of the seed's root alone).
//!
//! The growth may be made in pieces ([`crate::engine::Step::ClusterPart`]): a piece explores
//! only the members on planes below its limit and keeps the others for the pieces after it;
//! every member is explored once the limit is the last plane, so the cluster is the same.

use crate::engine::clusters::{bond_word, wolff_seed};
use crate::model::Lattice;

/// A Wolff cluster being grown: its members so far, and those whose neighbours are still to
/// explore.
pub struct WolffGrowth {
    members: Vec<u32>,
    /// One flag per site: a member.
    inside: Vec<bool>,
    /// Members to explore.
    stack: Vec<u32>,
    /// Members on planes at or past the limit of the pieces so far, to explore later.
    later: Vec<u32>,
}

impl WolffGrowth {
    /// The cluster of update `update` of the run's system `batch` on `lattice`, before any
    /// growth: its seed.
    pub fn start(lattice: &Lattice, (seed, update, batch): (u64, u32, u32)) -> Self {
        let first = wolff_seed(seed, lattice.sites(), update, batch);
        let mut inside = vec![false; lattice.sites() as usize];
        inside[first as usize] = true;
        WolffGrowth {
            members: vec![first],
            inside,
            stack: vec![first],
            later: Vec::new(),
        }
    }

    /// Grow the cluster of Ising `spins` over the active bonds (equal spins, the bond's word
    /// below `threshold`, keyed by `(seed, update, batch)`), exploring the members on planes
    /// below `limit` of the slowest axis.
    pub fn grow(
        &mut self,
        lattice: &Lattice,
        spins: &[i32],
        threshold: u32,
        (seed, update, batch): (u64, u32, u32),
        limit: u32,
    ) {
        let directions = lattice.directions();
        let active = |(site, neighbour): (u64, u64), (bond_site, d): (u64, u32)| {
            spins[site as usize] == spins[neighbour as usize]
                && bond_word(seed, (bond_site as u32, d, directions), update, batch) < threshold
        };
        self.grow_over(lattice, limit, active);
    }

    /// Grow the cluster over the bonds that `active` takes, exploring the members on planes
    /// below `limit` of the slowest axis. `active((member, neighbour), (bond_site, d))` says
    /// whether the bond between a member and its neighbour, bond `d` of `bond_site` (the one
    /// of the two whose forward bond it is), is active.
    pub fn grow_over(
        &mut self,
        lattice: &Lattice,
        limit: u32,
        active: impl Fn((u64, u64), (u64, u32)) -> bool,
    ) {
        let per_plane = lattice.sites() / u64::from(lattice.size);
        let below = |site: u32| u64::from(site) < u64::from(limit) * per_plane;
        let (now, later): (Vec<u32>, Vec<u32>) = self.later.drain(..).partition(|&s| below(s));
        self.stack.extend(now);
        self.later = later;
        while let Some(site) = self.stack.pop() {
            if !below(site) {
                self.later.push(site);
                continue;
            }
            let site = u64::from(site);
            // Neighbours a pair per direction, backward and forward: the bond of a backward
            // neighbour is its own forward bond.
            for (k, neighbour) in lattice.neighbours(site).enumerate() {
                let (d, forward) = ((k / 2) as u32, k % 2 == 1);
                let bond_site = if forward { site } else { neighbour };
                if self.inside[neighbour as usize] || !active((site, neighbour), (bond_site, d)) {
                    continue;
                }
                self.inside[neighbour as usize] = true;
                self.stack.push(neighbour as u32);
                self.members.push(neighbour as u32);
            }
        }
    }

    /// The cluster's sites so far (all of them once the last limit was the last plane), its
    /// seed first.
    pub fn members(&self) -> &[u32] {
        &self.members
    }

    /// Flip the cluster grown (every member explored: the last limit was the last plane);
    /// returns its size.
    pub fn flip(&self, spins: &mut [i32]) -> u64 {
        for &site in &self.members {
            spins[site as usize] = -spins[site as usize];
        }
        self.members.len() as u64
    }
}

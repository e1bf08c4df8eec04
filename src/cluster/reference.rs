//! The plainest statement of one cluster update of one lattice, straight from the keys of
//! [`crate::engine::clusters`]: bonds tested one by one, clusters found by breadth-first search
//! from each site in increasing order (so the first site of each is its root). The engines'
//! bond words, labelling and flips (CPU twins and kernels) are tested against it.

use std::collections::VecDeque;

use crate::engine::clusters::{bond_block, bond_words, flips, wolff_seed};
use crate::model::Lattice;

/// One update's keys: the run's seed, the update number and the run's index of the system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpdateKeys {
    pub seed: u64,
    pub update: u32,
    pub batch: u32,
    /// The temperature's activation threshold.
    pub threshold: u32,
}

impl UpdateKeys {
    /// Whether bond `d` of `site` (to its forward neighbour along `d`) is active in `spins`.
    pub fn active(&self, lattice: &Lattice, spins: &[i32], site: u64, d: u32) -> bool {
        let neighbour = lattice
            .forward_neighbours(site)
            .nth(d as usize)
            .expect("d < directions");
        let (block, word) = bond_block(site as u32, d, lattice.directions());
        spins[site as usize] == spins[neighbour as usize]
            && bond_words(self.seed, block, self.update, self.batch)[word as usize] < self.threshold
    }
}

/// Every site's root (its cluster's smallest site) under the update's active bonds.
pub fn partition(lattice: &Lattice, spins: &[i32], keys: UpdateKeys) -> Vec<u32> {
    let n = lattice.sites() as usize;
    // Each site's neighbours over active bonds, both ways.
    let mut joined: Vec<Vec<u32>> = vec![Vec::new(); n];
    for site in 0..n as u64 {
        for (d, neighbour) in lattice.forward_neighbours(site).enumerate() {
            if keys.active(lattice, spins, site, d as u32) {
                joined[site as usize].push(neighbour as u32);
                joined[neighbour as usize].push(site as u32);
            }
        }
    }
    let mut roots = vec![u32::MAX; n];
    for first in 0..n {
        if roots[first] != u32::MAX {
            continue;
        }
        roots[first] = first as u32;
        let mut queue = VecDeque::from([first]);
        while let Some(site) = queue.pop_front() {
            for &next in &joined[site] {
                if roots[next as usize] == u32::MAX {
                    roots[next as usize] = first as u32;
                    queue.push_back(next as usize);
                }
            }
        }
    }
    roots
}

/// One Swendsen-Wang update of `spins`; returns `sum_C |C|^2`.
pub fn swendsen_wang(lattice: &Lattice, spins: &mut [i32], keys: UpdateKeys) -> u64 {
    let roots = partition(lattice, spins, keys);
    let mut sizes = vec![0u64; roots.len()];
    for &root in &roots {
        sizes[root as usize] += 1;
    }
    for (spin, &root) in spins.iter_mut().zip(&roots) {
        if flips(keys.seed, root, keys.update, keys.batch) {
            *spin = -*spin;
        }
    }
    sizes.iter().map(|s| s * s).sum()
}

/// One Wolff update of `spins`: the cluster of the seed site flips; returns its size.
pub fn wolff(lattice: &Lattice, spins: &mut [i32], keys: UpdateKeys) -> u64 {
    let roots = partition(lattice, spins, keys);
    let seed = wolff_seed(keys.seed, lattice.sites(), keys.update, keys.batch);
    let root = roots[seed as usize];
    let mut size = 0;
    for (spin, &r) in spins.iter_mut().zip(&roots) {
        if r == root {
            *spin = -*spin;
            size += 1;
        }
    }
    size
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Boundaries, ClusterUpdate};
    use crate::engine::cpu::CpuEngine;
    use crate::engine::{Engine, Plan, clusters_of};
    use crate::model::ising::IsingSystems;

    /// The CPU engine's updates (bond words, union-find, flips; Wolff's growth) against the
    /// reference, system by system, over several updates of 2D and 3D lattices, L = 2 (two
    /// bonds between each pair of neighbours) included.
    #[test]
    fn the_cpu_engine_updates_as_the_reference_does() {
        for (dims, size) in [(2, 2), (2, 6), (3, 2), (3, 4)] {
            for update in [ClusterUpdate::SwendsenWang, ClusterUpdate::Wolff] {
                let lattice = Lattice::new(dims, size);
                let betas = vec![0.1, 0.3, 1.0];
                let systems = IsingSystems::ferromagnet(lattice, 0.0, betas, 2, 5);
                let mut engine = CpuEngine::new(systems.clone());
                engine.hot_start().unwrap();
                clusters_of(&mut engine)
                    .unwrap()
                    .set_clusters(update)
                    .unwrap();
                let mut expected = engine.spins().unwrap().into_bits().unwrap();
                for n in 0..4 {
                    let mut plan = Plan::default();
                    plan.cluster(n, true);
                    plan.measure();
                    let measured = engine.execute(&plan).unwrap();
                    for b in 0..systems.systems() {
                        let mut spins = expected.system_signs(b);
                        let keys = UpdateKeys {
                            seed: systems.seed,
                            update: n,
                            batch: b,
                            threshold: systems.activation_thresholds()
                                [systems.temperature_of(b) as usize],
                        };
                        let statistic = match update {
                            ClusterUpdate::SwendsenWang => {
                                swendsen_wang(&lattice, &mut spins, keys)
                            }
                            ClusterUpdate::Wolff => wolff(&lattice, &mut spins, keys),
                        };
                        let what = format!("{update:?} {dims}D L = {size}, update {n}, system {b}");
                        assert_eq!(measured.cluster_sizes[b as usize], statistic, "{what}");
                        for (site, &spin) in spins.iter().enumerate() {
                            expected.set(b, site as u64, spin > 0);
                        }
                    }
                    assert_eq!(engine.spins().unwrap().into_bits().unwrap(), expected);
                }
            }
        }
    }

    /// The GPU kernels' Wolff (the Swendsen-Wang labels, then the seed's cluster flipped, as
    /// their CPU twins do it) is the growth of the seed's cluster that the CPU engine makes.
    #[test]
    fn wolff_by_labels_is_wolff_by_growth() {
        use crate::engine::clusters::wolff_seed;
        use crate::engine::cpu::{
            WolffGrowth, active_bonds, flip_marked, label_sites, mark_seed_cluster, point_at_roots,
            start_labelling,
        };
        for (dims, size) in [(2, 2), (2, 8), (3, 4)] {
            let lattice = Lattice::new(dims, size);
            let n = lattice.sites() as usize;
            let systems = IsingSystems::ferromagnet(lattice, 0.0, vec![0.4], 1, 11);
            let start = crate::engine::cpu::hot_start::initial_spins(&systems).system_signs(0);
            let threshold = systems.activation_thresholds()[0];
            for update in 0..8 {
                let mut grown = start.clone();
                let key = (11, update, 3);
                let mut growth = WolffGrowth::start(&lattice, key);
                growth.grow(&lattice, &grown, threshold, key, size);
                let size_grown = growth.flip(&mut grown);
                let mut labelled = start.clone();
                let mut bonds = vec![0u32; n / 4];
                let groups = 0..bonds.len() as u32;
                active_bonds(
                    (&lattice, Boundaries::PERIODIC),
                    (&labelled, 0),
                    threshold,
                    (11, update, 3),
                    groups,
                    &mut bonds,
                );
                let mut labels = vec![0u32; n];
                start_labelling(&mut labels);
                label_sites(&lattice, &bonds, &mut labels, 0..n as u64);
                point_at_roots(&mut labels, 0..n as u64, None);
                let root = labels[wolff_seed(11, n as u64, update, 3) as usize];
                let mut flips = vec![0u64; n.div_ceil(64)];
                let size_labelled = mark_seed_cluster(&labels, 0..n as u64, root, &mut flips);
                flip_marked(&mut labelled, &flips);
                assert_eq!(
                    (grown, size_grown),
                    (labelled, size_labelled),
                    "{dims}D L = {size}"
                );
            }
        }
    }

    /// At beta = 0 no bond is active: every site is its own cluster.
    #[test]
    fn without_bonds_every_site_is_a_cluster() {
        let lattice = Lattice::new(2, 4);
        let spins = vec![1; 16];
        let keys = UpdateKeys {
            seed: 1,
            update: 0,
            batch: 0,
            threshold: 0,
        };
        assert_eq!(
            partition(&lattice, &spins, keys),
            (0..16).collect::<Vec<u32>>()
        );
        let all = UpdateKeys {
            threshold: u32::MAX,
            ..keys
        };
        // Every bond but the rare word u32::MAX is active on an aligned lattice: one cluster.
        assert!(partition(&lattice, &spins, all).iter().all(|&r| r == 0));
    }
}

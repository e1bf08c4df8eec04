//! CPU twin of `shaders/wgsl/cluster_flip.wgsl` and `shaders/cuda/cluster_flip.cu`: the flips
//! of a cluster update after [`super::cluster_roots`], and its statistic
//! ([`crate::engine::clusters`]).
//!
//! Swendsen-Wang: site `i` flips iff its root `labels[i]` flips (the top bit of word `r mod 4` of
//! block `(r / 4, n, ClusterFlip, 0, 0, b)`); its statistic is `sum_C |C|^2` from the roots'
//! counts. Wolff: the sites labelled as the seed's root flip; its statistic is `|C|`.

use crate::engine::clusters::{flip_words, wolff_seed};

/// Flip every Swendsen-Wang cluster whose root says so; returns `sum_C |C|^2` from `counts`
/// (each root's sites), 0 without them.
pub fn flip_clusters(
    spins: &mut [i32],
    labels: &[u32],
    counts: Option<&[u32]>,
    seed: u64,
    update: u32,
    batch: u32,
) -> u64 {
    let mut squares = 0u64;
    // Neighbouring sites mostly share a root: its block is drawn once for them (as the kernels
    // do within a thread's four sites).
    let mut cached = (u32::MAX, [0u32; 4]);
    for (site, (spin, &root)) in spins.iter_mut().zip(labels).enumerate() {
        if cached.0 != root / 4 {
            cached = (root / 4, flip_words(seed, root / 4, update, batch));
        }
        if cached.1[(root % 4) as usize] >> 31 == 1 {
            *spin = -*spin;
        }
        if let Some(counts) = counts
            && root == site as u32
        {
            squares += u64::from(counts[site]).pow(2);
        }
    }
    squares
}

/// Flip the Wolff cluster: the sites of the seed's root; returns its size.
pub fn flip_seed_cluster(
    spins: &mut [i32],
    labels: &[u32],
    seed: u64,
    update: u32,
    batch: u32,
) -> u64 {
    let root = labels[wolff_seed(seed, spins.len() as u64, update, batch) as usize];
    let mut size = 0;
    for (spin, &label) in spins.iter_mut().zip(labels) {
        if label == root {
            *spin = -*spin;
            size += 1;
        }
    }
    size
}

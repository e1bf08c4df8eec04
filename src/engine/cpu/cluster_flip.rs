//! CPU twin of `shaders/wgsl/cluster_flip.wgsl` and `shaders/cuda/cluster_flip.cu`: the flips
//! of a cluster update and the sizes of its clusters ([`crate::engine::clusters`]).
//!
//! Swendsen-Wang: site `i` flips iff its cluster's root `labels[i]` flips (the top bit of word
//! `r mod 4` of block `(r / 4, n, ClusterFlip, 0, 0, b)`). Its statistic is `sum_C |C|^2`.
//! Wolff: the sites labelled as the seed flip; its statistic is `|C|`.

use crate::engine::clusters::flips;

/// Flip every Swendsen-Wang cluster whose root says so; returns `sum_C |C|^2`.
/// `counts` is scratch of one `u32` per site.
pub fn flip_clusters(
    spins: &mut [i32],
    labels: &[u32],
    counts: &mut [u32],
    seed: u64,
    update: u32,
    batch: u32,
) -> u64 {
    counts.fill(0);
    for &root in labels {
        counts[root as usize] += 1;
    }
    let mut squares = 0u64;
    let mut flipping = vec![false; spins.len()];
    for (root, &count) in counts.iter().enumerate() {
        if count > 0 {
            squares += u64::from(count) * u64::from(count);
            flipping[root] = flips(seed, root as u32, update, batch);
        }
    }
    for (spin, &root) in spins.iter_mut().zip(labels) {
        if flipping[root as usize] {
            *spin = -*spin;
        }
    }
    squares
}

/// Flip the cluster labelled `root` (Wolff's); returns its size.
pub fn flip_cluster(spins: &mut [i32], labels: &[u32], root: u32) -> u64 {
    let mut size = 0;
    for (spin, &label) in spins.iter_mut().zip(labels) {
        if label == root {
            *spin = -*spin;
            size += 1;
        }
    }
    size
}

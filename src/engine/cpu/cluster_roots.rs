//! CPU twin of `shaders/wgsl/cluster_roots.wgsl` and `shaders/cuda/cluster_roots.cu`: every
//! site of one system pointed at its root after [`super::cluster_label`], and, where a
//! Swendsen-Wang update records, each root's count of sites.

use super::cluster_label::find_root;

/// Point every site of `labels` (a union-find forest) at its root; with `counts` (zeroed, one
/// per site), count the sites of each root into it.
pub fn point_at_roots(labels: &mut [u32], mut counts: Option<&mut [u32]>) {
    for site in 0..labels.len() {
        let root = find_root(labels, site as u32);
        labels[site] = root;
        if let Some(counts) = counts.as_deref_mut() {
            counts[root as usize] += 1;
        }
    }
}

//! CPU twin of `shaders/wgsl/cluster_roots.wgsl` and `shaders/cuda/cluster_roots.cu`: the sites
//! of one system pointed at their roots after [`super::cluster_label`], and, where a
//! Swendsen-Wang update counts, each root's count of sites; a range of sites at a time, as the
//! pieces of an update ([`crate::engine::Step::ClusterPart`]) take them.

use std::ops::Range;

use super::cluster_label::find_root;

/// Point the sites `sites` of `labels` (a union-find forest whose labelling is done) at their
/// roots; with `counts` (zeroed before the first range, one per site), count each root's sites
/// into it and return what they add to `sum_C |C|^2` (`(c + 1)^2 - c^2 = 2 c + 1` a site), so
/// that ranges that cover every site once give the whole statistic.
pub fn point_at_roots(
    labels: &mut [u32],
    sites: Range<u64>,
    mut counts: Option<&mut [u32]>,
) -> u64 {
    let mut squares = 0;
    for site in sites {
        let root = find_root(labels, site as u32);
        labels[site as usize] = root;
        if let Some(counts) = counts.as_deref_mut() {
            let count = &mut counts[root as usize];
            squares += 2 * u64::from(*count) + 1;
            *count += 1;
        }
    }
    squares
}

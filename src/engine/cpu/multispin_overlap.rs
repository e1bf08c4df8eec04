//! CPU mirror of `shaders/wgsl/multispin_overlap.wgsl`: the sites where two replicas differ and
//! the bonds whose two sites differ differently (the link overlap), counted per x-plane (and per
//! lane for AMSC) with bit-sliced lane counters along lines. The overlap `q`, its Fourier
//! component at `k_min = (2 pi / L, 0, 0)` and the link overlap `q_l` follow exactly from these
//! integers (see `stats::overlap`).

use super::bitslice::LaneCounter;
use crate::engine::multispin::{LANES, MultispinLayout};

/// Counts of the word systems with spins `a` and `b` (see [`MultispinLayout::pair_counts`]):
/// differing sites per overlap slot ([`MultispinLayout::overlap_slot`]), then per overlap slot
/// the forward bonds of those sites whose ends differ in `D = a ^ b` (`q_i q_j = -1`).
pub fn overlap_planes(layout: &MultispinLayout, a: &[u32], b: &[u32]) -> Vec<u32> {
    let colour_words = layout.colour_words() as usize;
    let differ: Vec<u32> = a.iter().zip(b).map(|(a, b)| a ^ b).collect();
    let slots = layout.overlap_slots() as usize;
    let mut counts = vec![0u32; layout.pair_counts() as usize];
    for line in 0..layout.lines() {
        let (mut sites, mut links) = (LaneCounter::default(), LaneCounter::default());
        for y in 0..layout.lattice().size {
            let (colour, site) = layout.line_site(line, y);
            let own = &differ[colour as usize * colour_words..][..colour_words];
            let other = &differ[(1 - colour) as usize * colour_words..][..colour_words];
            let d_own = own[(site.row * layout.row_words() + site.w) as usize];
            sites.add(d_own);
            for d in 0..layout.lattice().dims {
                links.add(d_own ^ layout.neighbours(other, &site, d)[1]);
            }
        }
        let (_, w, p) = layout.line_position(line);
        for j in 0..LANES {
            let slot = layout.overlap_slot(w, p, j) as usize;
            counts[slot] += sites.lane(j);
            counts[slots + slot] += links.lane(j);
        }
    }
    counts
}

//! CPU mirror of `shaders/wgsl/multispin_overlap.wgsl`: the sites where two replicas differ,
//! counted per x-plane (and per lane for AMSC) with bit-sliced lane counters along lines.
//! The overlap `q` and its Fourier component at `k_min = (2 pi / L, 0, 0)` follow exactly from
//! these integers (see `stats::overlap`).

use super::bitslice::LaneCounter;
use crate::engine::multispin::{LANES, MultispinLayout};

/// Counts of differing sites per overlap slot (see [`MultispinLayout::overlap_slot`]) of the
/// word systems with spins `a` and `b`.
pub fn overlap_planes(layout: &MultispinLayout, a: &[u32], b: &[u32]) -> Vec<u32> {
    let colour_words = layout.colour_words() as usize;
    let mut slots = vec![0u32; layout.overlap_slots() as usize];
    for line in 0..layout.lines() {
        let mut differ = LaneCounter::default();
        for y in 0..layout.lattice().size {
            let (colour, site) = layout.line_site(line, y);
            let at =
                colour as usize * colour_words + (site.row * layout.row_words() + site.w) as usize;
            differ.add(a[at] ^ b[at]);
        }
        let (_, w, p) = layout.line_position(line);
        for j in 0..LANES {
            slots[layout.overlap_slot(w, p, j) as usize] += differ.lane(j);
        }
    }
    slots
}

//! CPU mirror of `shaders/wgsl/multispin_overlap.wgsl`: the sites where two replicas differ and
//! the bonds whose two sites differ differently (the link overlap; the triangular lattice's
//! diagonal bonds too; none across an open edge), counted per x-plane (and per lane for AMSC) with lane tallies along
//! strips of lines, each strip in one x-plane. The overlap `q`, its Fourier
//! component at `k_min = (2 pi / L, 0, 0)` and the link overlap `q_l` follow exactly from these
//! integers (see `stats::overlap`).

use super::bitslice::LaneTally;
use crate::engine::multispin::{LANES, MultispinLayout};

/// Counts of the word systems with spins `a` and `b` (see [`MultispinLayout::pair_counts`]):
/// per overlap slot ([`MultispinLayout::overlap_slot`]) the differing sites and the forward bonds
/// of those sites whose ends differ in `D = a ^ b` (`q_i q_j = -1`), one word a slot where they
/// are packed, else the sites' slots then the bonds'.
pub fn overlap_planes(layout: &MultispinLayout, a: &[u32], b: &[u32]) -> Vec<u32> {
    let colour_words = layout.colour_words() as usize;
    let differ: Vec<u32> = a.iter().zip(b).map(|(a, b)| a ^ b).collect();
    let slots = layout.overlap_slots() as usize;
    let packed = layout.packs_overlap_counts();
    let mut counts = vec![0u32; layout.pair_counts() as usize];
    for strip in 0..layout.strips() {
        let (mut sites, mut links) = (LaneTally::default(), LaneTally::default());
        for (step, (colour, site)) in layout.strip_sites(strip).enumerate() {
            let own = &differ[colour as usize * colour_words..][..colour_words];
            let other = &differ[(1 - colour) as usize * colour_words..][..colour_words];
            let d_own = own[(site.row * layout.row_words() + site.w) as usize];
            let mut link_words = [0u32; 3];
            for (d, link) in (0..layout.lattice().dims).zip(&mut link_words) {
                if layout.bond_sides(colour, d)[1] && layout.has_bonds(&site, d) {
                    let open = layout.open_lanes(&site, d, 1);
                    *link = (d_own ^ layout.neighbours(other, &site, d)[1]) & !open;
                }
            }
            if layout.is_triangular() && layout.has_bonds(&site, 2) {
                let open = layout.open_lanes(&site, 2, 1);
                link_words[2] = (d_own ^ layout.diagonal_neighbours(own, &site)[1]) & !open;
            }
            // A kagome hole's spins are no spins.
            let d_own = if layout.is_hole(&site) { 0 } else { d_own };
            sites.add3(d_own, 0, 0);
            links.add3(link_words[0], link_words[1], link_words[2]);
            sites.step(&mut links, step);
        }
        sites.flush();
        links.flush();
        let (_, w, p) = layout.line_position(strip);
        for j in 0..LANES {
            let slot = layout.overlap_slot(w, p, j) as usize;
            match packed {
                true => counts[slot] += sites.lane(j) | links.lane(j) << 16,
                false => {
                    counts[slot] += sites.lane(j);
                    counts[slots + slot] += links.lane(j);
                }
            }
        }
    }
    counts
}

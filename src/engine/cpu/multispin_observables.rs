//! CPU mirror of `shaders/wgsl/multispin_observables.wgsl`: per lane of every word, the number
//! of up spins (of the bipartite antiferromagnet, the staggered count: up on colour 0, down on
//! colour 1) and of satisfied bonds (`J s s' = +1`, each bond once via the forward
//! neighbours, the triangular lattice's diagonal the third; none of a kagome hole, none
//! across an open edge), summed with lane tallies along strips of lines of sites.

use super::bitslice::LaneTally;
use crate::engine::multispin::{LANES, MultispinLayout};

/// `[lane] -> [up, satisfied]` of word system `g`, whose spins are `spins`.
pub fn observe_lanes(
    layout: &MultispinLayout,
    couplings: &[u32],
    spins: &[u32],
    g: u32,
) -> Vec<[u64; 2]> {
    let colour_words = layout.colour_words() as usize;
    let group = layout.coupling_group(g);
    let mut totals = vec![[0u64; 2]; LANES as usize];
    for strip in 0..layout.strips() {
        let (mut up, mut satisfied) = (LaneTally::default(), LaneTally::default());
        for (step, (colour, site)) in layout.strip_sites(strip).enumerate() {
            let own = &spins[colour as usize * colour_words..][..colour_words];
            let other = &spins[(1 - colour) as usize * colour_words..][..colour_words];
            let cw = (site.row * layout.row_words() + site.w) as usize;
            let spin = own[cw];
            let mut bonds = [0u32; 3];
            for (d, bond_word) in (0..layout.lattice().dims).zip(&mut bonds) {
                let bonds = layout.bond_array(couplings, group, d, colour);
                let bond = bonds.get(cw).copied().unwrap_or(0);
                if layout.bond_sides(colour, d)[1] && layout.has_bonds(&site, d) {
                    let open = layout.open_lanes(&site, d, 1);
                    *bond_word = !(spin ^ layout.neighbours(other, &site, d)[1] ^ bond | open);
                }
            }
            if layout.is_triangular() && layout.has_bonds(&site, 2) {
                let bond = layout.bond_array(couplings, group, 2, colour).get(cw);
                let diagonal = layout.diagonal_neighbours(own, &site)[1];
                let open = layout.open_lanes(&site, 2, 1);
                bonds[2] = !(spin ^ diagonal ^ bond.copied().unwrap_or(0) | open);
            }
            // A kagome hole's spin is no spin; the staggered count takes colour 1's down spins.
            let counted = match layout.systems.staggered() && colour == 1 {
                true => !spin,
                false => spin,
            };
            up.add3(if layout.is_hole(&site) { 0 } else { counted }, 0, 0);
            satisfied.add3(bonds[0], bonds[1], bonds[2]);
            up.step(&mut satisfied, step);
        }
        up.flush();
        satisfied.flush();
        for (lane, total) in totals.iter_mut().enumerate() {
            total[0] += u64::from(up.lane(lane as u32));
            total[1] += u64::from(satisfied.lane(lane as u32));
        }
    }
    totals
}

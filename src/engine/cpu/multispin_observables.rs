//! CPU mirror of `shaders/wgsl/multispin_observables.wgsl`: per lane of every word, the number
//! of up spins and of satisfied bonds (`J s s' = +1`, each bond once via the forward
//! neighbours), summed with bit-sliced lane counters along lines of sites.

use super::bitslice::LaneCounter;
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
    for line in 0..layout.lines() {
        let (mut up, mut satisfied) = (LaneCounter::default(), LaneCounter::default());
        for y in 0..layout.lattice().size {
            let (colour, site) = layout.line_site(line, y);
            let own = &spins[colour as usize * colour_words..][..colour_words];
            let other = &spins[(1 - colour) as usize * colour_words..][..colour_words];
            let cw = (site.row * layout.row_words() + site.w) as usize;
            let spin = own[cw];
            up.add(spin);
            for d in 0..layout.lattice().dims {
                let bonds = layout.bond_array(couplings, group, d, colour);
                let bond = bonds.get(cw).copied().unwrap_or(0);
                satisfied.add(!(spin ^ layout.neighbours(other, &site, d)[1] ^ bond));
            }
        }
        for (lane, total) in totals.iter_mut().enumerate() {
            total[0] += u64::from(up.lane(lane as u32));
            total[1] += u64::from(satisfied.lane(lane as u32));
        }
    }
    totals
}

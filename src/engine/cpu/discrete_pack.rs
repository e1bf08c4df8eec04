//! CPU twin of `discrete_pack` (`shaders/wgsl/discrete_pack.wgsl`,
//! `shaders/cuda/discrete_pack.cu`): one system's states, a word a site, into its bit planes
//! ([`crate::engine::planes`]): bit `b` of word `w` of plane `p` of colour `c` is bit `p` of the
//! state of colour site `32 w + b`.

use crate::engine::planes::{PLANE_BITS, PlaneLayout};

/// Write the bit planes of one system's `states` into `packed` (as [`PlaneLayout::word`] lays
/// out one system).
pub fn pack_states(layout: &PlaneLayout, states: &[i32], packed: &mut [u32]) {
    let (planes, words) = (layout.planes(), layout.words_per_colour());
    packed.fill(0);
    for c in 0..2 {
        for w in 0..words {
            for bit in 0..PLANE_BITS {
                let site = layout.lattice.colour_site(c, w * PLANE_BITS + bit);
                let state = states[site as usize] as u32;
                for p in 0..planes {
                    let word = layout.word(0, p, c, w) as usize;
                    packed[word] |= ((state >> p) & 1) << bit;
                }
            }
        }
    }
}

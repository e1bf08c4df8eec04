//! CPU twin of `discrete_unpack` (`shaders/wgsl/discrete_unpack.wgsl`,
//! `shaders/cuda/discrete_unpack.cu`): one system's bit planes ([`crate::engine::planes`]) back
//! into its states, a word a site, the inverse of `discrete_pack`.

use crate::engine::planes::{PLANE_BITS, PlaneLayout};

/// Write the states of one system's bit `planes` into `states`.
pub fn unpack_states(layout: &PlaneLayout, planes: &[u32], states: &mut [i32]) {
    let words = layout.words_per_colour();
    for c in 0..2 {
        for w in 0..words {
            for bit in 0..PLANE_BITS {
                let site = layout.lattice.colour_site(c, w * PLANE_BITS + bit);
                let state = (0..layout.planes()).fold(0u32, |state, p| {
                    let word = planes[layout.word(0, p, c, w) as usize];
                    state | (((word >> bit) & 1) << p)
                });
                states[site as usize] = state as i32;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::discrete_pack::pack_states;
    use super::*;
    use crate::model::Lattice;

    #[test]
    fn unpacking_packed_states_gives_them_back() {
        for (dims, size, q) in [(2, 64, 3), (2, 128, 8), (3, 64, 5), (2, 64, 256)] {
            let layout = PlaneLayout {
                lattice: Lattice::new(dims, size),
                q,
                systems: 1,
            };
            let sites = layout.lattice.sites() as usize;
            let states: Vec<i32> = (0..sites)
                .map(|i| ((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as i32 % q as i32)
                .collect();
            let mut planes = vec![!0; layout.system_words() as usize];
            pack_states(&layout, &states, &mut planes);
            assert_eq!(planes.len() as u64, layout.system_words());
            let mut back = vec![-1; sites];
            unpack_states(&layout, &planes, &mut back);
            assert_eq!(back, states, "{dims}D L = {size}, q = {q}");
        }
    }
}

//! The systems' spins ([`SpinBits`], one bit per spin in natural order) packed into multispin
//! words and back, in parallel over rows (packing) and 64-spin chunks (unpacking).

use rayon::prelude::*;

use super::MultispinLayout;
use crate::engine::spins::SpinBits;

/// The even bits of `bits` (bit `2 j` to bit `j`): one colour's sites of 64 consecutive sites.
pub fn compact_even(bits: u64) -> u32 {
    let mut x = bits & 0x5555_5555_5555_5555;
    x = (x | x >> 1) & 0x3333_3333_3333_3333;
    x = (x | x >> 2) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x >> 4) & 0x00ff_00ff_00ff_00ff;
    x = (x | x >> 8) & 0x0000_ffff_0000_ffff;
    x = (x | x >> 16) & 0x0000_0000_ffff_ffff;
    x as u32
}

/// The inverse of [`compact_even`]: bit `j` of `word` to bit `2 j`, the odd bits zero.
pub fn spread_even(word: u32) -> u64 {
    let mut x = u64::from(word);
    x = (x | x << 16) & 0x0000_ffff_0000_ffff;
    x = (x | x << 8) & 0x00ff_00ff_00ff_00ff;
    x = (x | x << 4) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | x << 2) & 0x3333_3333_3333_3333;
    x = (x | x << 1) & 0x5555_5555_5555_5555;
    x
}

impl MultispinLayout {
    /// Pack the lattices into spin words (bit 1 = up). Idle lanes copy nothing and stay down.
    /// Rows are packed in parallel; SMSC rows take 64 sites at a time (see [`Self::smsc_row`]).
    pub fn pack(&self, spins: &SpinBits) -> Vec<u32> {
        let rows = self.rows() as usize;
        let mut words = vec![0u32; self.words() as usize];
        words
            .par_chunks_mut(self.row_words() as usize)
            .enumerate()
            .for_each(|(i, row_words)| {
                let (g, colour, row) = (
                    (i / (2 * rows)) as u32,
                    ((i / rows) % 2) as u32,
                    (i % rows) as u32,
                );
                if row >= self.own_rows() {
                    return;
                }
                if self.smsc() {
                    let (start, p) = self.smsc_row(g, colour, row);
                    for (w, word) in row_words.iter_mut().enumerate() {
                        let bits = spins.bits_at(start + 64 * w as u64, 64);
                        *word = compact_even(bits >> p);
                    }
                    return;
                }
                for (w, word) in row_words.iter_mut().enumerate() {
                    self.for_each_bit(g, colour, row, w as u32, |bit, system, site| {
                        if spins.up(system, site) {
                            *word |= 1 << bit;
                        }
                    });
                }
            });
        words
    }

    /// The lattices held in spin words, converted in parallel chunks of 64 spins: SMSC
    /// interleaves the two colours' words of a row segment, AMSC gathers each spin's lane.
    pub fn unpack(&self, words: &[u32]) -> SpinBits {
        let mut spins = SpinBits::for_systems(&self.systems);
        let n = self.systems.held_sites();
        let total = spins.len();
        spins
            .words_mut()
            .par_iter_mut()
            .enumerate()
            .for_each(|(k, out)| {
                let start = 64 * k as u64;
                if self.smsc() {
                    *out = self.smsc_segment(words, start);
                    return;
                }
                let mut located = (u32::MAX, (0, 0));
                for j in 0..(total - start).min(64) {
                    let (system, site) = ((start + j) / n, (start + j) % n);
                    let system = system as u32;
                    if located.0 != system {
                        located = (system, self.system_lane(system));
                    }
                    let (g, lane) = located.1;
                    let [x, y, z] = self.lattice().coords(site);
                    let row = z * self.lattice().size + y;
                    let word = words[self.word_index(g, (x + y + z) & 1, row, x / 2)];
                    *out |= u64::from(word >> lane & 1) << j;
                }
            });
        spins
    }

    /// For SMSC: the run bit of the first site of row `row` of system `g` (a word system is one
    /// system), and the parity `p` of the sites of `colour` in it. Word `w` of the colour holds
    /// the sites `x = 2 (32 w + j) + p`, so the 64 run bits from `start + 64 w` hold its bits at
    /// every other position from `p`. Rows hold a multiple of 64 sites.
    fn smsc_row(&self, g: u32, colour: u32, row: u32) -> (u64, u32) {
        let (y, z) = self.row_coords(row);
        let start = u64::from(g) * self.systems.held_sites()
            + u64::from(row) * u64::from(self.lattice().size);
        (start, (y + z + colour) & 1)
    }

    /// For SMSC: the 64 run bits from `start` (a multiple of 64), interleaved from the two
    /// colours' words of their row segment.
    fn smsc_segment(&self, words: &[u32], start: u64) -> u64 {
        let held = self.systems.held_sites();
        let (g, site) = (start / held, start % held);
        let l = u64::from(self.lattice().size);
        let (row, w) = ((site / l) as u32, (site % l / 64) as u32);
        let (y, z) = self.row_coords(row);
        let even_colour = (y + z) & 1;
        let even = words[self.word_index(g as u32, even_colour, row, w)];
        let odd = words[self.word_index(g as u32, even_colour ^ 1, row, w)];
        spread_even(even) | spread_even(odd) << 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::multispin::fixtures::all_layouts;

    #[test]
    fn every_system_site_is_one_bit_and_pack_round_trips() {
        for layout in all_layouts() {
            let n = layout.systems.spin_count();
            let signs: Vec<i32> = (0..n)
                .map(|i| if (i * 7919) % 13 < 6 { 1 } else { -1 })
                .collect();
            let spins =
                SpinBits::from_signs(layout.systems.systems(), layout.lattice().sites(), &signs);
            let words = layout.pack(&spins);
            assert_eq!(words.len() as u64, layout.words());
            assert_eq!(layout.unpack(&words), spins, "{:?}", layout.layout);
            let mut seen = vec![0u8; n];
            layout.for_each_word(|index, g, colour, row, w| {
                layout.for_each_bit(g, colour, row, w, |bit, system, site| {
                    let [x, y, z] = layout.lattice().coords(site);
                    assert_eq!((x + y + z) % 2, colour);
                    assert_eq!(words[index] >> bit & 1 == 1, spins.up(system, site));
                    seen[(u64::from(system) * layout.lattice().sites() + site) as usize] += 1;
                });
            });
            assert!(seen.iter().all(|&c| c == 1), "{:?}", layout.layout);
        }
    }
}

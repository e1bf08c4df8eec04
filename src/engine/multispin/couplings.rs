//! The couplings in multispin words: per coupling group (32 samples in lanes, else one
//! sample), one bit per forward bond of each site and direction, in the colour arrays' order.

use rayon::prelude::*;

use super::{LANES, MultispinLayout};
use crate::config::Lanes;
use crate::model::couplings::is_antiferromagnetic;

impl MultispinLayout {
    /// Coupling groups: 32 samples each with lanes = samples, else one per sample.
    pub fn coupling_groups(&self) -> u32 {
        match self.lanes() {
            Some(Lanes::Samples) => self.systems.samples / LANES,
            _ => self.systems.samples,
        }
    }

    /// The coupling group of word system `g`.
    pub fn coupling_group(&self, g: u32) -> u32 {
        (g / self.replica_words) % self.sample_words
    }

    /// The coupling words of every group (empty for the ferromagnet on the torus): bit 1 marks
    /// an antiferromagnetic forward bond (a glass's, an antiferromagnet's, or one across an
    /// antiperiodic edge), of each bond direction (the triangular lattice's diagonal the third). A
    /// sample's bonds are drawn by its index in the run.
    pub fn coupling_words(&self) -> Vec<u32> {
        let s = &self.systems;
        if !s.reads_couplings() {
            return Vec::new();
        }
        let directions = self.lattice().directions();
        let bonds: Vec<Vec<u32>> = (0..s.samples)
            .into_par_iter()
            .map(|sample| s.antiferromagnetic_bonds(s.global_sample(sample)))
            .collect();
        let rows = self.rows() as usize;
        let colour_words = self.colour_words() as usize;
        let mut words =
            vec![0u32; self.coupling_groups() as usize * directions as usize * 2 * colour_words];
        // Rows in parallel; the first word system of each group stands for the group (same
        // samples, same sites).
        words
            .par_chunks_mut(self.row_words() as usize)
            .enumerate()
            .for_each(|(i, row_words)| {
                let (row, colour) = ((i % rows) as u32, ((i / rows) % 2) as u32);
                let (d, group) = (
                    (i / (2 * rows)) as u32 % directions,
                    (i / (2 * rows)) as u32 / directions,
                );
                for (w, word) in row_words.iter_mut().enumerate() {
                    let g = group * self.replica_words;
                    self.for_each_bit(g, colour, row, w as u32, |bit, system, site| {
                        let sample = s.sample_of(system);
                        let bond = self.lattice_site(site) * u64::from(directions) + u64::from(d);
                        if is_antiferromagnetic(&bonds[sample as usize], bond) {
                            *word |= 1 << bit;
                        }
                    });
                }
            });
        words
    }

    /// The coupling words of group `group`, direction `d`, colour `colour` (empty for the
    /// ferromagnet).
    pub fn bond_array<'a>(
        &self,
        couplings: &'a [u32],
        group: u32,
        d: u32,
        colour: u32,
    ) -> &'a [u32] {
        if couplings.is_empty() {
            return &[];
        }
        let colour_words = self.colour_words() as usize;
        let directions = self.lattice().directions() as usize;
        let array = (group as usize * directions + d as usize) * 2 + colour as usize;
        &couplings[array * colour_words..][..colour_words]
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::multispin::fixtures::all_layouts;
    use crate::model::couplings::coupling_signs_of;

    #[test]
    fn coupling_words_hold_each_sample_bond() {
        for layout in all_layouts() {
            let words = layout.coupling_words();
            if words.is_empty() {
                assert!(!layout.systems.reads_couplings());
                continue;
            }
            let lattice = layout.lattice();
            let dims = lattice.directions();
            let s = &layout.systems;
            let values: Vec<Vec<i8>> = (0..s.samples)
                .map(|sample| coupling_signs_of(&lattice, &s.antiferromagnetic_bonds(sample)))
                .collect();
            for g in 0..layout.word_systems() {
                let group = layout.coupling_group(g);
                for d in 0..dims {
                    for colour in 0..2 {
                        for row in 0..layout.rows() {
                            for w in 0..layout.row_words() {
                                let word = words[((group * dims + d) * 2 + colour) as usize
                                    * layout.colour_words() as usize
                                    + (row * layout.row_words() + w) as usize];
                                layout.for_each_bit(g, colour, row, w, |bit, system, site| {
                                    let sample = s.sample_of(system);
                                    let j = values[sample as usize]
                                        [(site * u64::from(dims) + u64::from(d)) as usize];
                                    // A honeycomb's gap (0) is no bond: no kernel reads its bit.
                                    if j != 0 {
                                        assert_eq!(word >> bit & 1 == 1, j < 0);
                                    }
                                });
                            }
                        }
                    }
                }
            }
        }
    }
}

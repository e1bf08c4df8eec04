//! CPU mirror of `shaders/wgsl/multispin_metropolis.wgsl`: checkerboard Metropolis on spin
//! words, 32 lanes (AMSC) or 32 sites (SMSC) per word, with exact independent decisions.
//!
//! Per word: count the unsatisfied bonds of every lane (`s ^ n ^ j`, bit-sliced), sort lanes
//! into energy categories, accept the lanes whose flip lowers or keeps the energy, and decide
//! the others by comparing a uniform 32-bit word per lane with the lane's threshold, most
//! significant bit first, one random word per bit ([`DecisionRule::accepted_lanes`]).

use super::bitslice::{BondCount, count_equals};
use crate::config::Randoms;
use crate::engine::multispin::{LANES, MAX_CATEGORIES, MultispinLayout, WordSite};
use crate::rng::{Counter, Purpose, random_block};

/// The random words of one word update, four per Philox block: block `draw` is compared with
/// threshold bits `31 - 4 draw` down to `28 - 4 draw`.
struct UpdateRandoms {
    seed: u64,
    counter: Counter,
    shared: Option<u32>,
}

impl UpdateRandoms {
    fn new(layout: &MultispinLayout, g: u32, sweep: u32, colour: u32, word: u32) -> Self {
        let seed = layout.systems.seed;
        let exact = Counter {
            word,
            sweep,
            purpose: Purpose::MetropolisMultispin,
            colour,
            draw: 0,
            batch: layout.global_word_system(g),
        };
        let shared = (layout.randoms == Randoms::Shared).then(|| {
            let counter = Counter {
                word: word >> 2,
                purpose: Purpose::MetropolisShared,
                ..exact
            };
            random_block(seed, counter)[(word & 3) as usize]
        });
        UpdateRandoms {
            seed,
            counter: exact,
            shared,
        }
    }

    /// The four random words of block `draw`; for shared randoms, bits `31 - 4 draw` down of
    /// the word's one uniform, each in every lane.
    fn block(&mut self, draw: u32) -> [u32; 4] {
        if let Some(uniform) = self.shared {
            let k = 31 - 4 * draw;
            return [0, 1, 2, 3].map(|j| 0u32.wrapping_sub(uniform >> (k - j) & 1));
        }
        self.counter.draw = draw;
        random_block(self.seed, self.counter)
    }
}

/// Lanes accepted so far, and lanes whose uniform agrees with their threshold in every bit so
/// far.
struct Decision {
    accept: u32,
    undecided: u32,
}

/// What a decision needs of the layout, computed once per colour update rather than per word:
/// the coordination, the class of each category and the number of classes.
struct DecisionRule {
    z: u32,
    category_classes: [u32; 2],
    classes: usize,
}

impl DecisionRule {
    fn new(layout: &MultispinLayout) -> Self {
        DecisionRule {
            z: layout.lattice().coordination(),
            category_classes: layout.category_classes(),
            classes: layout.energy_classes().len(),
        }
    }

    fn class_of(&self, cat: u32) -> u32 {
        self.category_classes[(cat / 8) as usize] >> (4 * (cat % 8)) & 0xf
    }

    /// The lanes of each energy class: categories (down, c) and (up, c) of that class.
    fn class_masks(&self, spin: u32, count: BondCount) -> [u32; MAX_CATEGORIES as usize] {
        let mut masks = [0u32; MAX_CATEGORIES as usize];
        for (class, mask) in masks.iter_mut().enumerate().take(self.classes) {
            for c in 0..=self.z {
                let down = self.class_of(c) == class as u32;
                let up = self.class_of(self.z + 1 + c) == class as u32;
                let spins = match (down, up) {
                    (true, true) => !0,
                    (true, false) => !spin,
                    (false, true) => spin,
                    (false, false) => 0,
                };
                *mask |= count_equals(count, c) & spins;
            }
        }
        masks
    }

    /// Lanes whose flip is accepted: those in categories that do not raise the energy, and the
    /// others where the lane's uniform `U <= t` for the threshold `t` of its energy class
    /// (`table[class * 32 + k]` holds bit `k` of every lane's threshold).
    fn accepted_lanes(
        &self,
        spin: u32,
        count: BondCount,
        table: &[u32],
        randoms: &mut UpdateRandoms,
    ) -> u32 {
        let masks = self.class_masks(spin, count);
        let undecided = masks.iter().fold(0, |a, m| a | m);
        let mut decision = Decision {
            accept: !undecided,
            undecided,
        };
        // Four bits per Philox block; once no lane is undecided, comparing changes nothing.
        for draw in 0..8 {
            if decision.undecided == 0 {
                break;
            }
            let k = 31 - 4 * draw;
            for (j, random) in randoms.block(draw).into_iter().enumerate() {
                self.compare_bit(&mut decision, &masks, table, random, k - j as u32);
            }
        }
        // Lanes still undecided drew U == t exactly: U <= t accepts.
        decision.accept | decision.undecided
    }

    /// One bit plane of the comparison `U <= t`, most significant first: a lane decides where
    /// its bit of `random` differs from bit `k` of its threshold.
    fn compare_bit(
        &self,
        decision: &mut Decision,
        masks: &[u32; MAX_CATEGORIES as usize],
        table: &[u32],
        random: u32,
        k: u32,
    ) {
        let threshold_bits = (0..self.classes).fold(0, |t, class| {
            t | masks[class] & table[class * 32 + k as usize]
        });
        decision.accept |= decision.undecided & threshold_bits & !random;
        decision.undecided &= !(threshold_bits ^ random);
    }
}

/// Per-lane unsatisfied bonds of the word at `site` with spin `spin`.
fn unsatisfied_bonds(
    layout: &MultispinLayout,
    spin: u32,
    other: &[u32],
    couplings: &[u32],
    group: u32,
    colour: u32,
    site: &WordSite,
) -> BondCount {
    let mut count = BondCount::default();
    let cw = (site.row * layout.row_words() + site.w) as usize;
    for d in 0..layout.lattice().dims {
        let own_bonds = layout.bond_array(couplings, group, d, colour);
        let other_bonds = layout.bond_array(couplings, group, d, 1 - colour);
        // The bond to the -d neighbour is that neighbour's forward bond.
        let bonds = if own_bonds.is_empty() {
            [0, 0]
        } else {
            [layout.neighbours(other_bonds, site, d)[0], own_bonds[cw]]
        };
        let neighbours = layout.neighbours(other, site, d);
        count.add(spin ^ neighbours[0] ^ bonds[0]);
        count.add(spin ^ neighbours[1] ^ bonds[1]);
    }
    count
}

/// Update colour `colour` of word system `g`, whose two colour arrays are `spins`.
pub fn sweep_colour(
    layout: &MultispinLayout,
    tables: &[u32],
    couplings: &[u32],
    spins: &mut [u32],
    g: u32,
    sweep: u32,
    colour: u32,
) {
    let colour_words = layout.colour_words() as usize;
    let (first, second) = spins.split_at_mut(colour_words);
    let (own, other) = if colour == 0 {
        (first, &*second)
    } else {
        (second, &*first)
    };
    let table_len = layout.energy_classes().len() * LANES as usize;
    let table = &tables[layout.table(g) as usize * table_len..][..table_len];
    let group = layout.coupling_group(g);
    let rule = DecisionRule::new(layout);
    for row in 0..layout.own_rows() {
        for w in 0..layout.row_words() {
            let site = layout.word_site(colour, row, w);
            let cw = row * layout.row_words() + w;
            let spin = own[cw as usize];
            let count = unsatisfied_bonds(layout, spin, other, couplings, group, colour, &site);
            let word = cw + layout.word_offset();
            let mut randoms = UpdateRandoms::new(layout, g, sweep, colour, word);
            own[cw as usize] = spin ^ rule.accepted_lanes(spin, count, table, &mut randoms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Lanes, Layout, MultispinOptions};
    use crate::engine::SpinBits;
    use crate::model::Lattice;
    use crate::model::couplings::coupling_values;
    use crate::model::ising::{IsingSystems, threshold};

    fn layout(
        dims: u32,
        size: u32,
        layout: Layout,
        randoms: Randoms,
        samples: u32,
        betas: usize,
    ) -> MultispinLayout {
        let betas = (0..betas).map(|i| 0.15 + 0.1 * i as f64).collect();
        let lattice = Lattice::new(dims, size);
        let systems = IsingSystems::spin_glass(lattice, -0.3, betas, samples, 2, 0x5eed);
        MultispinLayout::new(systems, MultispinOptions { layout, randoms })
    }

    /// The lane's uniform: bit `31 - i` is its bit of random word `i`.
    fn lane_uniform(
        layout: &MultispinLayout,
        g: u32,
        sweep: u32,
        colour: u32,
        cw: u32,
        bit: u32,
    ) -> u32 {
        let mut randoms = UpdateRandoms::new(layout, g, sweep, colour, cw);
        let words: Vec<u32> = (0..8).flat_map(|draw| randoms.block(draw)).collect();
        (0..32).fold(0, |u, i| u | (words[i] >> bit & 1) << (31 - i))
    }

    /// One colour update done site by site on plain lattices, each site with its own uniform.
    fn scalar_update(layout: &MultispinLayout, spins: &[i32], sweep: u32, colour: u32) -> Vec<i32> {
        let s = &layout.systems;
        let lattice = s.lattice;
        let n = lattice.sites();
        let couplings: Vec<Vec<i8>> = (0..s.samples)
            .map(|sample| coupling_values(s.disorder, &lattice, s.seed, sample))
            .collect();
        let mut out = spins.to_vec();
        layout.for_each_word(|_, g, c, row, w| {
            if c != colour {
                return;
            }
            let cw = row * layout.row_words() + w;
            layout.for_each_bit(g, c, row, w, |bit, system, site| {
                let j = &couplings[((system / s.replicas) % s.samples) as usize];
                let spin = spins[(u64::from(system) * n + site) as usize];
                let mut local = 0i32;
                for (k, neighbour) in lattice.neighbours(site).enumerate() {
                    let d = k as u64 / 2;
                    let bond =
                        if k % 2 == 1 { site } else { neighbour } * u64::from(lattice.dims) + d;
                    local += i32::from(j[bond as usize])
                        * spins[(u64::from(system) * n + neighbour) as usize];
                }
                let delta_e = 2.0 * f64::from(spin) * (f64::from(local) + s.field);
                let beta = s.betas[s.temperature_of(system) as usize];
                let u = lane_uniform(layout, g, sweep, colour, cw, bit);
                if delta_e <= 0.0 || u <= threshold(beta, delta_e) {
                    out[(u64::from(system) * n + site) as usize] = -spin;
                }
            });
        });
        out
    }

    #[test]
    fn bit_sliced_update_equals_a_scalar_update_per_lane() {
        let cases = [
            layout(
                2,
                4,
                Layout::Amsc {
                    lanes: Lanes::Samples,
                },
                Randoms::Exact,
                32,
                2,
            ),
            layout(
                3,
                4,
                Layout::Amsc {
                    lanes: Lanes::Temperatures,
                },
                Randoms::Exact,
                1,
                7,
            ),
            layout(
                3,
                2,
                Layout::Amsc {
                    lanes: Lanes::Temperatures,
                },
                Randoms::Shared,
                2,
                3,
            ),
            layout(2, 64, Layout::Smsc, Randoms::Exact, 1, 1),
            layout(3, 64, Layout::Smsc, Randoms::Shared, 1, 1),
        ];
        for layout in cases {
            let n = layout.systems.spin_count();
            let spins: Vec<i32> = (0..n)
                .map(|i| if (i * 2_654_435_761) % 7 < 3 { 1 } else { -1 })
                .collect();
            let tables = layout.threshold_tables();
            let couplings = layout.coupling_words();
            let bits =
                SpinBits::from_signs(layout.systems.systems(), layout.lattice().sites(), &spins);
            let mut words = layout.pack(&bits);
            let len = 2 * layout.colour_words() as usize;
            for (g, system_words) in words.chunks_mut(len).enumerate() {
                sweep_colour(&layout, &tables, &couplings, system_words, g as u32, 9, 1);
            }
            let got = layout.unpack(&words).to_signs();
            assert_eq!(
                got,
                scalar_update(&layout, &spins, 9, 1),
                "{}",
                layout.describe()
            );
            assert_ne!(got, spins, "{}: nothing flipped", layout.describe());
        }
    }
}

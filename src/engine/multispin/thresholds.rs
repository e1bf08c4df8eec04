//! The Metropolis thresholds of the multispin updates: energy categories (spin and unsatisfied
//! bonds), their classes (the distinct positive energy changes), and the bit-sliced threshold
//! tables per temperature, or compiled into the update where they never change.

use super::{LANES, MultispinLayout};
use crate::config::Lanes;
use crate::engine::Betas;
use crate::model::ising::threshold;

/// Most energy categories: `2 (z + 1)` for `z = 6`.
pub const MAX_CATEGORIES: u32 = 14;

/// The class of a category that never raises the energy (its flips are always accepted).
pub const NO_CLASS: u32 = 15;

/// Names of the update's compiled-in thresholds, one per energy class ([`MAX_CATEGORIES`] at
/// most): CUDA defines and WGSL override constants alike.
pub const THRESHOLD_CONSTANTS: [&str; MAX_CATEGORIES as usize] = [
    "THRESHOLD_0",
    "THRESHOLD_1",
    "THRESHOLD_2",
    "THRESHOLD_3",
    "THRESHOLD_4",
    "THRESHOLD_5",
    "THRESHOLD_6",
    "THRESHOLD_7",
    "THRESHOLD_8",
    "THRESHOLD_9",
    "THRESHOLD_10",
    "THRESHOLD_11",
    "THRESHOLD_12",
    "THRESHOLD_13",
];

impl MultispinLayout {
    /// Threshold tables: one for all words when lanes are temperatures, else one per
    /// temperature.
    pub fn tables(&self) -> u32 {
        self.temperature_words
    }

    /// The threshold table of word system `g`.
    pub fn table(&self, g: u32) -> u32 {
        g / (self.replica_words * self.sample_words)
    }

    /// Energy categories: `(spin up, unsatisfied bonds c)` as `up * (z + 1) + c`.
    pub fn categories(&self) -> u32 {
        2 * (self.site_bonds() + 1)
    }

    /// Energy categories of the lanes that lack an odd number of bonds (with an open axis;
    /// [`crate::engine::cpu::bitslice::BondCount::add_open`]), numbered after
    /// [`Self::categories`]: `(spin up, c)` as `categories + up z + c`, `c < z` counted of the
    /// `z - 1` bonds those lanes stand for. None where every axis closes.
    pub fn odd_categories(&self) -> u32 {
        match self.open_axes() {
            0 => 0,
            _ => 2 * self.site_bonds(),
        }
    }

    /// Energy change of flipping a spin of category `cat`: `dE = 2z' - 4c + 2 h s`, `z'` the
    /// bonds the category's lanes count (`z`, or `z - 1` in the odd categories).
    fn category_delta_e(&self, cat: u32) -> f64 {
        let z = self.site_bonds();
        let (bonds, up, c) = match cat.checked_sub(self.categories()) {
            None => (z, cat / (z + 1), cat % (z + 1)),
            Some(odd) => (z - 1, odd / z, odd % z),
        };
        let spin = if up == 1 { 1.0 } else { -1.0 };
        f64::from(2 * bonds as i32 - 4 * c as i32) + 2.0 * self.systems.field * spin
    }

    /// The energy classes: the distinct positive energy changes, ascending (at most
    /// [`MAX_CATEGORIES`]: `2 (2z + 1)` changes `2j +- 2h`, `|j| <= z`, of which at most
    /// `2z + 1` are positive). Only lanes in a category of some class need random numbers;
    /// categories of one class share a threshold (with `h = 0`, the up and down spins with `c`
    /// unsatisfied bonds).
    pub fn energy_classes(&self) -> Vec<f64> {
        let categories = self.categories() + self.odd_categories();
        let mut classes: Vec<f64> = (0..categories)
            .map(|cat| self.category_delta_e(cat))
            .filter(|&delta_e| delta_e > 0.0)
            .collect();
        classes.sort_by(f64::total_cmp);
        classes.dedup();
        classes
    }

    /// The class of each category, 4 bits per category: categories 0..8 in the first word,
    /// 8..14 in the second, the odd categories ([`Self::odd_categories`]) 0..8 in the third and
    /// 8..12 in the fourth; [`NO_CLASS`] for categories that never raise the energy.
    pub fn category_classes(&self) -> [u32; 4] {
        let classes = self.energy_classes();
        let class_of = |cat: u32| {
            let delta_e = self.category_delta_e(cat);
            classes.iter().position(|&c| c == delta_e)
        };
        let pack = |first: u32, count: u32| {
            let mut packed = [0u32; 2];
            for k in 0..MAX_CATEGORIES {
                let class = (k < count).then(|| class_of(first + k)).flatten();
                let class = class.map_or(NO_CLASS, |class| class as u32);
                packed[(k / 8) as usize] |= class << (4 * (k % 8));
            }
            packed
        };
        let [lo, hi] = pack(0, self.categories());
        let [odd_lo, odd_hi] = pack(self.categories(), self.odd_categories());
        [lo, hi, odd_lo, odd_hi]
    }

    /// The inverse temperature of lane `lane` under table `table` (idle lanes run at the last
    /// temperature; their results are discarded).
    fn lane_beta(&self, table: u32, lane: u32) -> f64 {
        let betas = &self.systems.betas;
        match self.lanes() {
            Some(Lanes::Temperatures) => betas[(lane as usize).min(betas.len() - 1)],
            _ => betas[table as usize],
        }
    }

    /// The bit-sliced threshold tables that the updates read: per table, class 0's planes,
    /// then every other class's planes XOR class 0's. A lane of class `c` then has the threshold
    /// bits `T_0 ^ (m_c & D_c)` and, the class masks `m` being disjoint, every lane those of
    /// `T_0 ^ XOR_c (m_c & D_c)` over the classes from 1: one operation per class and plane, a
    /// class fewer than `OR_c (m_c & T_c)` (a lane of no class is decided before any plane, so
    /// its bits do not matter).
    pub fn threshold_tables(&self) -> Vec<u32> {
        let mut tables = self.class_thresholds();
        let table_len = self.energy_classes().len() * 32;
        for table in tables.chunks_mut(table_len.max(1)) {
            let (first, others) = table.split_at_mut(32);
            for planes in others.chunks_mut(32) {
                for (plane, first) in planes.iter_mut().zip(&*first) {
                    *plane ^= first;
                }
            }
        }
        tables
    }

    /// The bit-sliced thresholds per table, energy class and bit, each class's own. A flip is
    /// accepted iff the lane's uniform word `U <= t`, `t` as in [`threshold`].
    pub fn class_thresholds(&self) -> Vec<u32> {
        let classes = self.energy_classes();
        let mut tables = Vec::with_capacity(self.tables() as usize * classes.len() * 32);
        for table in 0..self.tables() {
            for &delta_e in &classes {
                let thresholds: Vec<u32> = (0..LANES)
                    .map(|lane| threshold(self.lane_beta(table, lane), delta_e))
                    .collect();
                tables.extend((0..32).map(|k| {
                    (0..LANES).fold(0u32, |word, lane| {
                        word | (thresholds[lane as usize] >> k & 1) << lane
                    })
                }));
            }
        }
        tables
    }

    /// The thresholds the GPU updates are compiled with, one per energy class: where the betas
    /// stay fixed ([`Betas::Fixed`]) and the run has one table whose every lane has the same
    /// threshold (one temperature, lanes not holding temperatures). Each threshold plane then
    /// selects class masks at compile time; with changing betas a new beta stays a table write.
    pub fn fixed_thresholds(&self, betas: Betas) -> Option<Vec<u32>> {
        if betas == Betas::Changing {
            return None;
        }
        let tables = self.class_thresholds();
        let uniform = tables.iter().all(|&plane| plane == 0 || plane == u32::MAX);
        (self.tables() == 1 && uniform).then(|| {
            tables
                .chunks(32)
                .map(|planes| (0..32).fold(0u32, |t, k| t | u32::from(planes[k] != 0) << k))
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Layout, MultispinOptions, Randoms};
    use crate::engine::multispin::fixtures::layout;
    use crate::model::ising::IsingSystems;

    #[test]
    fn threshold_tables_hold_each_lane_threshold() {
        let layout = layout(
            3,
            4,
            Layout::Amsc {
                lanes: Lanes::Temperatures,
            },
            1,
            1,
            5,
        );
        let tables = layout.class_thresholds();
        let relative = layout.threshold_tables();
        // h = 0.1 in 3D: dE = 12 -+ 0.2, 8 -+ 0.2, 4 -+ 0.2 (c = 0, 1, 2) and 0.2 (c = 3, up).
        let classes = layout.energy_classes();
        assert_eq!(classes, vec![0.2, 3.8, 4.2, 7.8, 8.2, 11.8, 12.2]);
        assert_eq!(tables.len(), classes.len() * 32);
        for (class, &delta_e) in classes.iter().enumerate() {
            for lane in 0..32u32 {
                let t = (0..32).fold(0u32, |t, k| {
                    t | (tables[class * 32 + k as usize] >> lane & 1) << k
                });
                let beta = 0.2 + 0.01 * f64::from(lane.min(4));
                assert_eq!(t, threshold(beta, delta_e), "class {class} lane {lane}");
            }
            for k in 0..32 {
                let first = if class == 0 { 0 } else { tables[k] };
                assert_eq!(relative[class * 32 + k], tables[class * 32 + k] ^ first);
            }
        }
        let packed = layout.category_classes();
        let class_of = |cat: u32| packed[(cat / 8) as usize] >> (4 * (cat % 8)) & 15;
        for cat in 0..14 {
            let delta_e = layout.category_delta_e(cat);
            match class_of(cat) {
                NO_CLASS => assert!(delta_e <= 0.0, "cat {cat}"),
                class => assert_eq!(classes[class as usize], delta_e, "cat {cat}"),
            }
        }
        let zero_field = MultispinLayout::new(
            IsingSystems {
                field: 0.0,
                ..layout.systems.clone()
            },
            MultispinOptions {
                layout: layout.layout,
                randoms: Randoms::Exact,
            },
        );
        assert_eq!(
            zero_field.energy_classes(),
            vec![4.0, 8.0, 12.0],
            "spins share classes at h = 0"
        );
    }
}

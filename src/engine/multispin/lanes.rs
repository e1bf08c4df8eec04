//! What the lanes of a word hold: the system of each lane of a word system (samples,
//! temperatures or replicas side by side in AMSC, one system's sites in SMSC), the lane of each
//! system, and the run's numbering of word systems where the systems are a sample slice.

use super::{LANES, MultispinLayout};
use crate::config::Lanes;
#[cfg(doc)]
use crate::model::ising::IsingSystems;
use crate::model::systems::SliceIndex;

impl MultispinLayout {
    /// Samples per word system: 32 in lanes `Samples`, else 1.
    fn samples_per_word(&self) -> u32 {
        match self.lanes() {
            Some(Lanes::Samples) => LANES,
            _ => 1,
        }
    }

    /// The run's numbering of word systems `g = (tw Sw + sw) Rw + rw` where these systems are
    /// a sample slice: the run's `sw` is offset by the slice's first sample word (its first
    /// sample over 32 in lanes `Samples`), and `Sw` is the run's.
    pub fn word_slice_index(&self) -> SliceIndex {
        let per_word = self.samples_per_word();
        let s = &self.systems;
        SliceIndex {
            block: self.sample_words * self.replica_words,
            run_block: s.all_samples / per_word * self.replica_words,
            first: s.first_sample / per_word * self.replica_words,
        }
    }

    /// The run's index of word system `g`: the Philox batch of its Metropolis randoms.
    pub fn global_word_system(&self, g: u32) -> u32 {
        self.word_slice_index().global(g)
    }

    /// The system of lane `lane` of word system `g` (for SMSC every bit is the same system);
    /// `None` for an idle lane (lanes beyond the temperatures).
    pub fn lane_system(&self, g: u32, lane: u32) -> Option<u32> {
        let rw = g % self.replica_words;
        let sw = (g / self.replica_words) % self.sample_words;
        let tw = g / (self.replica_words * self.sample_words);
        let s = &self.systems;
        let (t, sample, r) = match self.lanes() {
            None => (tw, sw, rw),
            Some(Lanes::Samples) => (tw, sw * LANES + lane, rw),
            Some(Lanes::Temperatures) if lane >= s.betas.len() as u32 => return None,
            Some(Lanes::Temperatures) => (lane, sw, rw),
            Some(Lanes::Replicas) => (tw, sw, rw * LANES + lane),
        };
        Some(s.system(t, sample, r))
    }

    /// Where system `b` lives: its word system and lane (lane 0 for SMSC, whose word system is
    /// the whole system); the inverse of [`MultispinLayout::lane_system`].
    pub fn system_lane(&self, b: u32) -> (u32, u32) {
        let s = &self.systems;
        let (t, sample, r) = (s.temperature_of(b), s.sample_of(b), b % s.replicas);
        let (tw, sw, rw, lane) = match self.lanes() {
            None => (t, sample, r, 0),
            Some(Lanes::Samples) => (t, sample / LANES, r, sample % LANES),
            Some(Lanes::Temperatures) => (0, sample, r, t),
            Some(Lanes::Replicas) => (t, sample, r / LANES, r % LANES),
        };
        let g = (tw * self.sample_words + sw) * self.replica_words + rw;
        (g, lane)
    }

    /// The Philox batch of every lane, `[g * 32 + lane]`: the run's index
    /// ([`SystemIndex::global_system`]) of [`Self::lane_system`] (SMSC: the word system's one
    /// system in every lane), `u32::MAX` for an idle lane. The hot start kernel reads it.
    ///
    /// [`SystemIndex::global_system`]: crate::model::systems::SystemIndex::global_system
    pub fn lane_batches(&self) -> Vec<u32> {
        (0..self.word_systems())
            .flat_map(|g| {
                (0..LANES).map(move |lane| {
                    self.lane_system(g, lane)
                        .map_or(u32::MAX, |b| self.systems.global_system(b))
                })
            })
            .collect()
    }

    /// Systems (lanes) per word: 32 for AMSC, 1 for SMSC.
    pub fn systems_per_word(&self) -> u32 {
        if self.smsc() { 1 } else { LANES }
    }

    /// Calls `f(bit, system, site)` for every bit of word `w` of `row`, `colour` in word
    /// system `g`; idle lanes are skipped.
    pub(crate) fn for_each_bit(
        &self,
        g: u32,
        colour: u32,
        row: u32,
        w: u32,
        mut f: impl FnMut(u32, u32, u64),
    ) {
        let l = self.lattice().size;
        let (y, z) = self.row_coords(row);
        let p = (y + z + colour) & 1;
        let row_start = u64::from(row) * u64::from(l);
        for bit in 0..LANES {
            let (lane, x) = if self.smsc() {
                (0, 2 * (LANES * w + bit) + p)
            } else {
                (bit, 2 * w + p)
            };
            if let Some(system) = self.lane_system(g, lane) {
                f(bit, system, row_start + u64::from(x));
            }
        }
    }

    /// Calls `f(index, g, colour, row, w)` for every word of every word system (the tests'
    /// site-by-site references).
    #[cfg(test)]
    pub(crate) fn for_each_word(&self, mut f: impl FnMut(usize, u32, u32, u32, u32)) {
        for g in 0..self.word_systems() {
            for colour in 0..2 {
                for row in 0..self.rows() {
                    for w in 0..self.row_words() {
                        f(self.word_index(g, colour, row, w), g, colour, row, w);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Layout, MultispinOptions, Randoms};
    use crate::model::Lattice;
    use crate::model::ising::IsingSystems;

    /// A slice's word system `g` holds in each lane the run's system that the run's word system
    /// `global_word_system(g)` holds there, and its coupling groups are the run's.
    #[test]
    fn slices_number_word_systems_and_couplings_as_the_run_does() {
        for (lanes, samples, replicas, slice) in [
            (Some(Lanes::Samples), 96, 2, (32, 64)),
            (Some(Lanes::Replicas), 5, 64, (2, 2)),
            (Some(Lanes::Temperatures), 5, 2, (1, 3)),
            (None, 5, 2, (3, 2)),
        ] {
            let layout = match lanes {
                Some(lanes) => Layout::Amsc { lanes },
                None => Layout::Smsc,
            };
            // SMSC packs 64 sites of a row in a word.
            let size = if lanes.is_none() { 64 } else { 4 };
            let systems = IsingSystems::spin_glass(
                Lattice::new(2, size),
                0.0,
                vec![0.3, 0.4, 0.5],
                samples,
                replicas,
                3,
            );
            let options = MultispinOptions {
                layout,
                randoms: Randoms::Exact,
            };
            let run = MultispinLayout::new(systems.clone(), options);
            let part = MultispinLayout::new(systems.sample_slice(slice.0, slice.1), options);
            for g in 0..part.word_systems() {
                let global = part.global_word_system(g);
                for lane in 0..LANES {
                    let mine = part
                        .lane_system(g, lane)
                        .map(|b| part.systems.global_system(b));
                    assert_eq!(mine, run.lane_system(global, lane), "{layout:?} g = {g}");
                }
            }
            let group_words = part.coupling_words().len() / part.coupling_groups() as usize;
            let first_group = run.coupling_group(part.global_word_system(0)) as usize;
            assert_eq!(
                part.coupling_words(),
                run.coupling_words()[first_group * group_words..][..part.coupling_words().len()],
                "{layout:?}"
            );
        }
    }
}

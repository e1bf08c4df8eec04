//! The form in which engines, checkpoints and outputs exchange lattices: one bit per spin.
//!
//! [`SpinBits`] holds every system's lattice as bits (1 = up) in natural order: spin `i` of
//! system `b` is bit number `b N + i` of the run (`N` sites per system, `i = (z L + y) L + x`),
//! stored as bit `(b N + i) mod 64` of word `(b N + i) / 64`. Natural order, not an engine's
//! word layout, so that a checkpoint or `final_state.npy` does not depend on the engine that
//! wrote it, and the consumers (snapshots, the simple engine's `i32` upload, the npy writer) read
//! whole rows without knowing any packing. It is 32 times smaller than the `+1/-1` `i32` lattices
//! the engines exchanged before and as small as the multispin engine's words.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::model::ising::IsingSystems;

/// Every system's lattice, one bit per spin, natural site order, system-major (see the module
/// documentation).
#[derive(Clone, PartialEq, Eq)]
pub struct SpinBits {
    systems: u32,
    sites: u64,
    words: Vec<u64>,
}

impl std::fmt::Debug for SpinBits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SpinBits({} systems of {} sites, {} up)",
            self.systems,
            self.sites,
            self.up_count()
        )
    }
}

/// Words of 64 bits holding `bits` bits.
pub fn words_for(bits: u64) -> usize {
    bits.div_ceil(64) as usize
}

impl SpinBits {
    /// `systems` lattices of `sites` spins, every spin down.
    pub fn down(systems: u32, sites: u64) -> Self {
        SpinBits {
            systems,
            sites,
            words: vec![0; words_for(u64::from(systems) * sites)],
        }
    }

    /// Every lattice of `systems` (a slab's planes of each in a slab), every spin down.
    pub fn for_systems(systems: &IsingSystems) -> Self {
        Self::down(systems.systems(), systems.held_sites())
    }

    /// The lattices held in `words` (the layout of [`SpinBits::words`]); bits past the last spin
    /// must be zero.
    pub fn from_words(systems: u32, sites: u64, words: Vec<u64>) -> Result<Self> {
        let bits = u64::from(systems) * sites;
        if words.len() != words_for(bits) {
            return Err(Error::State(format!(
                "{systems} lattices of {sites} spins take {} words of bits, got {}",
                words_for(bits),
                words.len()
            )));
        }
        let spins = SpinBits {
            systems,
            sites,
            words,
        };
        if spins.tail_bits() != 0 {
            return Err(Error::State(
                "set bits past the last spin of the lattices".into(),
            ));
        }
        Ok(spins)
    }

    /// The same spins divided into `systems` lattices of `sites` (a checkpoint's run of spins
    /// given the run's systems); refused where the number of spins differs.
    pub fn reshape(self, systems: u32, sites: u64) -> Result<Self> {
        if u64::from(systems) * sites != self.len() {
            return Err(Error::State(format!(
                "{} spins do not make {systems} lattices of {sites} spins",
                self.len()
            )));
        }
        Ok(SpinBits {
            systems,
            sites,
            ..self
        })
    }

    /// `+1/-1` lattices (system-major) as bits: the old `i32` form, for small lattices in tests
    /// and tools.
    pub fn from_signs(systems: u32, sites: u64, spins: &[i32]) -> Self {
        assert_eq!(spins.len() as u64, u64::from(systems) * sites);
        let mut bits = Self::down(systems, sites);
        for (word, chunk) in bits.words.iter_mut().zip(spins.chunks(64)) {
            *word = pack_signs(chunk);
        }
        bits
    }

    /// The set bits of the last word beyond the last spin (zero in a valid value).
    fn tail_bits(&self) -> u64 {
        let used = (self.len() % 64) as u32;
        match (self.words.last(), used) {
            (Some(&last), 1..) => last >> used,
            _ => 0,
        }
    }

    pub fn systems(&self) -> u32 {
        self.systems
    }

    /// Sites per system.
    pub fn sites(&self) -> u64 {
        self.sites
    }

    /// Spins of every system.
    pub fn len(&self) -> u64 {
        u64::from(self.systems) * self.sites
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The words of bits (see the module documentation); bits past the last spin are zero.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The words, to be filled by an engine's conversion; it keeps bits past the last spin zero.
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }

    /// Whether spin `site` of system `system` is up.
    pub fn up(&self, system: u32, site: u64) -> bool {
        let bit = u64::from(system) * self.sites + site;
        self.words[(bit / 64) as usize] >> (bit % 64) & 1 == 1
    }

    /// Spin `site` of system `system`: +1 or -1.
    pub fn spin(&self, system: u32, site: u64) -> i32 {
        if self.up(system, site) { 1 } else { -1 }
    }

    /// Set spin `site` of system `system` up (`true`) or down.
    pub fn set(&mut self, system: u32, site: u64, up: bool) {
        let bit = u64::from(system) * self.sites + site;
        let word = &mut self.words[(bit / 64) as usize];
        *word = (*word & !(1 << (bit % 64))) | (u64::from(up) << (bit % 64));
    }

    /// `count` consecutive spins from run bit `start` (`count <= 64`), bit `j` of the result
    /// being spin `start + j`.
    pub fn bits_at(&self, start: u64, count: u32) -> u64 {
        debug_assert!(count <= 64 && start + u64::from(count) <= self.len());
        let (word, shift) = ((start / 64) as usize, (start % 64) as u32);
        let low = self.words[word] >> shift;
        let high = match shift {
            0 => 0,
            _ => self.words.get(word + 1).map_or(0, |&w| w << (64 - shift)),
        };
        let all = low | high;
        if count == 64 {
            all
        } else {
            all & ((1 << count) - 1)
        }
    }

    /// Write `count <= 64` bits of `value` from bit `start` on.
    fn put_bits(&mut self, start: u64, count: u32, value: u64) {
        debug_assert!(count <= 64 && start + u64::from(count) <= self.len());
        let mask = if count == 64 {
            u64::MAX
        } else {
            (1 << count) - 1
        };
        let (word, shift) = ((start / 64) as usize, (start % 64) as u32);
        self.words[word] = self.words[word] & !(mask << shift) | (value & mask) << shift;
        if shift + count > 64 {
            let high = 64 - shift;
            self.words[word + 1] = self.words[word + 1] & !(mask >> high) | (value & mask) >> high;
        }
    }

    /// Replace bits `to .. to + bits` (spin numbers of the run, `b N + i`) with bits `from ..
    /// from + bits` of `source`, 64 at a time at any bit offsets: MPI ranks merge and split a
    /// run's lattices with it (whole systems, or one slab of planes of each).
    pub fn copy_bits_from(&mut self, to: u64, source: &SpinBits, from: u64, bits: u64) {
        assert!(to + bits <= self.len() && from + bits <= source.len());
        let mut done = 0;
        while done < bits {
            let n = (bits - done).min(64) as u32;
            self.put_bits(to + done, n, source.bits_at(from + done, n));
            done += u64::from(n);
        }
    }

    /// The up spins of every system.
    pub fn up_count(&self) -> u64 {
        self.words
            .par_iter()
            .map(|w| u64::from(w.count_ones()))
            .sum()
    }

    /// Every system's `+1/-1` spins, system-major: the old `i32` form, 32 times larger, for
    /// small lattices in tests and tools only.
    pub fn to_signs(&self) -> Vec<i32> {
        let mut signs = vec![0; self.len() as usize];
        self.signs_into(0, &mut signs);
        signs
    }

    /// The `+1/-1` spins of system `system`, in site order (one lattice; for tests, snapshots
    /// and small tools).
    pub fn system_signs(&self, system: u32) -> Vec<i32> {
        (0..self.sites)
            .map(|site| self.spin(system, site))
            .collect()
    }

    /// Refuse lattices that do not hold exactly every system of `systems` (a slab's planes of
    /// each in a slab).
    pub fn check_fits(&self, systems: &IsingSystems) -> Result<()> {
        let (expected_systems, expected_sites) = (systems.systems(), systems.held_sites());
        if (self.systems, self.sites) != (expected_systems, expected_sites) {
            return Err(Error::State(format!(
                "expected {expected_systems} lattices of {expected_sites} spins for the \
                 configured systems, got {} of {}",
                self.systems, self.sites
            )));
        }
        Ok(())
    }

    /// Write spins `start .. start + out.len()` as `+1/-1` into `out` (the simple engine's
    /// upload, in chunks).
    pub fn signs_into(&self, start: u64, out: &mut [i32]) {
        out.par_chunks_mut(64).enumerate().for_each(|(c, chunk)| {
            let bits = self.bits_at(start + 64 * c as u64, chunk.len() as u32);
            for (j, spin) in chunk.iter_mut().enumerate() {
                *spin = if bits >> j & 1 == 1 { 1 } else { -1 };
            }
        });
    }

    /// Set spins `start .. start + signs.len()` from `+1/-1` values (the simple engine's
    /// download, in chunks); `start` must be a multiple of 64.
    pub fn set_signs(&mut self, start: u64, signs: &[i32]) {
        assert_eq!(start % 64, 0, "chunks of signs start on a word");
        let first = (start / 64) as usize;
        self.words[first..first + signs.len().div_ceil(64)]
            .par_iter_mut()
            .zip(signs.par_chunks(64))
            .for_each(|(word, chunk)| *word = pack_signs(chunk));
    }
}

/// Up to 64 `+1/-1` spins as bits, spin `j` in bit `j`.
fn pack_signs(signs: &[i32]) -> u64 {
    signs
        .iter()
        .enumerate()
        .fold(0, |word, (j, &s)| word | u64::from(s > 0) << j)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signs(n: usize) -> Vec<i32> {
        (0..n)
            .map(|i| if (i * 7919) % 13 < 6 { 1 } else { -1 })
            .collect()
    }

    #[test]
    fn bits_hold_signs_in_natural_order() {
        // 3 systems of 36 sites: 108 bits, so systems cross word boundaries.
        let spins = signs(108);
        let bits = SpinBits::from_signs(3, 36, &spins);
        assert_eq!(bits.words().len(), 2);
        for (i, &s) in spins.iter().enumerate() {
            let (b, site) = ((i / 36) as u32, i as u64 % 36);
            assert_eq!(bits.spin(b, site), s);
            assert_eq!(bits.words()[i / 64] >> (i % 64) & 1 == 1, s > 0, "bit {i}");
        }
        assert_eq!(bits.system_signs(1), spins[36..72]);
        assert_eq!(
            bits.up_count(),
            spins.iter().filter(|&&s| s > 0).count() as u64
        );
        let mut chunk = vec![0; 50];
        bits.signs_into(40, &mut chunk);
        assert_eq!(chunk, spins[40..90]);
        let mut copy = SpinBits::down(3, 36);
        copy.set_signs(64, &spins[64..]);
        copy.set_signs(0, &spins[..64]);
        assert_eq!(copy, bits);
        copy.set(2, 35, !bits.up(2, 35));
        assert_ne!(copy, bits);
    }

    #[test]
    fn copies_of_bits_land_at_any_bit_offset() {
        // 10-site systems: no system starts on a word boundary after the first.
        let spins = signs(130);
        let source = SpinBits::from_signs(13, 10, &spins);
        let mut target = SpinBits::down(9, 10);
        target.copy_bits_from(20, &source, 50, 70);
        for b in 0..9 {
            let expected = if (2..9).contains(&b) {
                source.system_signs(b + 3)
            } else {
                vec![-1; 10]
            };
            assert_eq!(target.system_signs(b), expected, "system {b}");
        }
        // Within systems too: sites 3..8 of system 1 from sites 0..5 of system 12.
        target.copy_bits_from(13, &source, 120, 5);
        assert_eq!(target.system_signs(1)[3..8], source.system_signs(12)[..5]);
    }

    #[test]
    fn bits_at_reads_across_words() {
        let spins = signs(200);
        let bits = SpinBits::from_signs(1, 200, &spins);
        for (start, count) in [(0, 64), (3, 64), (60, 10), (130, 64), (190, 10)] {
            let got = bits.bits_at(start, count);
            for j in 0..count as usize {
                assert_eq!(got >> j & 1 == 1, spins[start as usize + j] > 0);
            }
        }
    }

    #[test]
    fn words_are_checked() {
        assert!(SpinBits::from_words(2, 36, vec![0; 2]).is_ok());
        let err = SpinBits::from_words(2, 36, vec![0; 3]).unwrap_err();
        assert!(err.to_string().contains("take 2 words"), "{err}");
        let err = SpinBits::from_words(2, 36, vec![0, 1 << 8]).unwrap_err();
        assert!(err.to_string().contains("past the last spin"), "{err}");
    }
}

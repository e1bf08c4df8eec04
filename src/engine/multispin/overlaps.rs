//! The overlap pairs in multispin words: which word systems pair up (replica `r` with
//! `r + R/2`), and where the overlap kernel counts each pair's differing sites and bonds.

use super::{LANES, MultispinLayout};
#[cfg(doc)]
use crate::engine::Measurements;

impl MultispinLayout {
    /// Word-system pairs whose overlap is measured: `(g, g + replica_words / 2)` for
    /// `rw < replica_words / 2`, numbered `(tw * sample_words + sw) * (replica_words / 2) + rw`.
    pub fn overlap_word_pairs(&self) -> Vec<(u32, u32)> {
        if self.systems.overlap_pairs() == 0 {
            return Vec::new();
        }
        let (words, half) = (self.replica_words, self.replica_words / 2);
        (0..self.temperature_words * self.sample_words)
            .flat_map(|ts| (0..half).map(move |rw| (ts * words + rw, ts * words + rw + half)))
            .collect()
    }

    /// Per-plane slots of one word pair's overlap counts: `L` planes x lanes (AMSC) or `L`
    /// planes (SMSC).
    pub fn overlap_slots(&self) -> u32 {
        self.lattice().size * self.systems_per_word()
    }

    /// u32 counts per overlap word pair: per overlap slot the sites where the two replicas
    /// differ and the forward bonds of those sites whose two ends differ differently (the link
    /// overlap's `q_i q_j = -1`), per plane, so that each count fits a u32 where a whole
    /// lattice's `d N` bonds would not. Where a plane's counts fit 16 bits
    /// ([`packs_overlap_counts`](Self::packs_overlap_counts)) one word a slot holds both, the
    /// sites in its low half and the bonds in its high half; else `[2][overlap slot]`, the sites
    /// then the bonds.
    pub fn pair_counts(&self) -> u32 {
        match self.packs_overlap_counts() {
            true => self.overlap_slots(),
            false => 2 * self.overlap_slots(),
        }
    }

    /// Whether a plane's counts fit 16 bits: at most 3 forward bonds a site (the triangular
    /// lattice's), `3 L^(d-1)` a plane (2D `L <= 21845`, 3D `L <= 147`). Halving the counts
    /// halves their copy to the host, which on wgpu's one queue the device waits for (3D spin
    /// glass, L = 16, parallel tempering measured every 10 sweeps: 4% of WGSL's run, H200).
    /// The overlap kernels take it as their constant [`PACKED_OVERLAPS`].
    ///
    /// [`PACKED_OVERLAPS`]: super::PACKED_OVERLAPS
    pub fn packs_overlap_counts(&self) -> bool {
        let lattice = self.lattice();
        3 * u64::from(lattice.size).pow(lattice.dims - 1) <= u64::from(u16::MAX)
    }

    /// The differing sites and the bonds of `count`, the word of one overlap slot where the
    /// counts are packed ([`pair_counts`](Self::pair_counts)).
    pub fn unpack_overlap_count(count: u32) -> [u32; 2] {
        [count & 0xffff, count >> 16]
    }

    /// The overlap slot of bit `j` of a word at `w`, parity `p`: lane `j` and plane `x = 2w + p`
    /// (AMSC) or plane `x = 2(32 w + j) + p` (SMSC). Lane-major, so that the `L` planes of one
    /// overlap are contiguous, in the order of [`Measurements::overlap_planes`].
    pub fn overlap_slot(&self, w: u32, p: u32, j: u32) -> u32 {
        if self.smsc() {
            2 * (LANES * w + j) + p
        } else {
            j * self.lattice().size + 2 * w + p
        }
    }

    /// Where overlap `o = (t S + s) P + p` is counted: the word pair and the lane of its first
    /// replica, system `(t S + s) R + p` (pair `(g, g + replica_words / 2)` is number
    /// `g / replica_words * replica_words / 2 + g mod replica_words`, as
    /// [`overlap_word_pairs`](Self::overlap_word_pairs) numbers them).
    pub(super) fn overlap_source(&self, o: u32) -> (usize, u32) {
        let s = &self.systems;
        let (g, lane) = self.system_lane(s.overlap_systems(o).0);
        let (words, half) = (self.replica_words, self.replica_words / 2);
        ((g / words * half + g % words) as usize, lane)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Layout;
    use crate::engine::multispin::MultispinLayout;
    use crate::engine::multispin::fixtures::{all_layouts, ferromagnet_layout};

    /// A slot's two counts share a word up to the largest planes whose `3 L^(d-1)` bonds fit 16
    /// bits (2D L = 21845, 3D L = 147), not past them.
    #[test]
    fn overlap_counts_pack_while_a_plane_fits_16_bits() {
        for (dims, largest) in [(2, 21845), (3, 147)] {
            for (size, packs) in [(largest - 1, true), (largest + 1, false)] {
                let layout = ferromagnet_layout(dims, size, Layout::Smsc, 2);
                assert_eq!(layout.packs_overlap_counts(), packs, "{dims}D L = {size}");
                let words = if packs { 1 } else { 2 };
                assert_eq!(layout.pair_counts(), words * layout.overlap_slots());
            }
        }
        let fullest = (3 << 16) - 3;
        assert_eq!(MultispinLayout::unpack_overlap_count(fullest), [0xfffd, 2]);
    }

    #[test]
    fn overlap_pairs_join_replica_r_with_r_plus_half() {
        for layout in all_layouts() {
            let s = layout.systems.clone();
            let mut pairs = 0;
            for (g, h) in layout.overlap_word_pairs() {
                for lane in 0..layout.systems_per_word() {
                    if let (Some(a), Some(b)) =
                        (layout.lane_system(g, lane), layout.lane_system(h, lane))
                    {
                        assert_eq!(b - a, s.replicas / 2, "{:?}", layout.layout);
                        assert!(a % s.replicas < s.replicas / 2);
                        pairs += 1;
                    }
                }
            }
            assert_eq!(pairs, s.overlaps(), "{:?}", layout.layout);
        }
    }
}

//! CPU mirror of `shaders/wgsl/bitslice.wgsl`: arithmetic on 32 lanes at once, one bit each.

/// Planes of a [`LaneCounter`]: counts up to `2^18 - 1` per lane, more than any strip of sites
/// can add (in 3D at most `3 * MAX_STRIP_WORDS` where a strip has several lines): a line adds `dims * L` satisfied bonds per lane, at most `2 * 131008` for the largest
/// 2D multispin lattice ([`crate::config::MAX_MULTISPIN_SITES`]: fewer than 2^34 sites). 17
/// planes overflowed at L = 65536, where an ordered line has `2 * 65536 = 2^17` satisfied bonds.
pub const COUNTER_PLANES: usize = 18;

/// Per-lane number of unsatisfied bonds `c = c0 + 2 c1 + 4 c2` (at most 6), bit-sliced, and
/// the lanes that lack an odd number of their bonds (`odd`: sites on the edges of an odd
/// number of open axes, [`BondCount::add_open`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BondCount {
    pub c0: u32,
    pub c1: u32,
    pub c2: u32,
    pub odd: u32,
}

impl BondCount {
    /// Count one more bond in the lanes set in `unsatisfied` (a ripple of half adders).
    pub fn add(&mut self, unsatisfied: u32) {
        let carry0 = self.c0 & unsatisfied;
        self.c0 ^= unsatisfied;
        let carry1 = self.c1 & carry0;
        self.c1 ^= carry0;
        self.c2 ^= carry1;
    }

    /// Count one more bond, which the lanes `open` lack (it crosses an open edge): those count
    /// it as satisfied and unsatisfied in turn, by the parity of their missing bonds so far
    /// (`odd`). A pair of missing bonds changes a flip's energy as one satisfied and one
    /// unsatisfied bond do (not at all), so a lane that lacks `m` bonds counts `m / 2` of them,
    /// keeps `m mod 2` in `odd`, and its flip's energy change is that of its count on a site of
    /// `z` bonds, or of `z - 1` where `odd` ([`crate::engine::multispin::MultispinLayout::energy_classes`]).
    pub fn add_open(&mut self, unsatisfied: u32, open: u32) {
        self.add((unsatisfied & !open) | (open & self.odd));
        self.odd ^= open;
    }
}

/// Lanes whose unsatisfied-bond count is `c`.
pub fn count_equals(count: BondCount, c: u32) -> u32 {
    let pick = |word: u32, set: bool| if set { word } else { !word };
    pick(count.c0, c & 1 != 0) & pick(count.c1, c & 2 != 0) & pick(count.c2, c & 4 != 0)
}

/// A vertical counter: adds whole words, counting per lane (bit) how many had it set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaneCounter {
    planes: [u32; COUNTER_PLANES],
}

impl LaneCounter {
    /// Add one to every lane set in `word`.
    pub fn add(&mut self, word: u32) {
        let mut carry = word;
        for plane in &mut self.planes {
            if carry == 0 {
                break;
            }
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
        }
    }

    /// Add the bit-sliced numbers `low` (plane k of weight 2^k) to every lane: full adders
    /// over `low`'s planes, then a ripple of the carry.
    fn add_planes(&mut self, low: &[u32]) {
        let mut carry = 0;
        for (plane, &q) in self.planes.iter_mut().zip(low) {
            let p = *plane;
            *plane = p ^ q ^ carry;
            carry = (p & q) | (carry & (p ^ q));
        }
        for plane in &mut self.planes[low.len()..] {
            if carry == 0 {
                break;
            }
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
        }
    }

    /// The count of lane `lane`.
    pub fn lane(&self, lane: u32) -> u32 {
        self.planes
            .iter()
            .enumerate()
            .fold(0, |count, (k, plane)| count | (plane >> lane & 1) << k)
    }
}

/// Planes of a [`LaneTally`]'s pending counter: up to 31 per lane, enough for
/// [`TALLY_STEPS`] steps of at most 3 (the forward bonds of a site).
pub const TALLY_PLANES: usize = 5;
/// Steps of a walk between two flushes of a [`LaneTally`].
pub const TALLY_STEPS: u32 = 8;

/// A lane counter for long walks, the mirror of `LaneTally` in the kernels: each step's words go
/// into a small pending counter through branch-free adders, and the pending counts go into the
/// wide counter every [`TALLY_STEPS`] steps, so the carry ripples of the wide counter (on a GPU
/// as long as a warp's longest chain) are paid once per flush.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LaneTally {
    pending: [u32; TALLY_PLANES],
    counter: LaneCounter,
}

impl LaneTally {
    /// Add `a + b + c` per lane (each 0 or 1): a full adder gives the sum's two bits, which
    /// ripple through the pending planes.
    pub fn add3(&mut self, a: u32, b: u32, c: u32) {
        let sum = a ^ b ^ c;
        let twos = (a & b) | (c & (a ^ b));
        let mut carry = self.pending[0] & sum;
        self.pending[0] ^= sum;
        let p1 = self.pending[1];
        self.pending[1] = p1 ^ twos ^ carry;
        carry = (p1 & twos) | (carry & (p1 ^ twos));
        for plane in &mut self.pending[2..] {
            let next = *plane & carry;
            *plane ^= carry;
            carry = next;
        }
    }

    /// Add the pending counts to the wide counter and clear them.
    pub fn flush(&mut self) {
        self.counter.add_planes(&self.pending);
        self.pending = [0; TALLY_PLANES];
    }

    /// Step `step` (from 0) of a walk counted in `self` and `other`: both flush after every
    /// [`TALLY_STEPS`] steps.
    pub fn step(&mut self, other: &mut LaneTally, step: usize) {
        if (step as u32 + 1).is_multiple_of(TALLY_STEPS) {
            self.flush();
            other.flush();
        }
    }

    /// The count of lane `lane` (after the last [`flush`](Self::flush)).
    pub fn lane(&self, lane: u32) -> u32 {
        self.counter.lane(lane)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bond_count_counts_each_lane() {
        let inputs = [
            0b1111_0000u32,
            0b1100_1100,
            0b1010_1010,
            0b1111_1111,
            0b1000_0001,
            0b1,
        ];
        let mut count = BondCount::default();
        inputs.iter().for_each(|&a| count.add(a));
        for lane in 0..8 {
            let expected = inputs.iter().filter(|&&a| a >> lane & 1 == 1).count() as u32;
            let got =
                (count.c0 >> lane & 1) | (count.c1 >> lane & 1) << 1 | (count.c2 >> lane & 1) << 2;
            assert_eq!(got, expected, "lane {lane}");
            for c in 0..7 {
                let mask = count_equals(count, c);
                assert_eq!(mask >> lane & 1 == 1, c == expected, "lane {lane} c {c}");
            }
        }
    }

    /// The satisfied bonds of one line (`dims * L` per lane) of the largest lattice the config
    /// accepts for a multispin engine, and of a strip of several lines, fit the counter.
    #[test]
    fn lane_counter_holds_a_line_of_the_largest_lattices() {
        let capacity = (1u64 << COUNTER_PLANES) - 1;
        let limit = crate::config::MAX_MULTISPIN_SITES;
        for dims in [2u32, 3] {
            // The largest L with L^dims below the limit.
            let largest = (1u64..).take_while(|l| l.pow(dims) < limit).last().unwrap();
            assert!(
                u64::from(dims) * largest <= capacity,
                "{dims}D L = {largest}"
            );
        }
        // A 3D strip of several lines walks at most MAX_STRIP_WORDS sites.
        assert!(3 * u64::from(crate::engine::multispin::MAX_STRIP_WORDS) <= capacity);
        // L = 65536 in 2D: 2^17 satisfied bonds per lane in an ordered line.
        let mut counter = LaneCounter::default();
        for _ in 0..2 * 65536 {
            counter.add(u32::MAX);
        }
        assert!((0..32).all(|lane| counter.lane(lane) == 2 * 65536));
    }

    /// A tally flushed every TALLY_STEPS steps of three words counts like a plain counter,
    /// including lanes that see the most (3 per step) between flushes.
    #[test]
    fn lane_tally_counts_like_a_lane_counter() {
        let mut tally = LaneTally::default();
        let mut counter = LaneCounter::default();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 16) as u32 | 0x8000_0000
        };
        for step in 1..=1000u32 {
            let words = [next(), next(), next()];
            tally.add3(words[0], words[1], words[2]);
            words.iter().for_each(|&w| counter.add(w));
            if step % TALLY_STEPS == 0 {
                tally.flush();
            }
        }
        tally.flush();
        assert!((0..32).all(|lane| tally.lane(lane) == counter.lane(lane)));
        assert_eq!(tally.lane(31), 3000);
    }

    #[test]
    fn lane_counter_counts_large_totals() {
        let mut counter = LaneCounter::default();
        for i in 0..100_000u32 {
            counter.add(i | 0x8000_0000);
        }
        assert_eq!(counter.lane(31), 100_000);
        assert_eq!(counter.lane(0), 50_000);
        assert_eq!(
            counter.lane(16),
            (0..100_000u32).filter(|i| i >> 16 & 1 == 1).count() as u32
        );
    }
}

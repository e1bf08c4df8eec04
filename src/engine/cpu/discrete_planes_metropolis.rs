//! CPU twin of `discrete_planes_metropolis` (`shaders/wgsl/discrete_planes_metropolis.wgsl`,
//! `shaders/cuda/discrete_planes_metropolis.cu`): Metropolis on one checkerboard colour of one
//! lattice of discrete states held in bit planes ([`crate::engine::planes`]), 32 sites a word:
//! the Potts ferromagnet, and the Blume-Capel model at zero field.
//!
//! A word's sites count neighbours with bit-sliced adders and fall into energy classes, each
//! class of lanes one energy change `E_k` of the temperature ([`PlaneClasses`]); a lane of an
//! uphill class is accepted where a uniform `U` of 32 bits is below `t_k = threshold(|E_k|)`
//! (the temperature's acceptance table, as one state a word compares its word 3).
//!
//! - Potts: class `k - 1` (`k = 1 ..= z`) holds the moves that lose `k` equal neighbours,
//!   `E = k J`.
//! - Blume-Capel (states 0, 1, 2 for `s = -1, 0, +1`, so plane 0 holds the lanes of `s = 0` and
//!   plane 1 those of `s = +1`): with `x` the neighbours along the sign of the move's nonzero
//!   spin (the new one where the move leaves 0, else the old one) less those against it, class
//!   `k - 1` holds the flips `s -> -s` of `x = k > 0`, `E = 2 k J`, and class `z + x + z` the
//!   moves of `x` that leave 0 (`E = D - x J`, uphill where positive) or enter it (`-E`, uphill
//!   where `E` is negative).
//!
//! The comparison takes `U`'s 4 most significant bits bit-sliced, for every lane at once: bit
//! `31 - i` of lane `b`'s `U` is bit `b` of word `i` of the first decision block; a lane is
//! decided at its first bit that differs from its threshold's. A lane still undecided after
//! them (its bits equal its threshold's, 1 in 16) takes the rest of `U` from a word of its own:
//! the `i`-th such lane of the word, in the order of the lanes, takes the `i`-th tail word, and
//! its bits `27 .. 0` of `U` are the word's 28 most significant bits. The tail words are those
//! of the proposal's last block that the proposal leaves (three for `q = 3` and the Blume-Capel
//! model, `4 - P` for `P < 4` planes), then the words of the tail blocks in order.
//!
//! Randoms: hit `h` of word `w` of colour `c` of system `b` at sweep `t` takes the blocks
//! `(w, t, DiscretePlanes, h DRAWS_PER_HIT + d, c, b)`: `d = 0, 1` the proposal's words (plane
//! `p` of the proposal is word `p mod 4` of block `p / 4`), `d = 2` the decision's bit-sliced
//! bits, `d = 3 ..` its tail blocks. The proposal: for `q = 2` the other state; for `q = 3` the
//! state `s + 1 + r mod 3`, `r` the bit of word 0 (the two others alike); for `q >= 4` the state
//! `s XOR r`, `r` the `P` proposal bits, rejected where `r = 0` or `s XOR r >= q`: each other
//! state is proposed with probability `2^-P` from every state, so the proposal is symmetric.

use std::ops::Range;

use crate::engine::planes::{
    DECISION_DRAW, DRAWS_PER_HIT, PLANE_BITS, PlaneLayout, SLICED_BITS, TAIL_DRAW, proposal_words,
};
use crate::model::vector::fixed::threshold;
use crate::model::vector::states::{StateModel, States};
use crate::rng::{Counter, Purpose, random_block};

/// Neighbours of a site at most (the simple cubic lattice's).
const MAX_NEIGHBOURS: usize = 6;

/// Bits of a count of neighbours (up to 6).
const COUNT_BITS: usize = 3;

/// Energy classes of a move at most: the Blume-Capel model's `3 z + 1` on the cubic lattice.
pub const MAX_CLASSES: usize = 3 * MAX_NEIGHBOURS + 1;

/// A sweep's key of one system's words: the run's seed, the Metropolis sweep, the colour and
/// the run's index of the system.
#[derive(Debug, Clone, Copy)]
pub struct PlaneKey {
    pub seed: u64,
    pub sweep: u32,
    pub colour: u32,
    pub system: u32,
}

impl PlaneKey {
    /// Block `draw` of hit `hit` of word `w`.
    fn block(&self, w: u64, hit: u32, draw: u32) -> [u32; 4] {
        let counter = Counter {
            word: w as u32,
            sweep: self.sweep,
            purpose: Purpose::DiscretePlanes,
            colour: self.colour,
            draw: hit * DRAWS_PER_HIT + draw,
            batch: self.system,
        };
        random_block(self.seed, counter)
    }
}

/// The energy classes of one temperature's moves (see the module's doc): class `k` changes
/// the energy by `energies[k]` (table units) and its uphill lanes are accepted below
/// `thresholds[k] = threshold(|energies[k]|)`; `count` classes.
#[derive(Debug, Clone, Copy)]
pub struct PlaneClasses {
    pub model: StateModel,
    pub count: usize,
    pub energies: [i32; MAX_CLASSES],
    pub thresholds: [u32; MAX_CLASSES],
}

/// The classes of `states` with the one coupling word `j` on a lattice of `coordination`
/// neighbours, from a temperature's acceptance `table` (the kernels compute the same from the
/// tables and `j`): Potts `k J P(0, 0)` for `k = 1 ..= z`; Blume-Capel `2 k J P(+, +)` for
/// `k = 1 ..= z`, then `V(+) - V(0) - x J P(+, +)` for `x = -z ..= z`.
pub fn plane_classes(states: &States, j: i32, coordination: u32, table: &[u32]) -> PlaneClasses {
    let z = coordination as i32;
    let energies: Vec<i32> = match states.model {
        StateModel::BlumeCapel => {
            let unit = j * states.pair(2, 2);
            let leave = states.site[2] - states.site[1];
            let flips = (1..=z).map(|k| 2 * k * unit);
            flips.chain((-z..=z).map(|x| leave - x * unit)).collect()
        }
        _ => (1..=z).map(|k| k * j * states.pair(0, 0)).collect(),
    };
    let mut classes = PlaneClasses {
        model: states.model,
        count: energies.len(),
        energies: [0; MAX_CLASSES],
        thresholds: [0; MAX_CLASSES],
    };
    for (k, &energy) in energies.iter().enumerate() {
        classes.energies[k] = energy;
        classes.thresholds[k] = threshold(energy.unsigned_abs(), table);
    }
    classes
}

/// What the update of one temperature's systems needs besides their planes.
#[derive(Debug, Clone)]
pub struct PlaneUpdate {
    pub layout: PlaneLayout,
    pub hits: u32,
    pub classes: PlaneClasses,
}

/// The `P` plane words of one word position.
type Planes = [u32; 8];

/// Add the lanes of `x` to the bit-sliced counts `count`.
fn add_lanes(count: &mut [u32; COUNT_BITS], x: u32) {
    let mut carry = x;
    for bit in count.iter_mut() {
        let sum = *bit ^ carry;
        carry &= *bit;
        *bit = sum;
    }
}

/// The lanes whose bit-sliced count is `value`.
fn count_is(count: &[u32; COUNT_BITS], value: usize) -> u32 {
    (0..COUNT_BITS).fold(!0, |lanes, i| match (value >> i) & 1 {
        1 => lanes & count[i],
        _ => lanes & !count[i],
    })
}

/// The lanes where the `p` planes of `a` and `b` hold the same state.
fn equal_lanes(a: &Planes, b: &Planes, p: usize) -> u32 {
    (0..p).fold(!0, |lanes, k| lanes & !(a[k] ^ b[k]))
}

/// The lanes whose state in the `p` planes `s` is below `q` (all where `q = 2^p`).
fn below(s: &Planes, p: usize, q: u32) -> u32 {
    if q >= 1 << p {
        return !0;
    }
    let (mut less, mut equal) = (0, !0);
    for k in (0..p).rev() {
        match (q >> k) & 1 {
            1 => {
                less |= equal & !s[k];
                equal &= s[k];
            }
            _ => equal &= !s[k],
        }
    }
    less
}

/// The lanes of every class, bit-sliced: `classes[k]` the lanes of class `k`.
type Classes = [u32; MAX_CLASSES];

impl PlaneUpdate {
    fn planes(&self) -> usize {
        self.layout.planes() as usize
    }

    /// The proposed states of hit `hit` of word `w` in state `s`, the lanes whose proposal is
    /// a move (see the module's doc), and the proposal's last block (none for `q = 2`).
    fn propose(&self, key: &PlaneKey, (w, hit): (u64, u32), s: &Planes) -> (Planes, u32, [u32; 4]) {
        let mut proposed = [0; 8];
        match self.layout.q {
            2 => {
                proposed[0] = !s[0];
                (proposed, !0, [0; 4])
            }
            3 => {
                // States 0, 1, 2 as (hi, lo) = (0, 0), (0, 1), (1, 0).
                let block = key.block(w, hit, 0);
                let r = block[0];
                let (lo, hi) = (s[0], s[1]);
                let zero = !lo & !hi;
                proposed[0] = (!r & zero) | (r & hi);
                proposed[1] = (!r & lo) | (r & zero);
                (proposed, !0, block)
            }
            q => {
                let p = self.planes();
                // Block 1 only where a plane takes its words.
                let second = match p > 4 {
                    true => key.block(w, hit, 1),
                    false => [0; 4],
                };
                let blocks = [key.block(w, hit, 0), second];
                let mut any = 0;
                for (k, next) in proposed.iter_mut().enumerate().take(p) {
                    let r = blocks[k / 4][k % 4];
                    any |= r;
                    *next = s[k] ^ r;
                }
                (proposed, any & below(&proposed, p, q), blocks[(p - 1) / 4])
            }
        }
    }

    /// The uphill lanes of each class of the moves from `s` to `proposed` (lanes `moves`)
    /// among the neighbours `around`.
    fn classes(&self, (s, proposed, moves): (&Planes, &Planes, u32), around: &[Planes]) -> Classes {
        match self.classes.model {
            StateModel::BlumeCapel => self.blume_capel_classes(s, proposed, around),
            _ => self.potts_classes((s, proposed, moves), around),
        }
    }

    /// Potts: the moves that lose `k` equal neighbours in class `k - 1`, counted in the old
    /// state (`a + k`) and the new one (`a`).
    fn potts_classes(
        &self,
        (s, proposed, moves): (&Planes, &Planes, u32),
        around: &[Planes],
    ) -> Classes {
        let p = self.planes();
        let (mut old, mut new) = ([0; COUNT_BITS], [0; COUNT_BITS]);
        for n in around {
            add_lanes(&mut old, equal_lanes(s, n, p));
            add_lanes(&mut new, equal_lanes(proposed, n, p));
        }
        let z = around.len();
        let mut classes = [0; MAX_CLASSES];
        for k in 1..=z {
            let lanes = (0..=z - k).fold(0, |lanes, a| {
                lanes | (count_is(&old, a + k) & count_is(&new, a))
            });
            classes[k - 1] = lanes & moves;
        }
        classes
    }

    /// Blume-Capel (every proposal of three states a move): flips of `x = k > 0` in class
    /// `k - 1`, moves to or from 0 of `x` in class `z + x + z` where their energy rises.
    fn blume_capel_classes(&self, s: &Planes, proposed: &Planes, around: &[Planes]) -> Classes {
        let (zero, up) = (s[0], s[1]);
        let (zero_next, up_next) = (proposed[0], proposed[1]);
        let leave = zero & !zero_next;
        let enter = !zero & zero_next;
        let flip = !zero & !zero_next;
        // The sign of the move's nonzero spin: the new one where it leaves 0.
        let along_up = (zero & up_next) | (!zero & up);
        let (mut along, mut against) = ([0; COUNT_BITS], [0; COUNT_BITS]);
        for n in around {
            let (n_up, n_down) = (n[1], !n[0] & !n[1]);
            add_lanes(&mut along, (along_up & n_up) | (!along_up & n_down));
            add_lanes(&mut against, (along_up & n_down) | (!along_up & n_up));
        }
        let z = around.len();
        // x_is[x + z]: the lanes of along - against = x.
        let mut x_is = [0; 2 * MAX_NEIGHBOURS + 1];
        for a in 0..=z {
            for b in 0..=z - a {
                x_is[z + a - b] |= count_is(&along, a) & count_is(&against, b);
            }
        }
        let mut classes = [0; MAX_CLASSES];
        for k in 1..=z {
            classes[k - 1] = flip & x_is[z + k];
        }
        for (i, &lanes) in x_is.iter().enumerate().take(2 * z + 1) {
            let uphill = match self.classes.energies[z + i].signum() {
                1 => leave,
                -1 => enter,
                _ => 0,
            };
            classes[z + i] = lanes & uphill;
        }
        classes
    }

    /// The lanes of word `w` (states `s`, neighbours `around`) whose move to `proposed`
    /// (lanes `moves`, the proposal's last block `last`) hit `hit` accepts.
    fn accepted(
        &self,
        key: &PlaneKey,
        (w, hit, last): (u64, u32, [u32; 4]),
        (s, proposed, moves): (&Planes, &Planes, u32),
        around: &[Planes],
    ) -> u32 {
        let classes = self.classes((s, proposed, moves), around);
        let count = self.classes.count;
        let thresholds = &self.classes.thresholds[..count];
        let uphill = classes.iter().fold(0, |all, &c| all | c);
        let mut decision = Decision {
            accept: moves & !uphill,
            undecided: uphill,
        };
        if decision.undecided != 0 {
            let words = key.block(w, hit, DECISION_DRAW);
            for (i, &random) in words.iter().enumerate() {
                let bit = 31 - i;
                let threshold = (classes.iter().zip(thresholds))
                    .filter(|&(_, t)| (t >> bit) & 1 == 1)
                    .fold(0, |bits, (&c, _)| bits | c);
                decision.compare(threshold, random);
            }
        }
        // The tail: the i-th undecided lane's last 28 bits from the i-th tail word.
        let used = proposal_words(self.layout.q, self.layout.planes()) as usize;
        let spare = match used % 4 {
            0 => &[][..],
            first => &last[first..],
        };
        let mut tail = TailWords {
            key,
            at: (w, hit),
            spare,
            block: [0; 4],
        };
        let mut undecided = decision.undecided;
        let mut i = 0;
        while undecided != 0 {
            let lane = undecided.trailing_zeros();
            undecided &= undecided - 1;
            let k = (classes.iter().position(|&c| (c >> lane) & 1 == 1)).expect("an uphill lane");
            let rest = u32::MAX >> SLICED_BITS;
            if tail.word(i) >> SLICED_BITS < thresholds[k] & rest {
                decision.accept |= 1 << lane;
            }
            i += 1;
        }
        decision.accept
    }
}

/// The words of a hit's decision tail, a word a lane still undecided: the words `spare` that
/// the proposal leaves in its last block, then the tail blocks' words in order, each block
/// drawn at its first word.
struct TailWords<'a> {
    key: &'a PlaneKey,
    at: (u64, u32),
    spare: &'a [u32],
    block: [u32; 4],
}

impl TailWords<'_> {
    /// Tail word `i`, asked for in order.
    fn word(&mut self, i: u32) -> u32 {
        let Some(j) = (i as usize).checked_sub(self.spare.len()) else {
            return self.spare[i as usize];
        };
        if j % 4 == 0 {
            let (w, hit) = self.at;
            self.block = self.key.block(w, hit, TAIL_DRAW + j as u32 / 4);
        }
        self.block[j % 4]
    }
}

/// Lanes accepted so far, and lanes whose uniform agrees with its threshold so far.
struct Decision {
    accept: u32,
    undecided: u32,
}

impl Decision {
    /// The next bit, most significant first, of every lane's threshold and uniform.
    fn compare(&mut self, threshold: u32, random: u32) {
        self.accept |= self.undecided & threshold & !random;
        self.undecided &= !(threshold ^ random);
    }
}

/// The neighbour words of word `w` of colour `c` from `other`, the other colour's planes of
/// one system (plane `k` from `k * words`): the words of the same position in the rows above
/// and below along y (and z), and the row's own word and its shift by one site towards the
/// side the colour's sites have their other neighbour in the row.
fn neighbour_words(layout: &PlaneLayout, other: &[u32], c: u32, w: u64) -> Neighbours {
    let lattice = layout.lattice;
    let (l, words) = (u64::from(lattice.size), layout.words_per_colour());
    let row_words = l / 2 / PLANE_BITS;
    let (row, x_word) = (w / row_words, w % row_words);
    let (y, z) = (row % l, row / l);
    let planes = layout.planes() as usize;
    let word_at = |row: u64, x_word: u64| -> Planes {
        let mut planes_at = [0; 8];
        for (k, plane) in planes_at.iter_mut().enumerate().take(planes) {
            *plane = other[k * words as usize + (row * row_words + x_word) as usize];
        }
        planes_at
    };
    let same = word_at(row, x_word);
    // Colour site 32 w + b is at x = 2 (32 w' + b) + first, first = (c + y + z) mod 2; its row
    // neighbours x - 1 and x + 1 are the other colour's sites 32 w' + b - 1 + first and 32 w' +
    // b + first: the same bit, and the bit before (first = 0) or after (first = 1).
    let first = (u64::from(c) + y + z) % 2;
    let shifted: Planes = if first == 0 {
        let before = word_at(row, (x_word + row_words - 1) % row_words);
        std::array::from_fn(|k| (same[k] << 1) | (before[k] >> 31))
    } else {
        let after = word_at(row, (x_word + 1) % row_words);
        std::array::from_fn(|k| (same[k] >> 1) | (after[k] << 31))
    };
    let (down, up) = ((y + l - 1) % l, (y + 1) % l);
    let mut around = Neighbours {
        words: [[0; 8]; MAX_NEIGHBOURS],
        count: 2 * lattice.dims as usize,
    };
    around.words[..4].copy_from_slice(&[
        same,
        shifted,
        word_at(down + l * z, x_word),
        word_at(up + l * z, x_word),
    ]);
    if lattice.dims == 3 {
        around.words[4] = word_at(y + l * ((z + l - 1) % l), x_word);
        around.words[5] = word_at(y + l * ((z + 1) % l), x_word);
    }
    around
}

/// The neighbour words of a plane word: `count` of them (`2 d`).
struct Neighbours {
    words: [Planes; MAX_NEIGHBOURS],
    count: usize,
}

/// The words `words` of colour `key.colour` of one system's `planes` (both colours, as
/// [`PlaneLayout::word`] lays out one system), `update.hits` hits each; returns the moves
/// accepted.
pub fn planes_colour(
    update: &PlaneUpdate,
    planes: &mut [u32],
    key: PlaneKey,
    words: Range<u64>,
) -> u64 {
    let layout = &update.layout;
    let (p, per_colour) = (update.planes(), layout.words_per_colour() as usize);
    let c = key.colour;
    // One system's planes: plane k of colour c at (2 k + c) words.
    let other: Vec<u32> = (0..p)
        .flat_map(|k| {
            let start = (2 * k + (1 - c as usize)) * per_colour;
            planes[start..start + per_colour].iter().copied()
        })
        .collect();
    let mut accepted = 0;
    for w in words {
        let around = neighbour_words(layout, &other, c, w);
        let own = |k: usize| (2 * k + c as usize) * per_colour + w as usize;
        let mut s: Planes = [0; 8];
        for (k, plane) in s.iter_mut().enumerate().take(p) {
            *plane = planes[own(k)];
        }
        for hit in 0..update.hits {
            let (proposed, moves, last) = update.propose(&key, (w, hit), &s);
            let neighbours = &around.words[..around.count];
            let flips = update.accepted(&key, (w, hit, last), (&s, &proposed, moves), neighbours);
            for k in 0..p {
                s[k] ^= (s[k] ^ proposed[k]) & flips;
            }
            accepted += u64::from(flips.count_ones());
        }
        for (k, &plane) in s.iter().enumerate().take(p) {
            planes[own(k)] = plane;
        }
    }
    accepted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lattice;
    use crate::model::vector::fixed::acceptance_table;
    use crate::stats::test_rng::TestRng;

    fn update_of(states: &States, dims: u32, beta: f64) -> PlaneUpdate {
        let lattice = Lattice::new(dims, 64);
        let layout = PlaneLayout {
            lattice,
            q: states.q,
            systems: 1,
        };
        let classes = plane_classes(states, 1, lattice.coordination(), &acceptance_table(beta));
        PlaneUpdate {
            layout,
            hits: 1,
            classes,
        }
    }

    fn key(sweep: u32) -> PlaneKey {
        PlaneKey {
            seed: 5,
            sweep,
            colour: 1,
            system: 0,
        }
    }

    /// The state of lane `lane` in the planes.
    fn lane_state(planes: &Planes, lane: u32) -> u32 {
        (0..8).fold(0, |state, k| state | (((planes[k] >> lane) & 1) << k))
    }

    #[test]
    fn bit_sliced_counts_count_every_lane() {
        let xs = [0x0f0f_1234u32, 0xffff_0000, 0x1357_9bdf, 0xdead_beef, 0, !0];
        let mut count = [0; COUNT_BITS];
        xs.iter().for_each(|&x| add_lanes(&mut count, x));
        for lane in 0..32 {
            let expected: u32 = xs.iter().map(|x| (x >> lane) & 1).sum();
            for value in 0..=6 {
                let is = (count_is(&count, value) >> lane) & 1 == 1;
                assert_eq!(is, value as u32 == expected, "lane {lane}, value {value}");
            }
        }
    }

    #[test]
    fn proposals_of_three_states_are_the_two_others() {
        let update = update_of(&States::potts(3, 0.0), 2, 1.0);
        // Lanes 0..10 in state 0, 11..21 in state 1, the rest in state 2.
        let s: Planes = [0x003f_f800, 0xffc0_0000, 0, 0, 0, 0, 0, 0];
        let mut seen = [[0u32; 3]; 3];
        for hit in 0..40 {
            let (proposed, moves, _) = update.propose(&key(3), (5, hit), &s);
            assert_eq!(moves, !0);
            for lane in 0..32 {
                let (from, to) = (lane_state(&s, lane), lane_state(&proposed, lane));
                assert!(to < 3 && to != from, "lane {lane}: {from} -> {to}");
                seen[from as usize][to as usize] += 1;
            }
        }
        for (from, row) in seen.iter().enumerate() {
            for (to, &count) in row.iter().enumerate() {
                assert_eq!(count == 0, from == to, "{from} -> {to}: {count}");
            }
        }
    }

    /// Random states of `q` in `p` planes.
    fn random_planes(rng: &mut TestRng, q: u32, p: usize) -> Planes {
        let mut planes = [0; 8];
        for lane in 0..32 {
            let state = rng.below(u64::from(q)) as u32;
            for (k, plane) in planes.iter_mut().enumerate().take(p) {
                *plane |= ((state >> k) & 1) << lane;
            }
        }
        planes
    }

    /// Every lane of random words and neighbours is in the class of its energy change, worked
    /// out site by site from the model's tables, or in none where the change is not positive.
    #[test]
    fn classes_hold_each_lane_by_its_energy_change() {
        let models = [
            States::potts(3, 0.0),
            States::potts(6, 0.0),
            States::blume_capel(0.0, 0.0),
            States::blume_capel(1.3, 0.0),
            States::blume_capel(-0.7, 0.0),
            States::blume_capel(2.0, 0.0),
        ];
        let mut rng = TestRng::new(17);
        for states in &models {
            for dims in [2, 3] {
                let update = update_of(states, dims, 0.5);
                let (p, z) = (update.planes(), 2 * dims as usize);
                let count = update.classes.count;
                for word in 0..50u64 {
                    let s = random_planes(&mut rng, states.q, p);
                    let around: Vec<Planes> = (0..z)
                        .map(|_| random_planes(&mut rng, states.q, p))
                        .collect();
                    let (proposed, moves, _) = update.propose(&key(1), (word, 0), &s);
                    let classes = update.classes((&s, &proposed, moves), &around);
                    assert!(classes[count..].iter().all(|&c| c == 0));
                    for lane in 0..32 {
                        let held: Vec<usize> = (0..count)
                            .filter(|&k| (classes[k] >> lane) & 1 == 1)
                            .collect();
                        if (moves >> lane) & 1 == 0 {
                            assert!(held.is_empty(), "lane {lane} stays, in {held:?}");
                            continue;
                        }
                        let (a, b) = (lane_state(&s, lane), lane_state(&proposed, lane));
                        let change: i32 = (around.iter())
                            .map(|n| {
                                let c = lane_state(n, lane);
                                states.pair(a, c) - states.pair(b, c)
                            })
                            .sum::<i32>()
                            + states.site[b as usize]
                            - states.site[a as usize];
                        match held[..] {
                            [] => assert!(change <= 0, "{states:?} {a} -> {b}: {change}"),
                            [k] => {
                                let energy = update.classes.energies[k];
                                assert_eq!(change, energy.abs(), "{a} -> {b}, class {k}");
                            }
                            _ => panic!("lane {lane} in the classes {held:?}"),
                        }
                    }
                }
            }
        }
    }

    /// One lane's acceptance of losing k equal neighbours against `t_k / 2^32`: the decisions
    /// of every lane, counted over many words, within 5 sigma, through both the bit-sliced
    /// bits and the tail (a cold temperature's thresholds of about `2^-8` leave a lane
    /// undecided after 4 bits as often as not). Two states take their tail words from tail
    /// blocks only, three states first from the proposal's block (its words 1 to 3).
    #[test]
    fn decisions_accept_uphill_moves_by_their_threshold() {
        for (q, beta) in [(2, 0.4), (2, 2.8), (3, 0.4), (3, 2.8)] {
            let update = update_of(&States::potts(q, 0.0), 2, beta);
            // Every lane in state 0 with k of its 4 neighbours in state 0 (word planes all ones
            // for neighbours 0 .. k - 1, zeros for the others) proposes state 1; the other
            // neighbours are in state 1 (q = 2) or 2 (q = 3).
            let s: Planes = [0; 8];
            let proposed: Planes = [!0, 0, 0, 0, 0, 0, 0, 0];
            let other: Planes = match q {
                2 => [!0, 0, 0, 0, 0, 0, 0, 0],
                _ => [0, !0, 0, 0, 0, 0, 0, 0],
            };
            for k in 0..=4u32 {
                let around: Vec<Planes> = (0..4).map(|n| if n < k { s } else { other }).collect();
                // Losing k equal neighbours and gaining the 4 - k others (q = 2) or none.
                let change = match q {
                    2 => 2 * k as i32 - 4,
                    _ => k as i32,
                };
                let mut accepted = 0u64;
                let words = 2000u64;
                for w in 0..words {
                    let last = match q {
                        2 => [0; 4],
                        _ => key(k).block(w, 0, 0),
                    };
                    let at = (w, 0, last);
                    let lanes = update.accepted(&key(k), at, (&s, &proposed, !0), &around);
                    accepted += u64::from(lanes.count_ones());
                }
                let p = match change {
                    ..=0 => 1.0,
                    c => f64::from(update.classes.thresholds[c as usize - 1]) / 2f64.powi(32),
                };
                let n = (32 * words) as f64;
                let seen = accepted as f64 / n;
                let sigma = (p * (1.0 - p) / n).sqrt().max(1e-9);
                assert!(
                    (seen - p).abs() <= 5.0 * sigma,
                    "q = {q}, beta {beta}, k = {k}: {seen} against {p}"
                );
                if change > 0 {
                    let exact = (-beta * f64::from(change)).exp();
                    assert!(
                        (p - exact).abs() < 1e-6,
                        "{p} against exp(-beta dE) = {exact}"
                    );
                }
            }
        }
    }
}

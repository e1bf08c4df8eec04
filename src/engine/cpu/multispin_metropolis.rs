//! CPU mirror of `shaders/wgsl/multispin_metropolis.wgsl`: checkerboard Metropolis on spin
//! words, 32 lanes (AMSC) or 32 sites (SMSC) per word, with exact independent decisions.
//!
//! Per word: count the unsatisfied bonds of every lane (`s ^ n ^ j`, bit-sliced), sort lanes
//! into energy categories, accept the lanes whose flip lowers or keeps the energy, and decide
//! the others by comparing a uniform 32-bit word per lane with the lane's threshold, most
//! significant bit first, one random word per bit ([`DecisionRule::accepted_lanes`]). With
//! `randoms: Packed` the words past a word's first Philox block come from the packed tail of
//! the run of words one GPU thread updates ([`DecisionRule::accepted_run`]).

use super::bitslice::{BondCount, count_equals};
use crate::config::Randoms;
use crate::engine::multispin::{LANES, MAX_CATEGORIES, MultispinLayout, WordSite};
use crate::rng::{Counter, Purpose, random_block};
use rayon::prelude::*;
use std::ops::Range;

/// Words of a colour one task updates at least: a row of a small SMSC lattice is a few words.
const WORDS_PER_TASK: u32 = 1 << 12;

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

impl Decision {
    /// Lanes still undecided drew `U == t` exactly: `U <= t` accepts.
    fn accepted(&self) -> u32 {
        self.accept | self.undecided
    }
}

/// Block `b` (1..7) of the packed tail (`Randoms::Packed`) is draw `PACKED_TAIL_DRAW + b` of
/// the run's first word: past the eight draws of any word's own stream.
const PACKED_TAIL_DRAW: u32 = 7;

/// The most words a run holds ([`MultispinLayout::word_run`]).
const MAX_WORD_RUN: usize = 4;

/// What a decision needs of the layout, computed once per colour update rather than per word:
/// the coordination, the class of each category, the number of classes and whether lanes lack
/// bonds (an open axis).
struct DecisionRule {
    z: u32,
    category_classes: [u32; 4],
    classes: usize,
    open: bool,
}

impl DecisionRule {
    fn new(layout: &MultispinLayout) -> Self {
        DecisionRule {
            z: layout.site_bonds(),
            category_classes: layout.category_classes(),
            classes: layout.energy_classes().len(),
            open: layout.odd_categories() != 0,
        }
    }

    /// The class of category `cat`, of the odd categories where `odd`
    /// ([`MultispinLayout::category_classes`]).
    fn class_of(&self, cat: u32, odd: bool) -> u32 {
        let word = 2 * usize::from(odd) + (cat / 8) as usize;
        self.category_classes[word] >> (4 * (cat % 8)) & 0xf
    }

    /// The lanes of `spin` in category (down, c) or (up, c) of class `class`, of the odd
    /// categories where `odd` (where those lanes count `z - 1` bonds).
    fn class_spins(&self, spin: u32, c: u32, class: u32, odd: bool) -> u32 {
        let bonds = self.z - u32::from(odd);
        let down = self.class_of(c, odd) == class;
        let up = self.class_of(bonds + 1 + c, odd) == class;
        match (down, up) {
            (true, true) => !0,
            (true, false) => !spin,
            (false, true) => spin,
            (false, false) => 0,
        }
    }

    /// The lanes of each energy class: categories (down, c) and (up, c) of that class, of the
    /// odd categories for the lanes that lack an odd number of bonds (`count.odd`).
    fn class_masks(&self, spin: u32, count: BondCount) -> [u32; MAX_CATEGORIES as usize] {
        let mut masks = [0u32; MAX_CATEGORIES as usize];
        for (class, mask) in (0..).zip(masks.iter_mut()).take(self.classes) {
            for c in 0..=self.z {
                *mask |= count_equals(count, c) & self.class_spins(spin, c, class, false);
            }
            if self.open {
                let mut odd = 0;
                for c in 0..self.z {
                    odd |= count_equals(count, c) & self.class_spins(spin, c, class, true);
                }
                *mask = (*mask & !count.odd) | (odd & count.odd);
            }
        }
        masks
    }

    /// Lanes whose flip is accepted: those in categories that do not raise the energy, and the
    /// others where the lane's uniform `U <= t` for the threshold `t` of its energy class
    /// (`table` as [`MultispinLayout::threshold_tables`] builds it).
    fn accepted_lanes(
        &self,
        spin: u32,
        count: BondCount,
        table: &[u32],
        randoms: &mut UpdateRandoms,
    ) -> u32 {
        let masks = self.class_masks(spin, count);
        let mut decision = self.decision(&masks);
        self.draw_blocks(&mut decision, &masks, table, randoms, 0..8, 0);
        decision.accepted()
    }

    /// The lanes that flip in a run of words (`Randoms::Packed`), `words` their spins and
    /// counts, `randoms` their streams. Each word first compares its own block 0, as in
    /// [`Self::accepted_lanes`]. Its lanes still undecided (about one in sixteen of those that
    /// need a uniform) then join the packed word, rotated by the first multiple of
    /// `32 / rotations` bits that keeps them apart from the earlier words' lanes there; the
    /// packed word compares blocks `PACKED_TAIL_DRAW + b` (b = 1..7) of the run's first word with
    /// threshold planes 27 down, so a block of randoms serves the lanes of several words. A word
    /// whose lanes fit no rotation goes on with its own blocks 1..7. `flips` receives the lanes
    /// that flip, word by word.
    fn accepted_run(
        &self,
        words: &[(u32, BondCount)],
        table: &[u32],
        randoms: &mut [UpdateRandoms],
        rotations: u32,
        flips: &mut Vec<u32>,
    ) {
        let mut packed_masks = [0u32; MAX_CATEGORIES as usize];
        let mut packed = Decision {
            accept: 0,
            undecided: 0,
        };
        // Per word: the packed lanes and their rotation ((0, 0) for a word decided on its own).
        let mut in_tail = [(0u32, 0u32); MAX_WORD_RUN];
        flips.clear();
        for (j, (&(spin, count), randoms)) in words.iter().zip(randoms.iter_mut()).enumerate() {
            let masks = self.class_masks(spin, count);
            let mut decision = self.decision(&masks);
            self.draw_blocks(&mut decision, &masks, table, randoms, 0..1, 0);
            let lanes = decision.undecided;
            let rotation = (0..rotations)
                .map(|i| i * (32 / rotations))
                .find(|&r| lanes.rotate_left(r) & packed.undecided == 0);
            match rotation {
                Some(r) => {
                    packed.undecided |= lanes.rotate_left(r);
                    for (packed, mask) in packed_masks.iter_mut().zip(masks) {
                        *packed |= (mask & lanes).rotate_left(r);
                    }
                    in_tail[j] = (lanes, r);
                    flips.push(decision.accept);
                }
                None => {
                    self.draw_blocks(&mut decision, &masks, table, randoms, 1..8, 0);
                    flips.push(decision.accepted());
                }
            }
        }
        let tail = &mut randoms[0];
        self.draw_blocks(
            &mut packed,
            &packed_masks,
            table,
            tail,
            1..8,
            PACKED_TAIL_DRAW,
        );
        let packed = packed.accepted();
        for (flips, (lanes, r)) in flips.iter_mut().zip(in_tail) {
            *flips |= packed.rotate_right(r) & lanes;
        }
    }

    /// The lanes of `masks` undecided, the others accepted (their flips do not raise the energy).
    fn decision(&self, masks: &[u32; MAX_CATEGORIES as usize]) -> Decision {
        let undecided = masks[..self.classes].iter().fold(0, |a, m| a | m);
        Decision {
            accept: !undecided,
            undecided,
        }
    }

    /// Compare blocks `blocks` of the draw (block `b`: threshold bits `31 - 4 b` down to
    /// `28 - 4 b`), each `randoms`' block `draw_offset + b`, until no lane is undecided (once none
    /// is, further comparisons change nothing).
    fn draw_blocks(
        &self,
        decision: &mut Decision,
        masks: &[u32; MAX_CATEGORIES as usize],
        table: &[u32],
        randoms: &mut UpdateRandoms,
        blocks: std::ops::Range<u32>,
        draw_offset: u32,
    ) {
        for b in blocks {
            if decision.undecided == 0 {
                break;
            }
            let k = 31 - 4 * b;
            for (j, random) in randoms.block(draw_offset + b).into_iter().enumerate() {
                self.compare_bit(decision, masks, table, random, k - j as u32);
            }
        }
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
        // Class 0's bits, and each other class's where its lanes differ (see
        // MultispinLayout::threshold_tables).
        let k = k as usize;
        let threshold_bits = match self.classes {
            0 => 0,
            classes => (1..classes).fold(table[k], |t, class| {
                t ^ masks[class] & table[class * 32 + k]
            }),
        };
        decision.accept |= decision.undecided & threshold_bits & !random;
        decision.undecided &= !(threshold_bits ^ random);
    }
}

/// Per-lane unsatisfied bonds of the word at `site` of colour `colour` with spin `spin`: to
/// the other colour's words `other`, and on the triangular lattice along the diagonal to the
/// words of its own colour before the pass, `own` (the rows of the other half, which the pass
/// leaves as they are).
fn unsatisfied_bonds(
    layout: &MultispinLayout,
    spin: u32,
    (own, other): (&[u32], &[u32]),
    (couplings, group): (&[u32], u32),
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
        let sides = layout.bond_sides(colour, d);
        for side in (0..2).filter(|&side| sides[side] && layout.has_bonds(site, d)) {
            let open = layout.open_lanes(site, d, side as u32);
            count.add_open(spin ^ neighbours[side] ^ bonds[side], open);
        }
    }
    if layout.is_triangular() && layout.has_bonds(site, 2) {
        let own_bonds = layout.bond_array(couplings, group, 2, colour);
        let bonds = if own_bonds.is_empty() {
            [0, 0]
        } else {
            [
                layout.diagonal_neighbours(own_bonds, site)[0],
                own_bonds[cw],
            ]
        };
        let neighbours = layout.diagonal_neighbours(own, site);
        for (side, (neighbour, bond)) in (0..).zip(neighbours.into_iter().zip(bonds)) {
            count.add_open(spin ^ neighbour ^ bond, layout.open_lanes(site, 2, side));
        }
    }
    count
}

/// Update pass `pass` of sweep `sweep` (its colour, [`MultispinLayout::pass_colour`], on the
/// triangular lattice half its rows) on the own planes `planes` of word system `g`, whose two
/// colour arrays are `spins`: every own plane for the whole pass, fewer for a piece of the
/// sweep ([`crate::engine::Step::Part`]).
pub fn sweep_pass(
    layout: &MultispinLayout,
    (tables, couplings): (&[u32], &[u32]),
    spins: &mut [u32],
    g: u32,
    (sweep, pass): (u32, u32),
    planes: Range<u32>,
) {
    let colour = MultispinLayout::pass_colour(pass);
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
    // The triangular lattice's diagonal neighbours: the colour's words before the pass.
    let before = match layout.is_triangular() {
        true => own.to_vec(),
        false => Vec::new(),
    };
    let count_of = |row: u32, w: u32, spin: u32| {
        let site = layout.word_site(colour, row, w);
        let arrays = (before.as_slice(), other);
        unsatisfied_bonds(layout, spin, arrays, (couplings, group), colour, &site)
    };
    let randoms = |cw: u32| UpdateRandoms::new(layout, g, sweep, colour, cw + layout.word_offset());
    let row_words = layout.row_words();
    let rotations = layout.pack_rotations();
    // Packed randoms: the runs of words one GPU thread updates, `run` words of a row `stride`
    // apart (MultispinLayout::word_run).
    let run = layout.word_run();
    let stride = row_words / run;
    // The planes' rows hold whole runs: the words of the GPU's threads of these planes
    // (MultispinLayout::plane_threads), which share their packed randoms.
    let rows = layout.plane_rows_of(planes);
    let in_pass =
        |(i, _): &(usize, &mut [u32])| layout.pass_updates_row(pass, rows.start + *i as u32);
    let own = &mut own[(rows.start * row_words) as usize..(rows.end * row_words) as usize];
    let update_row = |buffers: &mut RunBuffers, (i, own_row): (usize, &mut [u32])| {
        let row = rows.start + i as u32;
        if rotations == 0 {
            for (w, spin) in (0..).zip(own_row.iter_mut()) {
                let count = count_of(row, w, *spin);
                *spin ^=
                    rule.accepted_lanes(*spin, count, table, &mut randoms(row * row_words + w));
            }
            return;
        }
        let RunBuffers {
            words,
            streams,
            flips,
        } = buffers;
        for first in 0..stride {
            let ws = (0..run).map(|j| first + j * stride);
            words.clear();
            words.extend(ws.clone().map(|w| {
                let spin = own_row[w as usize];
                (spin, count_of(row, w, spin))
            }));
            streams.clear();
            streams.extend(ws.clone().map(|w| randoms(row * row_words + w)));
            rule.accepted_run(words, table, streams, rotations, flips);
            for ((w, (spin, _)), flips) in ws.zip(words.iter()).zip(flips.iter()) {
                own_row[w as usize] = spin ^ flips;
            }
        }
    };
    // A row's words read only themselves and the other colour: the rows of a large lattice (or
    // piece) update in parallel; a small one's stay on this thread, where tasks would cost more.
    if own.len() < WORDS_PER_TASK as usize * 4 {
        let mut buffers = RunBuffers::default();
        let own_rows = own.chunks_mut(row_words as usize).enumerate();
        own_rows
            .filter(in_pass)
            .for_each(|row| update_row(&mut buffers, row));
        return;
    }
    own.par_chunks_mut(row_words as usize)
        .enumerate()
        .with_min_len(WORDS_PER_TASK.div_ceil(row_words) as usize)
        .filter(in_pass)
        .for_each_init(RunBuffers::default, update_row);
}

/// What one run of packed words is decided with, kept by each task between its rows.
#[derive(Default)]
struct RunBuffers {
    words: Vec<(u32, BondCount)>,
    streams: Vec<UpdateRandoms>,
    flips: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Lanes, Layout, MultispinOptions};
    use crate::engine::SpinBits;
    use crate::model::ising::{IsingSystems, threshold};
    use crate::model::lattices::{is_kagome_hole, is_missing_bond};
    use crate::model::{Lattice, Shape, couplings::coupling_signs_of};
    use std::collections::HashMap;

    /// A lane: (word system, word index in its colour, bit).
    type LaneKey = (u32, u32, u32);

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
        let words = stream(layout, g, sweep, colour, cw, 0..8);
        (0..32).fold(0, |u, i| u | (words[i] >> bit & 1) << (31 - i))
    }

    /// A fixed pattern of spins, `up` in 7 of them up.
    fn test_spins(layout: &MultispinLayout, up: usize) -> Vec<i32> {
        let n = layout.systems.spin_count();
        (0..n)
            .map(|i| if (i * 2_654_435_761) % 7 < up { 1 } else { -1 })
            .collect()
    }

    /// Colour 1 of sweep 9 of `spins` through the multispin update of `layout`.
    fn colour_update(layout: &MultispinLayout, spins: &[i32]) -> Vec<i32> {
        pass_update(layout, spins, 1)
    }

    /// Pass `pass` of sweep 9 of `spins` through the multispin update of `layout`.
    fn pass_update(layout: &MultispinLayout, spins: &[i32], pass: u32) -> Vec<i32> {
        let tables = layout.threshold_tables();
        let couplings = layout.coupling_words();
        let bits = SpinBits::from_signs(layout.systems.systems(), layout.lattice().sites(), spins);
        let mut words = layout.pack(&bits);
        let len = 2 * layout.colour_words() as usize;
        let planes = 0..layout.own_planes();
        for (g, system_words) in words.chunks_mut(len).enumerate() {
            let arrays = (tables.as_slice(), couplings.as_slice());
            sweep_pass(
                layout,
                arrays,
                system_words,
                g as u32,
                (9, pass),
                planes.clone(),
            );
        }
        layout.unpack(&words).to_signs()
    }

    /// Each lane's flip threshold in a colour update, lane by lane on plain lattices:
    /// `(g, cw, bit) -> None` where the flip does not raise the energy, else `Some(t)`, the flip
    /// taken where the lane's uniform `U <= t`.
    fn lane_thresholds(
        layout: &MultispinLayout,
        spins: &[i32],
        pass: u32,
    ) -> HashMap<LaneKey, (u64, Option<u32>)> {
        let s = &layout.systems;
        let lattice = s.lattice;
        let n = lattice.sites();
        let couplings: Vec<Vec<i8>> = (0..s.samples)
            .map(|sample| coupling_signs_of(&lattice, &s.antiferromagnetic_bonds(sample)))
            .collect();
        let mut lanes = HashMap::new();
        layout.for_each_word(|_, g, c, row, w| {
            if c != MultispinLayout::pass_colour(pass) || !layout.pass_updates_row(pass, row) {
                return;
            }
            let cw = row * layout.row_words() + w;
            layout.for_each_bit(g, c, row, w, |bit, system, site| {
                let j = &couplings[s.sample_of(system) as usize];
                let index = u64::from(system) * n + site;
                let spin = spins[index as usize];
                let mut local = 0i32;
                let neighbours = lattice.neighbours(site).enumerate();
                for (k, neighbour) in neighbours.filter(|&(_, j)| !is_kagome_hole(&lattice, j)) {
                    let bond = lattice.neighbour_bond(site, neighbour, k);
                    if is_missing_bond(s.boundaries, &lattice, bond) {
                        continue;
                    }
                    local += i32::from(j[bond as usize])
                        * spins[(u64::from(system) * n + neighbour) as usize];
                }
                let delta_e = 2.0 * f64::from(spin) * (f64::from(local) + s.field);
                let beta = s.betas[s.temperature_of(system) as usize];
                let t = (delta_e > 0.0).then(|| threshold(beta, delta_e));
                lanes.insert((g, cw, bit), (index, t));
            });
        });
        lanes
    }

    /// One update pass done site by site: a site flips where its flip does not raise the
    /// energy or its lane's uniform `uniform(g, cw, bit) <= t`.
    fn scalar_update(
        layout: &MultispinLayout,
        spins: &[i32],
        pass: u32,
        uniform: impl Fn(u32, u32, u32) -> u32,
    ) -> Vec<i32> {
        let mut out = spins.to_vec();
        for ((g, cw, bit), (index, t)) in lane_thresholds(layout, spins, pass) {
            if t.is_none_or(|t| uniform(g, cw, bit) <= t) {
                out[index as usize] = -spins[index as usize];
            }
        }
        out
    }

    /// Packed randoms lane by lane: a lane's uniform has as bits 31..28 its bits of block 0 of
    /// its word's stream. A lane those leave undecided (equal to its threshold's) takes bits
    /// 27..0 from the run's tail (blocks 8..14 of the run's first word) at its position rotated
    /// by its word's rotation: the first multiple of 32 / rotations bits at which the word's
    /// undecided lanes meet none of the earlier words'; or, where none fits, from its own blocks
    /// 1..7. Returns the uniforms by (g, cw, bit), and how many words took a rotation other than
    /// 0 and how many fit none.
    fn packed_uniforms(
        layout: &MultispinLayout,
        lanes: &HashMap<LaneKey, (u64, Option<u32>)>,
        sweep: u32,
        pass: u32,
    ) -> (HashMap<LaneKey, u32>, [usize; 2]) {
        let colour = MultispinLayout::pass_colour(pass);
        let rotations = layout.pack_rotations();
        let (run, row_words) = (layout.word_run(), layout.row_words());
        let stride = row_words / run;
        let mut uniforms = HashMap::new();
        let mut counts = [0, 0];
        let bit_of = |words: &[u32], i: usize, bit: u32| words[i] >> bit & 1;
        for g in 0..layout.word_systems() {
            for row in (0..layout.own_rows()).filter(|&row| layout.pass_updates_row(pass, row)) {
                for first in 0..stride {
                    let first_cw = row * row_words + first;
                    let tail = stream(layout, g, sweep, colour, first_cw, 8..15);
                    let mut taken = 0u32;
                    for cw in (0..run).map(|j| first_cw + j * stride) {
                        let own = stream(layout, g, sweep, colour, cw, 0..8);
                        let top = |bit| (0..4).fold(0, |u, i| u << 1 | bit_of(&own, i, bit));
                        let undecided = (0..32).filter(|&bit| {
                            lanes[&(g, cw, bit)].1.is_some_and(|t| t >> 28 == top(bit))
                        });
                        let mask = undecided.fold(0u32, |m, bit| m | 1 << bit);
                        let rotation = (0..rotations)
                            .map(|i| i * (32 / rotations))
                            .find(|&r| mask.rotate_left(r) & taken == 0);
                        match rotation {
                            Some(r) => {
                                taken |= mask.rotate_left(r);
                                counts[0] += usize::from(r != 0);
                            }
                            None => counts[1] += 1,
                        }
                        for bit in 0..32 {
                            let low = |words: &[u32], position: u32| {
                                (4..32).fold(0, |u, i| u << 1 | bit_of(words, i - 4, position))
                            };
                            let packed = mask >> bit & 1 == 1 && rotation.is_some();
                            let rest = match rotation {
                                Some(r) if packed => low(&tail, (bit + r) % 32),
                                _ => low(&own[4..], bit),
                            };
                            uniforms.insert((g, cw, bit), top(bit) << 28 | rest);
                        }
                    }
                }
            }
        }
        (uniforms, counts)
    }

    /// The random words of blocks `draws` of word `cw`'s stream, in order.
    fn stream(
        layout: &MultispinLayout,
        g: u32,
        sweep: u32,
        colour: u32,
        cw: u32,
        draws: std::ops::Range<u32>,
    ) -> Vec<u32> {
        let mut randoms = UpdateRandoms::new(layout, g, sweep, colour, cw);
        draws.flat_map(|draw| randoms.block(draw)).collect()
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
            // 16384 words a colour: the rows update in parallel.
            layout(2, 1024, Layout::Smsc, Randoms::Exact, 1, 1),
        ];
        for layout in cases {
            let spins = test_spins(&layout, 3);
            let got = colour_update(&layout, &spins);
            let uniform = |g, cw, bit| lane_uniform(&layout, g, 9, 1, cw, bit);
            assert_eq!(
                got,
                scalar_update(&layout, &spins, 1, uniform),
                "{}",
                layout.describe()
            );
            assert_ne!(got, spins, "{}: nothing flipped", layout.describe());
        }
    }

    /// Open edges: a site on the edge of an open axis leaves out the bond across it, so the
    /// lanes of the edges' words (AMSC) or the edge bits (SMSC) take the energy changes of
    /// fewer bonds; the corners lack two bonds (2D) or up to three (3D), each axis open alone
    /// and with another antiperiodic. The ferromagnet and the glass, in a field, exact, shared
    /// and packed randoms, every pass; the honeycomb, triangular (corners three bonds short)
    /// and kagome lattices too.
    #[test]
    fn open_edges_equal_a_scalar_update_per_lane() {
        use crate::config::{Boundaries, Boundary};
        use crate::engine::multispin::fixtures::shaped;
        let with_edges = |layout: MultispinLayout, axes: &[Boundary]| {
            let mut systems = layout.systems.clone();
            systems.boundaries = Boundaries::new(axes);
            MultispinLayout::new(
                systems,
                MultispinOptions {
                    layout: layout.layout,
                    randoms: layout.randoms,
                },
            )
        };
        let samples = Layout::Amsc {
            lanes: Lanes::Samples,
        };
        let temperatures = Layout::Amsc {
            lanes: Lanes::Temperatures,
        };
        let (open, periodic, twisted) =
            (Boundary::Open, Boundary::Periodic, Boundary::Antiperiodic);
        let cases = [
            with_edges(layout(2, 6, samples, Randoms::Exact, 32, 2), &[open, open]),
            with_edges(
                layout(2, 6, temperatures, Randoms::Shared, 1, 5),
                &[open, twisted],
            ),
            with_edges(layout(3, 4, temperatures, Randoms::Exact, 1, 7), &[open; 3]),
            with_edges(
                layout(3, 4, samples, Randoms::Packed, 32, 1),
                &[periodic, twisted, open],
            ),
            with_edges(
                layout(2, 128, Layout::Smsc, Randoms::Exact, 1, 1),
                &[open, periodic],
            ),
            with_edges(
                layout(2, 128, Layout::Smsc, Randoms::Packed, 1, 1),
                &[open, open],
            ),
            with_edges(
                layout(3, 64, Layout::Smsc, Randoms::Exact, 1, 1),
                &[open; 3],
            ),
        ];
        // The other lattices: the honeycomb's one y bond, the triangular diagonal across both
        // edges, the kagome sites' four bonds.
        let (honeycomb, triangular, kagome) = (Shape::Honeycomb, Shape::Triangular, Shape::Kagome);
        let (smsc, exact, packed, shared) = (
            Layout::Smsc,
            Randoms::Exact,
            Randoms::Packed,
            Randoms::Shared,
        );
        let others = [
            (honeycomb, layout(2, 6, samples, exact, 32, 2), [open, open]),
            (
                honeycomb,
                layout(2, 64, smsc, packed, 1, 1),
                [periodic, open],
            ),
            (
                triangular,
                layout(2, 6, temperatures, exact, 1, 3),
                [open, open],
            ),
            (
                triangular,
                layout(2, 192, smsc, shared, 1, 1),
                [open, twisted],
            ),
            (kagome, layout(2, 12, samples, packed, 32, 1), [open, open]),
            (kagome, layout(2, 192, smsc, exact, 1, 1), [twisted, open]),
        ]
        .map(|(shape, layout, axes)| with_edges(shaped(layout, shape), &axes));
        for layout in cases.into_iter().chain(others) {
            assert!(layout.odd_categories() > 0);
            let spins = test_spins(&layout, 3);
            for pass in 0..layout.sweep_passes() {
                let colour = MultispinLayout::pass_colour(pass);
                let lanes = lane_thresholds(&layout, &spins, pass);
                let expected = match layout.randoms {
                    Randoms::Packed => {
                        let (uniforms, _) = packed_uniforms(&layout, &lanes, 9, pass);
                        scalar_update(&layout, &spins, pass, |g, cw, bit| uniforms[&(g, cw, bit)])
                    }
                    _ => scalar_update(&layout, &spins, pass, |g, cw, bit| {
                        lane_uniform(&layout, g, 9, colour, cw, bit)
                    }),
                };
                let case = format!(
                    "{} {:?} pass {pass}",
                    layout.describe(),
                    layout.systems.boundaries
                );
                assert_eq!(pass_update(&layout, &spins, pass), expected, "{case}");
            }
        }
    }

    /// The triangular lattice's four passes (each colour's even rows, then its odd rows), its
    /// diagonal bonds read from the pass's own colour: the ferromagnet, the antiferromagnet and
    /// the +-J glass, AMSC and SMSC, exact, shared and packed randoms; the kagome lattice's, whose
    /// sites keep four of the six bonds and whose holes' pass moves nothing.
    #[test]
    fn triangular_passes_equal_a_scalar_update_per_lane() {
        let triangular = |size, layout, randoms, samples, antiferromagnet| {
            let mut systems = match samples {
                0 => IsingSystems::ferromagnet(
                    Lattice::shaped(Shape::Triangular, 2, size),
                    0.4,
                    vec![0.3, 0.7],
                    32,
                    0x5eed,
                ),
                _ => IsingSystems::spin_glass(
                    Lattice::shaped(Shape::Triangular, 2, size),
                    -0.3,
                    vec![0.45],
                    samples,
                    2,
                    0x5eed,
                ),
            };
            systems.antiferromagnet = antiferromagnet;
            MultispinLayout::new(systems, MultispinOptions { layout, randoms })
        };
        use crate::engine::multispin::fixtures::kagome;
        let samples = Layout::Amsc {
            lanes: Lanes::Samples,
        };
        let replicas = Layout::Amsc {
            lanes: Lanes::Replicas,
        };
        let cases = [
            triangular(6, replicas, Randoms::Exact, 0, false),
            triangular(6, replicas, Randoms::Exact, 0, true),
            triangular(12, samples, Randoms::Exact, 32, false),
            triangular(192, Layout::Smsc, Randoms::Exact, 0, true),
            triangular(192, Layout::Smsc, Randoms::Shared, 0, false),
            kagome(triangular(6, replicas, Randoms::Exact, 0, true)),
            kagome(triangular(12, samples, Randoms::Exact, 32, false)),
            kagome(triangular(192, Layout::Smsc, Randoms::Exact, 0, false)),
        ];
        for layout in cases {
            let spins = test_spins(&layout, 3);
            for pass in 0..layout.sweep_passes() {
                let got = pass_update(&layout, &spins, pass);
                let colour = MultispinLayout::pass_colour(pass);
                let uniform = |g, cw, bit| lane_uniform(&layout, g, 9, colour, cw, bit);
                let expected = scalar_update(&layout, &spins, pass, uniform);
                let case = format!("{} {:?} pass {pass}", layout.describe(), layout.lattice());
                assert_eq!(got, expected, "{case}");
                // The kagome lattice's pass of its holes moves nothing.
                let holes = layout.holes_pass(pass);
                assert_eq!(got == spins, holes, "{case}: moved where it should not");
            }
        }
        let packed = triangular(192, Layout::Smsc, Randoms::Packed, 0, false);
        let spins = test_spins(&packed, 5);
        for pass in 0..4 {
            let lanes = lane_thresholds(&packed, &spins, pass);
            let (uniforms, _) = packed_uniforms(&packed, &lanes, 9, pass);
            let expected =
                scalar_update(&packed, &spins, pass, |g, cw, bit| uniforms[&(g, cw, bit)]);
            assert_eq!(
                pass_update(&packed, &spins, pass),
                expected,
                "packed pass {pass}"
            );
        }
    }

    /// Packed randoms decide every lane as `U <= t` with the uniform `packed_uniforms` gives it:
    /// SMSC in runs of four words (rotations by 8 bits), the spin glass in runs of two, lanes
    /// holding temperatures (no rotation); some words rotated, some left to their own blocks.
    #[test]
    fn packed_update_equals_a_scalar_update_per_lane() {
        let cases = [
            layout(2, 256, Layout::Smsc, Randoms::Packed, 1, 1),
            layout(2, 1024, Layout::Smsc, Randoms::Packed, 1, 1),
            layout(
                3,
                8,
                Layout::Amsc {
                    lanes: Lanes::Samples,
                },
                Randoms::Packed,
                32,
                1,
            ),
            layout(
                3,
                8,
                Layout::Amsc {
                    lanes: Lanes::Temperatures,
                },
                Randoms::Packed,
                1,
                32,
            ),
        ];
        let mut counts = [0, 0];
        for layout in cases {
            let spins = test_spins(&layout, 5);
            let got = colour_update(&layout, &spins);
            let lanes = lane_thresholds(&layout, &spins, 1);
            let (uniforms, [rotated, own]) = packed_uniforms(&layout, &lanes, 9, 1);
            counts = [counts[0] + rotated, counts[1] + own];
            let expected = scalar_update(&layout, &spins, 1, |g, cw, bit| uniforms[&(g, cw, bit)]);
            assert_eq!(got, expected, "{}", layout.describe());
            assert_ne!(got, spins, "{}: nothing flipped", layout.describe());
        }
        assert!(
            counts[0] > 0 && counts[1] > 0,
            "rotated and own words: {counts:?}"
        );
    }
}

//! CPU twin of `vector_metropolis` (`shaders/wgsl/vector_metropolis.wgsl`,
//! `shaders/cuda/vector_metropolis.cu`): one checkerboard colour of one vector-spin lattice,
//! each site proposed a new spin and tested against its local field, in the fixed-point
//! arithmetic of [`crate::model::vector::fixed`].
//!
//! Randoms: draw `d` of site `i` of system `b` at sweep `t`, colour `c`, is the block
//! `(i, t, VectorMetropolis, d, c, b)`. A hit's words ([`HitWords`]): words 0 (and 1 for n = 3)
//! a point of the unit circle or sphere ([`sphere_point`]: no rejection, so a GPU warp's lanes
//! never wait for each other), word 3 the acceptance word; a Heisenberg hit `h` takes draw `h`,
//! XY's hits `2k` and `2k + 1` share draw `k`. A clock model's heat bath ([`HEAT_BATH`]) draws
//! its state from word 0 of draw `h`.

use std::ops::Range;

pub use crate::engine::vector::{HEAT_BATH, UNIFORM};
use crate::model::Lattice;
use crate::model::vector::fixed::{
    CouplingScale, Directions, ONE, Vector, accepts, clock_turn, cos_sin_turn, dot,
    heat_bath_state, is_empty, sphere_point, threshold, unit,
};
use crate::model::vector::{SampleBonds, VectorSystems};
use crate::rng::{Counter, Purpose, random_block};

/// What one system's update needs besides its spins.
pub struct SiteUpdate<'a> {
    pub lattice: Lattice,
    /// The directions a spin takes: its components, and a clock model's angles.
    pub directions: Directions,
    pub bonds: SampleBonds<'a>,
    /// How the couplings enter the local field.
    pub scale: CouplingScale,
    /// The uniform field along the first component, in local-field units.
    pub field: i32,
}

impl<'a> SiteUpdate<'a> {
    /// The update of the systems of sample `sample` of `systems`.
    pub fn of(systems: &'a VectorSystems, sample: u32) -> Self {
        SiteUpdate {
            lattice: systems.lattice,
            directions: systems.directions(),
            bonds: systems.bonds(sample),
            scale: systems.coupling_scale(),
            field: systems.field_units(),
        }
    }

    /// The local field of site `i`: `sum_j J_ij s_j` plus the uniform field, in local-field
    /// units ([`CouplingScale::bond_field`]).
    pub fn local_field(&self, spins: &[i32], i: u64) -> Vector {
        let sites = self.lattice.sites() as usize;
        let mut field = [0i32; 3];
        field[0] = self.field;
        for (k, j) in self.lattice.neighbours(i).enumerate() {
            let coupling = self.bonds.coupling(self.lattice.neighbour_bond(i, j, k));
            for (a, h) in field.iter_mut().enumerate().take(self.directions.n) {
                *h += self
                    .scale
                    .bond_field(coupling, spins[a * sites + j as usize]);
            }
        }
        field
    }

    /// The spin of site `i`.
    pub fn spin(&self, spins: &[i32], i: u64) -> Vector {
        let sites = self.lattice.sites() as usize;
        let mut s = [0; 3];
        for (a, c) in s.iter_mut().enumerate().take(self.directions.n) {
            *c = spins[a * sites + i as usize];
        }
        s
    }

    /// Set the spin of site `i`.
    pub fn set_spin(&self, spins: &mut [i32], i: u64, s: &Vector) {
        let sites = self.lattice.sites() as usize;
        for (a, c) in s.iter().enumerate().take(self.directions.n) {
            spins[a * sites + i as usize] = *c;
        }
    }
}

/// A proposed spin from the block `words`: the point `r` of the unit circle or sphere its words
/// give ([`sphere_point`], one of a clock model's angles); `width` [`UNIFORM`] takes `r` itself
/// (already of norm 1 within `2^-24`: renormalising it would cost as many multiplies as the
/// point) and for a clock model (whose only width it is) `r` normalised, the state's spin
/// ([`clock_spin`]); any other width normalises `s + width r` (`width` in spin units); `None`
/// where that is the zero vector.
pub fn propose(words: &[u32; 4], s: &Vector, width: i32, directions: Directions) -> Option<Vector> {
    let (r, n) = (sphere_point(words, directions), directions.n);
    match (width, directions.clock) {
        (UNIFORM, 0) => return Some(r),
        (UNIFORM, _) => return unit(&r, n),
        _ => {}
    }
    let mut v = [0i32; 3];
    for a in 0..n {
        v[a] = s[a] + ((i64::from(r[a]) * i64::from(width)) >> ONE.trailing_zeros()) as i32;
    }
    unit(&v, n)
}

/// The energy change `-(v - s) . H` of replacing `s` by `v` in the local field `h`, in units
/// of `2^-56` (a spin unit times a local-field unit). Each `s_a - v_a`, a difference of unit
/// vectors' components, fits an `i32`, which the kernels rely on (one 32 x 32 -> 64-bit product
/// per component).
pub fn energy_change(s: &Vector, v: &Vector, h: &Vector, n: usize) -> i64 {
    (0..n)
        .map(|a| (i64::from(s[a]) - i64::from(v[a])) * i64::from(h[a]))
        .sum()
}

/// Where the randoms of one colour update come from.
#[derive(Debug, Clone, Copy)]
pub struct SweepKey {
    pub seed: u64,
    pub sweep: u32,
    pub colour: u32,
    /// The run's index of the system.
    pub system: u32,
}

impl SweepKey {
    /// The block of draw `draw` of site `i`.
    pub fn block(&self, i: u64, draw: u32) -> [u32; 4] {
        let counter = Counter {
            word: i as u32,
            sweep: self.sweep,
            purpose: Purpose::VectorMetropolis,
            colour: self.colour,
            draw,
            batch: self.system,
        };
        random_block(self.seed, counter)
    }
}

/// The spin of state `k` of a clock with `q` states: the unit vector of its turn, as a
/// proposal of that state is ([`sphere_point`], [`unit`]).
pub fn clock_spin(k: u32, q: u32) -> Vector {
    let (c, s) = cos_sin_turn(clock_turn(k, q));
    unit(&[c, s, 0], 2).expect("a clock state's point is no zero vector")
}

/// The heat bath of a clock site in the local field `h` (`directions.clock` states): state
/// `k` has the Boltzmann weight `w_k = threshold((a_max - a_k) >> shift)` of the temperature's
/// acceptance `table` ([`threshold`]: `exp(-beta dE) 2^32`, exact integers), with `a_k =
/// s_k . h` its alignment and `a_max` the best; the new state is the first whose cumulative
/// weight exceeds `floor(u W / 2^32)` for the random word `u` and the total `W` (below `2^48`,
/// so the product is `W_hi u + mulhi(W_lo, u)`). The best state's weight is `2^32` within a
/// few units, so no state's weight is lost to the integers' range.
pub fn heat_bath(
    u: u32,
    h: &Vector,
    directions: Directions,
    (shift, table): (u32, &[u32]),
) -> Vector {
    let q = directions.clock;
    let alignment = |k: u32| dot(&clock_spin(k, q), h, 2);
    let best = (0..q).map(alignment).max().expect("a clock has states");
    let weight = |k: u32| threshold(((best - alignment(k)) >> shift) as u32, table);
    clock_spin(heat_bath_state(q, weight, u), q)
}

/// The random words of one site's hits, in order, as a block: words 0 (and 1 for n = 3) the
/// proposal's point, word 3 the acceptance word. XY's (and a clock's Metropolis) hits `2k` and
/// `2k + 1` share draw `k`, one point word and one acceptance word each: words 0 and 1 of the
/// draw for the first, 2 and 3 for the second, at 0 and 3 ([`HitWords::next`]); so `k` XY hits
/// draw `ceil(k / 2)` Philox blocks instead of `k`, every word of a draw serving one hit, and
/// the hits stay independent. Heisenberg's hit `h` takes draw `h` (its word 2 unused), as does
/// the heat bath (word 0). The words the second hit of a pair takes are carried between calls,
/// so a site's hits are asked for in order, each once.
#[derive(Debug, Clone, Copy, Default)]
pub struct HitWords {
    /// Words 2 and 3 of an XY pair's draw, which its second hit takes.
    spare: [u32; 2],
}

impl HitWords {
    /// Whether a site's hits of `n`-component proposals (`heat_bath`: the clock's heat bath
    /// instead) share their blocks in pairs: XY's and a clock's Metropolis hits.
    pub fn in_pairs(n: usize, heat_bath: bool) -> bool {
        n == 2 && !heat_bath
    }

    /// The Philox blocks `hits` hits of a site draw ([`HitWords::next`]): XY's every other
    /// hit, the others' every one.
    pub fn draws(hits: u32, n: usize, heat_bath: bool) -> u32 {
        match Self::in_pairs(n, heat_bath) {
            true => hits.div_ceil(2),
            false => hits,
        }
    }

    /// The words of hit `hit` of site `i` (the hits before it asked for already), for
    /// proposals of `n` components (`heat_bath`: the clock's heat bath instead).
    pub fn next(
        &mut self,
        (key, i, hit): (&SweepKey, u64, u32),
        n: usize,
        heat_bath: bool,
    ) -> [u32; 4] {
        if !Self::in_pairs(n, heat_bath) {
            return key.block(i, hit);
        }
        if hit % 2 == 1 {
            let [point, acceptance] = self.spare;
            return [point, 0, 0, acceptance];
        }
        let [point, acceptance, spare_point, spare_acceptance] = key.block(i, hit / 2);
        self.spare = [spare_point, spare_acceptance];
        [point, 0, 0, acceptance]
    }
}

/// One Metropolis hit of a spin `s` in the local field `h`: the proposal of the hit's `words`
/// ([`HitWords::next`]), with the proposal `width` and acceptance `table` of its temperature;
/// whether it was accepted (`s` replaced). A clock's heat bath ([`HEAT_BATH`]) replaces `s` by
/// [`heat_bath`]'s state of word 0 and counts as accepted where the state changed. Shared by
/// [`metropolis_colour`] and the double checkerboard (`vector_tiles`).
pub fn metropolis_hit(
    update: &SiteUpdate,
    words: &[u32; 4],
    (s, h): (&mut Vector, &Vector),
    (width, table): (i32, &[u32]),
) -> bool {
    let n = update.directions.n;
    if width == HEAT_BATH {
        let shift = update.scale.energy_shift();
        let v = heat_bath(words[0], h, update.directions, (shift, table));
        let changed = v != *s;
        *s = v;
        return changed;
    }
    let Some(v) = propose(words, s, width, update.directions) else {
        return false;
    };
    let shift = update.scale.energy_shift();
    let accepted = accepts(energy_change(s, &v, h, n), shift, words[3], table);
    if accepted {
        *s = v;
    }
    accepted
}

/// Metropolis on the sites `sites` (colour indices `ci`; `0 .. N/2` all) of `key.colour` of one
/// system's `spins` (component-major), `hits` proposals per site, with the proposal `width` and
/// the acceptance `table` of its temperature; returns the accepted moves.
pub fn metropolis_colour(
    update: &SiteUpdate,
    spins: &mut [i32],
    (key, sites): (SweepKey, Range<u64>),
    (width, hits): (i32, u32),
    table: &[u32],
) -> u64 {
    let lattice = update.lattice;
    let mut accepted = 0;
    for ci in sites {
        let i = lattice.colour_site(key.colour, ci);
        let mut s = update.spin(spins, i);
        if is_empty(&s) {
            continue;
        }
        let h = update.local_field(spins, i);
        let mut randoms = HitWords::default();
        for hit in 0..hits {
            let words = randoms.next((&key, i, hit), update.directions.n, width == HEAT_BATH);
            let proposal = (&mut s, &h);
            accepted += u64::from(metropolis_hit(update, &words, proposal, (width, table)));
        }
        update.set_spin(spins, i, &s);
    }
    accepted
}

#[cfg(test)]
mod tests {
    use super::*;

    /// XY's hits take every word of their draws once, in pairs: the first of a pair words 0
    /// and 1 of draw `k` as its point and acceptance words, the second words 2 and 3, a lone
    /// last hit the next draw's; Heisenberg's hits and the heat bath take a draw each.
    #[test]
    fn xy_hits_in_pairs_take_each_word_of_their_draws_once() {
        let key = SweepKey {
            seed: 0x5eed_0f41,
            sweep: 7,
            colour: 1,
            system: 3,
        };
        let i = 12345;
        let mut randoms = HitWords::default();
        let taken: Vec<[u32; 2]> = (0..5)
            .map(|hit| randoms.next((&key, i, hit), 2, false))
            .map(|words| [words[0], words[3]])
            .collect();
        let drawn: Vec<[u32; 2]> = (0..3)
            .flat_map(|d| {
                let [a, b, c, e] = key.block(i, d);
                [[a, b], [c, e]]
            })
            .collect();
        assert_eq!(taken, drawn[..5]);
        assert_eq!(HitWords::draws(5, 2, false), 3);
        for (n, heat_bath) in [(3, false), (2, true)] {
            let mut randoms = HitWords::default();
            for hit in 0..5 {
                let words = randoms.next((&key, i, hit), n, heat_bath);
                assert_eq!(words, key.block(i, hit), "n = {n}, heat bath {heat_bath}");
            }
            assert_eq!(HitWords::draws(5, n, heat_bath), 5);
        }
    }
}

//! CPU twin of `discrete_metropolis` (`shaders/wgsl/discrete_metropolis.wgsl`,
//! `shaders/cuda/discrete_metropolis.cu`): one checkerboard colour of one lattice of discrete
//! states (Potts, Blume-Capel; [`crate::model::vector::states`]), each site's energies exact
//! integers in the units of the acceptance tables.
//!
//! Randoms: hit `h` of site `i` of system `b` at sweep `t`, colour `c`, takes block
//! `(i, t, VectorMetropolis, h, c, b)`, as a vector spin's. Metropolis ([`UNIFORM`]) proposes
//! the state `(a + 1 + mulhi(w_0, q - 1)) mod q`, one of the `q - 1` others uniformly, and
//! accepts with word 3; the heat bath ([`HEAT_BATH`]) draws the new state from word 0. An empty
//! site keeps its vacancy.

use std::ops::Range;

use super::vector_metropolis::SweepKey;
pub use crate::engine::vector::{HEAT_BATH, UNIFORM};
use crate::model::Lattice;
use crate::model::vector::fixed::{heat_bath_state, mulhi, threshold};
use crate::model::vector::states::States;
use crate::model::vector::{SampleBonds, VectorSystems};

/// Neighbours of a site at most (the simple cubic lattice's).
const MAX_NEIGHBOURS: usize = 6;

/// What one system's update needs besides its states.
pub struct StateUpdate<'a> {
    pub lattice: Lattice,
    pub states: &'a States,
    pub bonds: SampleBonds<'a>,
    /// The fraction bits of a coupling word (Gaussian: 24, the tables' own), which the pair
    /// energies shed so that a word times one is in table units.
    pub coupling_bits: u32,
}

/// The couplings and states of a site's neighbours.
pub struct Surroundings {
    neighbours: [(i32, u32); MAX_NEIGHBOURS],
    count: usize,
}

impl<'a> StateUpdate<'a> {
    /// The update of the systems of sample `sample` of `systems`, which hold discrete states.
    pub fn of(systems: &'a VectorSystems, sample: u32) -> Self {
        StateUpdate {
            lattice: systems.lattice,
            states: (systems.states.as_ref()).expect("discrete updates of discrete states"),
            bonds: systems.bonds(sample),
            coupling_bits: systems.coupling_scale().fraction_bits,
        }
    }

    /// The energy `-J P(a, b)` of a bond of coupling word `j`, in table units (negated).
    pub fn bond(&self, j: i32, a: u32, b: u32) -> i32 {
        j * (self.states.pair(a, b) >> self.coupling_bits)
    }

    /// The couplings `J_ij` to the neighbours `j` of site `i` and their states, in the
    /// lattice's order of neighbours.
    pub fn surroundings(&self, spins: &[i32], i: u64) -> Surroundings {
        let mut around = Surroundings {
            neighbours: [(0, 0); MAX_NEIGHBOURS],
            count: 0,
        };
        for (k, j) in self.lattice.neighbours(i).enumerate() {
            let bond = self.lattice.neighbour_bond(i, j, k);
            around.neighbours[k] = (self.bonds.coupling(bond), spins[j as usize] as u32);
            around.count = k + 1;
        }
        around
    }

    /// The energy of a site in state `a` among `around`: `V(a) - sum_j J_ij P(a, s_j)`, in
    /// table units.
    pub fn energy(&self, around: &Surroundings, a: u32) -> i32 {
        let bonds = &around.neighbours[..around.count];
        let pairs: i32 = bonds.iter().map(|&(j, s)| self.bond(j, a, s)).sum();
        self.states.site[a as usize] - pairs
    }

    /// The heat bath's state among `around` for the random word `u`: state `k` has the
    /// Boltzmann weight `w_k = threshold(E_k - E_min)` of the temperature's acceptance `table`
    /// (exact integers, the lowest energy's `2^32` within a few units); the new state is the
    /// first whose cumulative weight exceeds `floor(u W / 2^32)` for the total `W` (below
    /// `2^38`, so the product is `W_hi u + mulhi(W_lo, u)`).
    pub fn heat_bath(&self, around: &Surroundings, u: u32, table: &[u32]) -> u32 {
        let q = self.states.q;
        let lowest = (0..q).map(|k| self.energy(around, k)).min();
        let lowest = lowest.expect("a discrete model has states");
        let weight = |k: u32| threshold((self.energy(around, k) - lowest) as u32, table);
        heat_bath_state(q, weight, u)
    }

    /// One hit of site `i` in state `s` among `around`: Metropolis ([`UNIFORM`]) or the heat
    /// bath ([`HEAT_BATH`]) with the acceptance `table` of its temperature; whether the state
    /// changed. `key.colour` is the site's colour.
    pub fn hit(
        &self,
        (key, i, hit): (&SweepKey, u64, u32),
        (s, around): (&mut u32, &Surroundings),
        (width, table): (i32, &[u32]),
    ) -> bool {
        let words = key.block(i, hit);
        let a = *s;
        let b = match width {
            HEAT_BATH => self.heat_bath(around, words[0], table),
            _ => {
                let q = self.states.q;
                let b = (a + 1 + mulhi(words[0], q - 1)) % q;
                let change = self.energy(around, b) - self.energy(around, a);
                if change > 0 && words[3] >= threshold(change as u32, table) {
                    return false;
                }
                b
            }
        };
        *s = b;
        a != b
    }
}

/// The sites `sites` (colour indices `ci`; `0 .. N/2` all) of `key.colour` of one system's
/// states, `hits` updates per site, Metropolis or the heat bath (`width`), with the
/// acceptance `table` of its temperature; returns the moves that changed a state.
pub fn discrete_colour(
    update: &StateUpdate,
    spins: &mut [i32],
    (key, sites): (SweepKey, Range<u64>),
    (width, hits): (i32, u32),
    table: &[u32],
) -> u64 {
    let lattice = update.lattice;
    let mut accepted = 0;
    for ci in sites {
        let i = lattice.colour_site(key.colour, ci);
        let mut s = spins[i as usize] as u32;
        if s == update.states.vacancy() {
            continue;
        }
        let around = update.surroundings(spins, i);
        for hit in 0..hits {
            let changed = update.hit((&key, i, hit), (&mut s, &around), (width, table));
            accepted += u64::from(changed);
        }
        spins[i as usize] = s as i32;
    }
    accepted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::vector::fixed::{TABLE_LEN, acceptance_table};

    /// A site's energy among its neighbours, and the heat bath's draws: the proportions of
    /// 20000 words against the Boltzmann weights within 5 sigma, and Metropolis moves only to
    /// other states.
    #[test]
    fn the_heat_bath_draws_each_state_by_its_boltzmann_weight() {
        let states = States::potts(4, 0.25);
        let systems = VectorSystems::uniform(Lattice::new(2, 4), 1, (1, 0.0), vec![0.7], 1, 3)
            .with_states(states.clone());
        let update = StateUpdate::of(&systems, 0);
        // Site 5 of the 4 x 4 lattice: neighbours 4, 6, 1, 9 in states 1, 1, 2, 0.
        let mut spins = vec![3; 16];
        (spins[4], spins[6], spins[1], spins[9]) = (1, 1, 2, 0);
        let around = update.surroundings(&spins, 5);
        let one = 1 << 24;
        let energies: Vec<i32> = (0..4).map(|a| update.energy(&around, a)).collect();
        assert_eq!(energies, vec![-one - one / 4, -2 * one, -one, 0]);

        let table = acceptance_table(0.7);
        assert_eq!(table.len(), TABLE_LEN);
        let mut counts = [0u32; 4];
        let draws = 20000;
        for u in 0..draws {
            let word = (u as u32).wrapping_mul(0x9e37_79b9);
            counts[update.heat_bath(&around, word, &table) as usize] += 1;
        }
        let weights: Vec<f64> = (energies.iter())
            .map(|&e| (-0.7 * f64::from(e) / f64::from(one)).exp())
            .collect();
        let total: f64 = weights.iter().sum();
        for (count, w) in counts.iter().zip(&weights) {
            let p = w / total;
            let sigma = (p * (1.0 - p) / f64::from(draws)).sqrt();
            let seen = f64::from(*count) / f64::from(draws);
            assert!((seen - p).abs() < 5.0 * sigma, "{seen} against {p}");
        }

        let key = SweepKey {
            seed: 1,
            sweep: 0,
            colour: 1,
            system: 0,
        };
        for hit in 0..64 {
            let mut s = 2;
            let changed = update.hit((&key, 5, hit), (&mut s, &around), (UNIFORM, &table));
            assert_eq!(changed, s != 2);
            assert!(s < 4);
        }
    }
}

//! Discrete spins on the vector engines: the Potts and Blume-Capel models, a state `0 .. q` per
//! word, their energies as tables of exact integers that every backend reads alike.
//!
//! A bond of coupling `J` between states `a` and `b` has the energy `-J P(a, b)` and a site in
//! state `a` the energy `V(a)`, both in units of `2^-24`, the units of the acceptance tables
//! ([`TABLE_FRACTION_BITS`]), so that an update's energy change is an `i32` that the tables
//! take as it is:
//!
//! | model | states | `P(a, b)` | `V(a)` | value `s(a)` |
//! | --- | --- | --- | --- | --- |
//! | Potts | `0 .. q` | `delta(a, b)` | `-h delta(a, 0)` | 0 |
//! | Blume-Capel | `0, 1, 2` for `s = -1, 0, +1` | `s(a) s(b)` | `D s(a)^2 - h s(a)` | `s` |
//! | Ising (diluted) | `0, 1` for `s = -1, +1` | `s(a) s(b)` | `-h s(a)` | `s` |
//!
//! The fields `h` and `D` enter rounded to steps of `2^-24`.
//!
//! An empty site of a diluted lattice ([`crate::model::vacancies`]) holds the state `q`, the
//! vacancy: the updates leave it as it is, its bonds have `P = 0` and it is in no count.

use super::fixed::{GAUSSIAN_FRACTION_BITS, TABLE_FRACTION_BITS};

// A Gaussian coupling word times a whole `P(a, b)` is in table units.
const _: () = assert!(GAUSSIAN_FRACTION_BITS == TABLE_FRACTION_BITS);
use crate::config::{Config, Model};

/// `|D| + |h|` at most: an update's energy change, `2 z` bonds of `|P| <= 1` and two sites,
/// stays below `2^31` table units (`(12 + 2 * 32) 2^24 < 2^31` for `z = 6`).
pub const MAX_SITE_ENERGY: f64 = 32.0;

/// 1 in the units of the state energies.
pub const ENERGY_ONE: f64 = (1u64 << TABLE_FRACTION_BITS) as f64;

/// Which discrete model the states are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateModel {
    Potts,
    BlumeCapel,
    /// The Ising model (and the Edwards-Anderson glass) of a diluted lattice: the multispin
    /// engine's bits hold no empty site.
    Ising,
}

/// The states of a discrete spin model and their energies (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct States {
    pub model: StateModel,
    /// `q`: the states `0 .. q`.
    pub q: u32,
    /// `pair[a q + b]`: `P(a, b)` in units of `2^-24`.
    pub pair: Vec<i32>,
    /// `site[a]`: `V(a)` in units of `2^-24`.
    pub site: Vec<i32>,
    /// `value[a]`: the spin `s(a)` whose sum and Fourier component are measured (0 for Potts).
    pub value: Vec<i32>,
}

/// `x` in units of `2^-24`, rounded.
fn energy_units(x: f64) -> i32 {
    (x * ENERGY_ONE).round() as i32
}

impl States {
    /// The `q`-state Potts model in the field `h` along state 0.
    pub fn potts(q: u32, h: f64) -> Self {
        let one = energy_units(1.0);
        States {
            model: StateModel::Potts,
            q,
            pair: (0..q * q)
                .map(|ab| if ab / q == ab % q { one } else { 0 })
                .collect(),
            site: (0..q)
                .map(|a| if a == 0 { energy_units(-h) } else { 0 })
                .collect(),
            value: vec![0; q as usize],
        }
    }

    /// The Blume-Capel model of crystal field `d` in the field `h`.
    pub fn blume_capel(d: f64, h: f64) -> Self {
        States::of_values(StateModel::BlumeCapel, &[-1, 0, 1], (d, h))
    }

    /// The Ising model in the field `h`, two states.
    pub fn ising(h: f64) -> Self {
        States::of_values(StateModel::Ising, &[-1, 1], (0.0, h))
    }

    /// Spins of the values `s`, `P = s(a) s(b)` and `V = D s^2 - h s` for `(d, h)`.
    fn of_values(model: StateModel, s: &[i32], (d, h): (f64, f64)) -> Self {
        let q = s.len();
        States {
            model,
            q: q as u32,
            pair: (0..q * q)
                .map(|ab| energy_units(f64::from(s[ab / q] * s[ab % q])))
                .collect(),
            site: s
                .iter()
                .map(|&s| energy_units(d * f64::from(s * s) - h * f64::from(s)))
                .collect(),
            value: s.to_vec(),
        }
    }

    /// The states of `config`'s spins ([`Config::discrete_states`]), `None` for other spins.
    pub fn of(config: &Config) -> Option<Self> {
        match config.model {
            Model::Potts { q, field, .. } => Some(States::potts(q, field)),
            Model::BlumeCapel {
                crystal_field,
                field,
                ..
            } => Some(States::blume_capel(crystal_field, field)),
            Model::Ising { field, .. } | Model::EdwardsAnderson { field, .. }
                if config.discrete_states().is_some() =>
            {
                Some(States::ising(field))
            }
            _ => None,
        }
    }

    /// The state of an empty site.
    pub fn vacancy(&self) -> u32 {
        self.q
    }

    /// `P(a, b)`, 0 where either site is empty.
    pub fn pair(&self, a: u32, b: u32) -> i32 {
        match a == self.q || b == self.q {
            true => 0,
            false => self.pair[(a * self.q + b) as usize],
        }
    }

    /// The energy, in units of `J`, that a bond of equal states loses when they part, where it
    /// is the same for every pair of states (Potts 1, Ising 2): the Fortuin-Kasteleyn bonds of
    /// the cluster updates need it; `None` where pairs differ (Blume-Capel).
    pub fn bond_gap(&self) -> Option<f64> {
        let q = self.q;
        let equal = self.pair(0, 0);
        let unequal = self.pair(0, 1.min(q - 1));
        let uniform =
            (0..q).all(|a| (0..q).all(|b| self.pair(a, b) == if a == b { equal } else { unequal }));
        (uniform && q > 1).then(|| f64::from(equal - unequal) / ENERGY_ONE)
    }

    /// Whether these are two states whose energies their exchange keeps (`P(1 - a, 1 - b) =
    /// P(a, b)`, `V(0) = V(1)`): Ising spins and the 2-state Potts model at zero field, where
    /// flipping every spin of a lattice keeps its energy.
    pub fn exchange_symmetric(&self) -> bool {
        let pairs = (0..2).all(|a| (0..2).all(|b| self.pair(1 - a, 1 - b) == self.pair(a, b)));
        self.q == 2 && pairs && self.site[0] == self.site[1]
    }

    /// The product of the spins of states `a` and `b` that an overlap sums: the Potts spins'
    /// simplex vectors' `e_a . e_b = (q delta_ab - 1)/(q - 1)`, the values' `s(a) s(b)`.
    pub fn spin_product(&self, a: u32, b: u32) -> f64 {
        match self.model {
            StateModel::Potts => {
                let q = f64::from(self.q);
                (q * f64::from(u8::from(a == b)) - 1.0) / (q - 1.0)
            }
            StateModel::BlumeCapel | StateModel::Ising => {
                f64::from(self.value[a as usize] * self.value[b as usize])
            }
        }
    }

    /// `|sum_i eps_i spin(s_i)|^2`, the staggered magnetisation's square (eps_i the sublattice
    /// sign), from the staggered counts `D_a = sum_{i: s_i = a} eps_i`: `sum_ab D_a D_b` times
    /// the spins' product ([`States::spin_product`]).
    pub fn staggered_square(&self, staggered: &[i64]) -> f64 {
        let d = |a: usize| staggered[a] as f64;
        let q = staggered.len();
        (0..q * q)
            .map(|ab| (ab / q, ab % q))
            .map(|(a, b)| d(a) * d(b) * self.spin_product(a as u32, b as u32))
            .sum()
    }

    /// The components of a spin: `q - 1` of a Potts spin's simplex vector, 1 of a value.
    pub fn spin_components(&self) -> u32 {
        match self.model {
            StateModel::Potts => self.q - 1,
            StateModel::BlumeCapel | StateModel::Ising => 1,
        }
    }

    /// The tables as the GPU kernels read them, the vacancy among the states: `P(a, b)` at
    /// `a (q + 1) + b`, then `V(a)` and `s(a)`, `q + 1` each (zeros for the vacancy).
    pub fn table_words(&self) -> Vec<i32> {
        let with_vacancy = 0..=self.q;
        let pairs = with_vacancy
            .clone()
            .flat_map(|a| (0..=self.q).map(move |b| (a, b)))
            .map(|(a, b)| self.pair(a, b));
        let padded = |table: &[i32]| table.iter().copied().chain([0]).collect::<Vec<_>>();
        (pairs.chain(padded(&self.site)).chain(padded(&self.value))).collect()
    }

    /// The total energy, in units of 1, of a lattice whose bonds sum to `bonds`
    /// (`sum J P(s_i, s_j)`, units `2^-24`) with `counts[a]` sites in state `a`.
    pub fn energy(&self, bonds: i64, counts: &[i64]) -> f64 {
        let sites: i64 = (counts.iter().zip(&self.site))
            .map(|(n, v)| n * i64::from(*v))
            .sum();
        (sites - bonds) as f64 / ENERGY_ONE
    }

    /// The order parameter of a lattice of `counts[a]` sites in state `a`: Potts's
    /// `(q max_a n_a / N - 1) / (q - 1)`, the magnetisation `sum_i s_i / N` of values.
    pub fn order(&self, counts: &[i64]) -> f64 {
        let sites = counts.iter().sum::<i64>() as f64;
        match self.model {
            StateModel::Potts => {
                let q = f64::from(self.q);
                let most = counts.iter().copied().max().unwrap_or(0) as f64;
                (q * most / sites - 1.0) / (q - 1.0)
            }
            StateModel::BlumeCapel | StateModel::Ising => {
                let sum: i64 = (counts.iter().zip(&self.value))
                    .map(|(n, s)| n * i64::from(*s))
                    .sum();
                sum as f64 / sites
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3-site lattice's energy from its bond sum and counts, and the order parameters of
    /// ordered and disordered Potts and Blume-Capel lattices.
    #[test]
    fn energies_and_orders_come_from_the_bond_sum_and_the_counts() {
        let potts = States::potts(3, 0.5);
        assert_eq!(potts.pair(1, 1), 1 << 24);
        assert_eq!(potts.pair(1, 2), 0);
        // Two satisfied bonds, two sites in state 0: -2 - 2 h.
        assert_eq!(potts.energy(2 << 24, &[2, 1, 0]), -3.0);
        assert_eq!(potts.order(&[4, 0, 0]), 1.0);
        assert_eq!(potts.order(&[2, 1, 1]), 0.25);

        let bc = States::blume_capel(0.25, 0.5);
        assert_eq!(bc.pair(0, 2), -(1 << 24));
        assert_eq!(
            bc.site,
            vec![(0.75 * ENERGY_ONE) as i32, 0, -(0.25 * ENERGY_ONE) as i32]
        );
        assert_eq!(bc.order(&[1, 2, 3]), 2.0 / 6.0);
        assert_eq!(bc.energy(-(1 << 24), &[1, 0, 0]), 1.75);

        // The vacancy, state q, has no bonds; the kernels' tables give it zeros.
        assert_eq!((bc.pair(3, 2), bc.pair(0, 3)), (0, 0));
        let words = bc.table_words();
        assert_eq!(words.len(), 16 + 4 + 4);
        assert_eq!(words[4 + 2], bc.pair(1, 2));
        assert_eq!(&words[12..16], &[0; 4]);
        assert_eq!(
            (words[16 + 2], words[19], words[20 + 2], words[23]),
            (bc.site[2], 0, 1, 0)
        );
    }

    /// Only two states without a field keep their energies under exchanging the states.
    #[test]
    fn exchange_symmetry_needs_two_states_and_no_field() {
        assert!(States::ising(0.0).exchange_symmetric());
        assert!(States::potts(2, 0.0).exchange_symmetric());
        assert!(!States::ising(0.25).exchange_symmetric());
        assert!(!States::potts(2, 0.25).exchange_symmetric());
        assert!(!States::potts(3, 0.0).exchange_symmetric());
        assert!(!States::blume_capel(0.0, 0.0).exchange_symmetric());
    }
}

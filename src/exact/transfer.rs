//! Exact `ln Z` of discrete spins on a small periodic square lattice by the row transfer
//! matrix, differentiated exactly in `beta` with second-order dual numbers: the reference for
//! models whose states are not Ising spins (the clock model here; any `q` states with a bond
//! energy `E(a, b)` and a site energy `V(a)`).
//!
//! A row of `L` sites has `q^L` configurations; with `T[r][r'] = exp(-beta (E_rows(r, r') +
//! (V_row(r) + V_row(r')) / 2))`, where `E_rows` is the bonds between the rows and `V_row` a
//! row's own bonds and site energies, `Z = Tr T^M` for `M` rows. The bond from each site to its
//! `+x` and `+y` neighbours is counted once, so a side of 2 has two bonds between the same
//! pair of sites, as the engines' lattices do.

use super::Dual2;
use crate::model::vector::states::{ENERGY_ONE, States};

/// A model of `states` states a site: the energy of a bond between states `a` and `b`,
/// `bond[a q + b]`, and of a site in state `a`, `site[a]`.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscreteSpins {
    pub states: u32,
    pub bond: Vec<f64>,
    pub site: Vec<f64>,
}

impl DiscreteSpins {
    /// The `q`-state clock model with coupling `j` in the field `h` along state 0's angle:
    /// `E(a, b) = -j cos(2 pi (a - b) / q)`, `V(a) = -h cos(2 pi a / q)`.
    pub fn clock(q: u32, j: f64, h: f64) -> Self {
        let cos = |k: i64| (2.0 * std::f64::consts::PI * k as f64 / f64::from(q)).cos();
        let q64 = i64::from(q);
        DiscreteSpins {
            states: q,
            bond: (0..q64 * q64)
                .map(|ab| -j * cos(ab / q64 - ab % q64))
                .collect(),
            site: (0..q64).map(|a| -h * cos(a)).collect(),
        }
    }

    /// The discrete states of a Potts or Blume-Capel model with ferromagnetic bonds
    /// (`E(a, b) = -P(a, b)`), their energies as the engines hold them.
    pub fn of_states(states: &States) -> Self {
        let units = |e: i32| f64::from(e) / ENERGY_ONE;
        DiscreteSpins {
            states: states.q,
            bond: states.pair.iter().map(|&p| -units(p)).collect(),
            site: states.site.iter().map(|&v| units(v)).collect(),
        }
    }

    fn bond(&self, a: u32, b: u32) -> f64 {
        self.bond[(a * self.states + b) as usize]
    }

    /// The states of the sites of row configuration `r`, `side` of them.
    fn row(&self, r: usize, side: u32) -> Vec<u32> {
        let q = self.states as usize;
        (0..side).map(|x| (r / q.pow(x) % q) as u32).collect()
    }

    /// A row's own energy: its bonds along x and its sites'.
    fn row_energy(&self, row: &[u32]) -> f64 {
        let side = row.len();
        (0..side)
            .map(|x| self.bond(row[x], row[(x + 1) % side]) + self.site[row[x] as usize])
            .sum()
    }
}

/// Energy and specific heat per site, `e = -d ln Z / d beta / N` and
/// `c = beta^2 d^2 ln Z / d beta^2 / N`, of `spins` on the periodic `side x rows` lattice at
/// `beta`.
pub fn energy_and_heat(spins: &DiscreteSpins, (side, rows): (u32, u32), beta: f64) -> (f64, f64) {
    let ln_z = ln_partition_function(spins, (side, rows), beta);
    let sites = f64::from(side * rows);
    (-ln_z.d1 / sites, beta * beta * ln_z.d2 / sites)
}

/// `ln Z` of `spins` on the periodic `side x rows` lattice as a function of `beta`, at `beta`.
pub fn ln_partition_function(spins: &DiscreteSpins, (side, rows): (u32, u32), beta: f64) -> Dual2 {
    ln_z_of_rows(spins, (side, rows), beta, false)
}

/// `ln Z` of `spins` on the periodic triangular `side x rows` lattice (the square one with the
/// diagonal bond from `(x, y)` to `(x + 1, y + 1)`, `crate::model::Lattice::triangular`) as a
/// function of `beta`, at `beta`.
pub fn triangular_ln_partition_function(
    spins: &DiscreteSpins,
    (side, rows): (u32, u32),
    beta: f64,
) -> Dual2 {
    ln_z_of_rows(spins, (side, rows), beta, true)
}

/// `ln Z` of rows of `side` sites, `rows` of them on a torus, with the bonds between rows along
/// y, and where `diagonal` along (1, 1) too.
fn ln_z_of_rows(
    spins: &DiscreteSpins,
    (side, rows): (u32, u32),
    beta: f64,
    diagonal: bool,
) -> Dual2 {
    let configurations = (spins.states as usize).pow(side);
    let row: Vec<Vec<u32>> = (0..configurations).map(|r| spins.row(r, side)).collect();
    let own: Vec<f64> = row.iter().map(|r| spins.row_energy(r)).collect();
    let beta = Dual2::variable(beta);
    let transfer: Vec<Dual2> = (0..configurations * configurations)
        .map(|rr| {
            let (r, s) = (rr / configurations, rr % configurations);
            let side = side as usize;
            let between: f64 = (0..side)
                .map(|x| {
                    let up = spins.bond(row[r][x], row[s][x]);
                    match diagonal {
                        true => up + spins.bond(row[r][x], row[s][(x + 1) % side]),
                        false => up,
                    }
                })
                .sum();
            (-beta * Dual2::constant(between + (own[r] + own[s]) / 2.0)).exp()
        })
        .collect();
    let mut power = transfer.clone();
    for _ in 1..rows {
        power = product(&power, &transfer, configurations);
    }
    (0..configurations)
        .map(|r| power[r * configurations + r])
        .sum::<Dual2>()
        .ln()
}

/// The product of two `n x n` matrices, row-major.
fn product(a: &[Dual2], b: &[Dual2], n: usize) -> Vec<Dual2> {
    (0..n * n)
        .map(|ij| {
            let (i, j) = (ij / n, ij % n);
            (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{assert_close, kaufman};

    /// The 2-state clock is the Ising model (`cos(0) = 1`, `cos(pi) = -1`), and the 4-state
    /// clock two Ising models at half the coupling: `e = e_Ising(beta / 2)` and
    /// `c = 2 c_Ising(beta / 2)` per site, from Kaufman's solution.
    #[test]
    fn the_two_and_four_state_clocks_are_kaufmans_ising_models() {
        for (side, beta) in [(4, 0.3), (4, 0.6), (2, 0.44)] {
            let ising = kaufman(side, beta);
            let (e, c) = energy_and_heat(&DiscreteSpins::clock(2, 1.0, 0.0), (side, side), beta);
            assert_close("q = 2: e", e, ising.e, 1e-12);
            assert_close("q = 2: c", c, ising.c, 1e-11);
            let half = kaufman(side, beta / 2.0);
            let (e, c) = energy_and_heat(&DiscreteSpins::clock(4, 1.0, 0.0), (side, side), beta);
            assert_close("q = 4: e", e, half.e, 1e-12);
            assert_close("q = 4: c", c, 2.0 * half.c, 1e-11);
        }
    }

    /// The triangular lattice's transfer matrix against the enumeration of every configuration
    /// of the 3 x 3 torus, whose nine spins' bonds `crate::model::Lattice::triangular` lists.
    #[test]
    fn triangular_rows_give_the_enumerated_partition_function() {
        use crate::model::Lattice;
        let lattice = Lattice::triangular(3);
        let spins = DiscreteSpins::clock(2, -1.0, 0.3);
        let beta = 0.7;
        let z: f64 = (0..1u32 << 9)
            .map(|c| {
                let s = |i: u64| if c >> i & 1 == 1 { 1.0 } else { -1.0 };
                let bonds: f64 = (0..9u64)
                    .flat_map(|i| lattice.forward_neighbours(i).map(move |j| (i, j)))
                    .map(|(i, j)| s(i) * s(j))
                    .sum();
                let m: f64 = (0..9u64).map(s).sum();
                (-beta * (bonds - 0.3 * m)).exp()
            })
            .sum();
        let ln_z = triangular_ln_partition_function(&spins, (3, 3), beta);
        assert_close("ln Z", ln_z.v, z.ln(), 1e-12);
    }

    /// Free spins (no bonds) in a field: `ln Z = N ln sum_a exp(beta h cos(2 pi a / q))`.
    #[test]
    fn free_clock_spins_in_a_field_factorise() {
        let (q, h, beta) = (5, 0.7, 1.3);
        let (e, _) = energy_and_heat(&DiscreteSpins::clock(q, 0.0, h), (3, 2), beta);
        let angles = (0..q).map(|a| 2.0 * std::f64::consts::PI * f64::from(a) / f64::from(q));
        let (z, hz): (f64, f64) = angles
            .map(|t| {
                (
                    (beta * h * t.cos()).exp(),
                    -h * t.cos() * (beta * h * t.cos()).exp(),
                )
            })
            .fold((0.0, 0.0), |(z, hz), (w, hw)| (z + w, hz + hw));
        assert_close("e", e, hz / z, 1e-13);
    }
}

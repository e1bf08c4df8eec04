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

    /// The energy of a bond between sites in states `a` and `b`; 0 where either is a hole.
    fn bond(&self, a: u32, b: u32) -> f64 {
        match a == HOLE || b == HOLE {
            true => 0.0,
            false => self.bond[(a * self.states + b) as usize],
        }
    }

    /// The energy of a site in state `a`; 0 for a hole.
    fn site(&self, a: u32) -> f64 {
        match a {
            HOLE => 0.0,
            _ => self.site[a as usize],
        }
    }

    /// Every configuration of a row of `side` sites, the sites where `hole(x)` holes.
    fn rows(&self, side: u32, hole: impl Fn(u32) -> bool) -> Vec<Vec<u32>> {
        let q = self.states as usize;
        let spins: Vec<u32> = (0..side).filter(|&x| !hole(x)).collect();
        (0..q.pow(spins.len() as u32))
            .map(|r| {
                let mut row = vec![HOLE; side as usize];
                for (k, &x) in spins.iter().enumerate() {
                    row[x as usize] = (r / q.pow(k as u32) % q) as u32;
                }
                row
            })
            .collect()
    }

    /// A row's own energy: its bonds along x and its sites'.
    fn row_energy(&self, row: &[u32]) -> f64 {
        let side = row.len();
        (0..side)
            .map(|x| self.bond(row[x], row[(x + 1) % side]) + self.site(row[x]))
            .sum()
    }

    /// The bonds from row `r` to the row above it, `s`: along y, and where `diagonal` along
    /// (1, 1).
    fn rows_energy(&self, r: &[u32], s: &[u32], diagonal: bool) -> f64 {
        let side = r.len();
        (0..side)
            .map(|x| {
                let up = self.bond(r[x], s[x]);
                match diagonal {
                    true => up + self.bond(r[x], s[(x + 1) % side]),
                    false => up,
                }
            })
            .sum()
    }
}

/// A site that holds no spin (the kagome lattice's holes): no energy, no bond.
const HOLE: u32 = u32::MAX;

/// The lattice a transfer matrix runs along: its rows' bonds to the row above, and its holes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// The square lattice: bonds along y.
    Square,
    /// The triangular lattice: bonds along y and along (1, 1).
    Triangular,
    /// The kagome lattice drawn on the triangular one: no spin at odd x of odd rows.
    Kagome,
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
    ln_z_of_rows(spins, (side, rows), beta, Rows::Square)
}

/// `ln Z` of `spins` on the periodic triangular `side x rows` lattice (the square one with the
/// diagonal bond from `(x, y)` to `(x + 1, y + 1)`, `crate::model::Lattice::triangular`) as a
/// function of `beta`, at `beta`.
pub fn triangular_ln_partition_function(
    spins: &DiscreteSpins,
    (side, rows): (u32, u32),
    beta: f64,
) -> Dual2 {
    ln_z_of_rows(spins, (side, rows), beta, Rows::Triangular)
}

/// `ln Z` of `spins` on the periodic kagome lattice drawn on the triangular `side x rows` one
/// (no spin at odd `x` and odd `y`; `side` and `rows` even) as a function of `beta`, at
/// `beta`.
pub fn kagome_ln_partition_function(
    spins: &DiscreteSpins,
    (side, rows): (u32, u32),
    beta: f64,
) -> Dual2 {
    ln_z_of_rows(spins, (side, rows), beta, Rows::Kagome)
}

/// `ln Z` of `rows` rows of `side` sites on a torus, rows of even and odd `y` each with their
/// configurations (the kagome lattice's odd rows hold holes): `Z = Tr (T_01 T_10)^(rows / 2)`,
/// or `Tr T^rows` where both parities are alike.
fn ln_z_of_rows(
    spins: &DiscreteSpins,
    (side, rows): (u32, u32),
    beta: f64,
    lattice: Rows,
) -> Dual2 {
    let parity_rows =
        |odd: bool| spins.rows(side, |x| lattice == Rows::Kagome && odd && x % 2 == 1);
    let diagonal = lattice != Rows::Square;
    let beta = Dual2::variable(beta);
    let transfer = |from: &[Vec<u32>], to: &[Vec<u32>]| -> Vec<Dual2> {
        let own = |r: &[u32]| spins.row_energy(r) / 2.0;
        (from.iter())
            .flat_map(|r| to.iter().map(move |s| (r, s)))
            .map(|(r, s)| {
                let energy = spins.rows_energy(r, s, diagonal) + own(r) + own(s);
                (-beta * Dual2::constant(energy)).exp()
            })
            .collect()
    };
    let (even, odd) = (parity_rows(false), parity_rows(true));
    let (period, repeats) = match lattice {
        Rows::Kagome => {
            let up = transfer(&even, &odd);
            let down = transfer(&odd, &even);
            (
                product(&up, &down, (even.len(), odd.len(), even.len())),
                rows / 2,
            )
        }
        _ => (transfer(&even, &even), rows),
    };
    let n = even.len();
    let mut power = period.clone();
    for _ in 1..repeats {
        power = product(&power, &period, (n, n, n));
    }
    (0..n).map(|r| power[r * n + r]).sum::<Dual2>().ln()
}

/// The product of the `n x k` matrix `a` and the `k x m` matrix `b`, row-major.
fn product(a: &[Dual2], b: &[Dual2], (n, k, m): (usize, usize, usize)) -> Vec<Dual2> {
    (0..n * m)
        .map(|ij| {
            let (i, j) = (ij / m, ij % m);
            (0..k).map(|l| a[i * k + l] * b[l * m + j]).sum()
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

    /// The kagome lattice's transfer matrix against the enumeration of every configuration of
    /// the 4 x 4 torus of its triangular lattice, whose twelve spins' bonds are those of the
    /// triangular lattice between sites that are not holes.
    #[test]
    fn kagome_rows_give_the_enumerated_partition_function() {
        use crate::model::lattices::is_kagome_hole;
        use crate::model::{Lattice, Shape};
        let lattice = Lattice::shaped(Shape::Kagome, 2, 4);
        let spins = DiscreteSpins::clock(2, -1.0, 0.4);
        let beta = 0.9;
        let sites: Vec<u64> = (0..16).filter(|&i| !is_kagome_hole(&lattice, i)).collect();
        assert_eq!(sites.len(), 12);
        let z: f64 = (0..1u32 << 12)
            .map(|c| {
                let s = |i: u64| {
                    let k = sites.iter().position(|&j| j == i).expect("a spin");
                    if c >> k & 1 == 1 { 1.0 } else { -1.0 }
                };
                let bonds: f64 = (sites.iter())
                    .flat_map(|&i| lattice.forward_neighbours(i).map(move |j| (i, j)))
                    .filter(|&(_, j)| !is_kagome_hole(&lattice, j))
                    .map(|(i, j)| s(i) * s(j))
                    .sum();
                let m: f64 = sites.iter().map(|&i| s(i)).sum();
                (-beta * (bonds - 0.4 * m)).exp()
            })
            .sum();
        let ln_z = kagome_ln_partition_function(&spins, (4, 4), beta);
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

//! Exact thermal averages of tiny lattices with arbitrary couplings, by summing all `2^N` states:
//! the reference for the spin glass, the field and the 3D geometry, where Kaufman's solution
//! does not reach.
//!
//! The Hamiltonian is `H = -sum_<ij> J_ij s_i s_j - h sum_i s_i`, the bonds being those the
//! simulation uses: every site is bonded once to each of its forward neighbours (`+x, +y[, +z]`).
//! On an `L = 2` lattice the forward and backward neighbours coincide, so each neighbouring pair
//! is joined by two bonds (a 2x2 lattice has 8 bonds, a ring of 4 pairs with doubled couplings).
//!
//! Numerics and cost:
//!
//! - States are visited in Gray-code order: consecutive states differ by one spin, so the bond
//!   sum and the magnetisation are updated exactly, as integers, in `O(z)` per state.
//! - Weights are `exp(-beta (E - E_0))`, `E_0` being the ground-state energy found by a first
//!   pass: they are at most 1 and the ground state weighs 1, so nothing overflows at any `beta`.
//!   The energy moments are those of `E - E_0`, whose variance gives `c`.
//! - For two independent replicas `a`, `b`, `<q^2> = (1/N^2) sum_ij <s_i^a s_j^a> <s_i^b s_j^b>
//!   = (1/N^2) sum_ij <s_i s_j>^2`, from the correlation matrix accumulated over the states
//!   (`O(N^2)` per state: 2^16 states of a 4x4 lattice take milliseconds). Likewise the link
//!   overlap `<q_l> = (1/(d N)) sum_<ij> <s_i s_j>^2` over the same bonds.

use crate::model::Lattice;

/// The largest number of sites enumerated: `2^24` states, seconds of work.
const MAX_SITES: u64 = 24;

/// Exact thermal averages of one coupling sample, per site.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnumeratedAverages {
    /// Energy per site `<E>/N`.
    pub e: f64,
    /// Specific heat per site `beta^2 (<E^2> - <E>^2)/N`.
    pub c: f64,
    /// `<M>/N`.
    pub m: f64,
    /// `<|M|>/N`.
    pub abs_m: f64,
    /// `<(M/N)^2>`.
    pub m2: f64,
    /// `<q^2>` of two independent replicas.
    pub q2: f64,
    /// The link overlap `<q_l>` of two independent replicas.
    pub ql: f64,
    /// `ln Z`: the sum of the weights relative to the ground state, `- beta E_0` added back.
    pub ln_z: f64,
}

/// Exact averages at inverse temperature `beta` and field `field` of `lattice` with couplings
/// `couplings[site * dims + d]` on the bond from `site` to its forward neighbour in direction `d`
/// (0: `+x`, 1: `+y`, 2: `+z`): +1 ferromagnetic, -1 antiferromagnetic (any integer works).
///
/// Panics unless there are `sites x dims` couplings and at most 24 sites.
pub fn enumerate(lattice: Lattice, couplings: &[i8], field: f64, beta: f64) -> EnumeratedAverages {
    let bonds = Bonds::new(lattice, couplings);
    let energy = |bond_sum: i64, magnetisation: i64| -> f64 {
        -(bond_sum as f64) - field * magnetisation as f64
    };
    let mut ground = f64::INFINITY;
    bonds.for_each_state(|_, bond_sum, magnetisation| {
        ground = ground.min(energy(bond_sum, magnetisation));
    });
    let mut sums = Sums::new(bonds.sites);
    bonds.for_each_state(|spins, bond_sum, magnetisation| {
        let excitation = energy(bond_sum, magnetisation) - ground;
        sums.add(spins, excitation, magnetisation, (-beta * excitation).exp());
    });
    sums.averages(ground, beta, &bonds)
}

/// The bonds of every site, for flipping one spin at a time.
struct Bonds {
    sites: usize,
    /// `2 dims` entries per site: (neighbour, coupling) of every bond that touches it (so each
    /// bond twice, once from each end).
    incident: Vec<(usize, i64)>,
    /// `sum J_ij`: the bond sum of the state with every spin down.
    total_coupling: i64,
}

impl Bonds {
    fn new(lattice: Lattice, couplings: &[i8]) -> Self {
        let sites = lattice.sites();
        let dims = lattice.dims as usize;
        assert!(
            sites <= MAX_SITES,
            "exact enumeration takes at most {MAX_SITES} sites, not {sites}"
        );
        assert_eq!(
            couplings.len(),
            sites as usize * dims,
            "enumerate needs one coupling per site and direction (sites x dims)"
        );
        let mut per_site = vec![Vec::with_capacity(2 * dims); sites as usize];
        for site in 0..sites {
            let forward = lattice.forward_neighbours(site);
            for (d, neighbour) in forward.enumerate() {
                let coupling = i64::from(couplings[site as usize * dims + d]);
                per_site[site as usize].push((neighbour as usize, coupling));
                per_site[neighbour as usize].push((site as usize, coupling));
            }
        }
        Bonds {
            sites: sites as usize,
            incident: per_site.concat(),
            total_coupling: couplings.iter().map(|&j| i64::from(j)).sum(),
        }
    }

    /// Calls `visit(spins, bond_sum, magnetisation)` once for every state, in Gray-code order;
    /// bit `i` of `spins` is set when `s_i = +1`, `bond_sum = sum J_ij s_i s_j`.
    fn for_each_state(&self, mut visit: impl FnMut(u32, i64, i64)) {
        let stride = self.incident.len() / self.sites;
        let mut spins = 0u32;
        let mut bond_sum = self.total_coupling;
        let mut magnetisation = -(self.sites as i64);
        visit(spins, bond_sum, magnetisation);
        for step in 1..1u32 << self.sites {
            // Gray code: state `step ^ (step >> 1)` differs from the previous one in this bit.
            let site = step.trailing_zeros() as usize;
            let old = spin(spins, site);
            let local: i64 = self.incident[site * stride..(site + 1) * stride]
                .iter()
                .map(|&(neighbour, coupling)| coupling * spin(spins, neighbour))
                .sum();
            bond_sum -= 2 * old * local;
            magnetisation -= 2 * old;
            spins ^= 1 << site;
            visit(spins, bond_sum, magnetisation);
        }
    }
}

/// `s_i = +-1` from bit `i` of `spins`.
fn spin(spins: u32, i: usize) -> i64 {
    if spins >> i & 1 == 1 { 1 } else { -1 }
}

/// Boltzmann-weighted sums over the states.
struct Sums {
    sites: usize,
    z: f64,
    /// Of the excitation energy `E - E_0` and its square.
    excitation: f64,
    excitation_sq: f64,
    magnetisation: f64,
    abs_magnetisation: f64,
    magnetisation_sq: f64,
    /// `sum w s_i s_j` for `i < j`, row after row.
    correlations: Vec<f64>,
}

impl Sums {
    fn new(sites: usize) -> Self {
        Sums {
            sites,
            z: 0.0,
            excitation: 0.0,
            excitation_sq: 0.0,
            magnetisation: 0.0,
            abs_magnetisation: 0.0,
            magnetisation_sq: 0.0,
            correlations: vec![0.0; sites * (sites - 1) / 2],
        }
    }

    fn add(&mut self, spins: u32, excitation: f64, magnetisation: i64, weight: f64) {
        let m = magnetisation as f64;
        self.z += weight;
        self.excitation += weight * excitation;
        self.excitation_sq += weight * excitation * excitation;
        self.magnetisation += weight * m;
        self.abs_magnetisation += weight * m.abs();
        self.magnetisation_sq += weight * m * m;
        let mut pairs = self.correlations.iter_mut();
        for i in 0..self.sites {
            // Bit j of `aligned` is set when s_j = s_i.
            let aligned = if spins >> i & 1 == 1 { spins } else { !spins };
            for (j, sum) in (i + 1..self.sites).zip(&mut pairs) {
                *sum += if aligned >> j & 1 == 1 {
                    weight
                } else {
                    -weight
                };
            }
        }
    }

    /// `<s_i s_j>` for `i != j`.
    fn correlation(&self, i: usize, j: usize) -> f64 {
        let (i, j) = (i.min(j), i.max(j));
        // Rows 0..i hold n - 1, n - 2, ..., n - i pairs.
        let row = i * (2 * self.sites - i - 1) / 2;
        self.correlations[row + j - i - 1] / self.z
    }

    fn averages(&self, ground: f64, beta: f64, bonds: &Bonds) -> EnumeratedAverages {
        let n = self.sites as f64;
        let excitation = self.excitation / self.z;
        let variance = self.excitation_sq / self.z - excitation * excitation;
        let correlations_sq: f64 = self.correlations.iter().map(|c| (c / self.z).powi(2)).sum();
        // Every bond appears twice among the incident ones, so this is the mean over bonds.
        let stride = bonds.incident.len() / self.sites;
        let links_sq: f64 = bonds
            .incident
            .iter()
            .enumerate()
            .map(|(k, &(j, _))| self.correlation(k / stride, j).powi(2))
            .sum();
        EnumeratedAverages {
            e: (ground + excitation) / n,
            c: beta * beta * variance / n,
            m: self.magnetisation / self.z / n,
            abs_m: self.abs_magnetisation / self.z / n,
            m2: self.magnetisation_sq / self.z / (n * n),
            q2: (n + 2.0 * correlations_sq) / (n * n),
            ql: links_sq / bonds.incident.len() as f64,
            ln_z: self.z.ln() - beta * ground,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::assert_close;
    use crate::exact::kaufman;

    /// A frustrated-looking deterministic mix of +1 and -1 couplings.
    fn mixed_couplings(lattice: Lattice) -> Vec<i8> {
        let count = lattice.sites() * u64::from(lattice.dims);
        (0..count)
            .map(|b| if (b * b + 3 * b) % 7 < 3 { -1 } else { 1 })
            .collect()
    }

    fn ferromagnet(lattice: Lattice) -> Vec<i8> {
        vec![1; (lattice.sites() * u64::from(lattice.dims)) as usize]
    }

    #[test]
    fn ferromagnet_matches_kaufman() {
        let lattice = Lattice::new(2, 4);
        for beta in [0.1, 0.3, 0.4406868, 0.6, 1.0, 3.0] {
            let got = enumerate(lattice, &ferromagnet(lattice), 0.0, beta);
            let want = kaufman(4, beta);
            assert_close(&format!("beta {beta} e"), got.e, want.e, 1e-10);
            assert_close(&format!("beta {beta} c"), got.c, want.c, 1e-10);
            let f = -got.ln_z / (beta * 16.0);
            assert_close(&format!("beta {beta} f"), f, want.f, 1e-10);
        }
    }

    /// Energy and magnetisation of one state, straight from the definition.
    fn energy_of(lattice: Lattice, couplings: &[i8], field: f64, spins: u32) -> (f64, f64) {
        let s = |i: u64| spin(spins, i as usize) as f64;
        let mut energy = 0.0;
        for site in 0..lattice.sites() {
            for (d, neighbour) in lattice.forward_neighbours(site).enumerate() {
                let coupling = f64::from(couplings[(site * u64::from(lattice.dims)) as usize + d]);
                energy -= coupling * s(site) * s(neighbour);
            }
        }
        let magnetisation: f64 = (0..lattice.sites()).map(s).sum();
        (energy - field * magnetisation, magnetisation)
    }

    /// Every average from plain Boltzmann sums over states, and `<q^2>` and `<q_l>` from their
    /// definitions as sums over pairs of states of two independent replicas.
    #[test]
    fn matches_direct_sums_over_states_and_pairs_of_states() {
        for lattice in [Lattice::new(2, 2), Lattice::new(3, 2)] {
            let couplings = mixed_couplings(lattice);
            let (field, beta) = (0.3, 0.7);
            let n = lattice.sites() as f64;
            let states: Vec<(u32, f64, f64)> = (0..1u32 << lattice.sites())
                .map(|spins| {
                    let (energy, magnetisation) = energy_of(lattice, &couplings, field, spins);
                    (spins, energy, magnetisation)
                })
                .collect();
            let z: f64 = states.iter().map(|s| (-beta * s.1).exp()).sum();
            let average = |f: &dyn Fn(&(u32, f64, f64)) -> f64| {
                states
                    .iter()
                    .map(|s| (-beta * s.1).exp() * f(s))
                    .sum::<f64>()
                    / z
            };
            let e = average(&|s| s.1);
            let bonds: Vec<(u64, u64)> = (0..lattice.sites())
                .flat_map(|i| lattice.forward_neighbours(i).map(move |j| (i, j)))
                .collect();
            let (mut q2, mut ql) = (0.0, 0.0);
            for a in &states {
                for b in &states {
                    let weight = (-beta * (a.1 + b.1)).exp();
                    let overlap = n - 2.0 * f64::from((a.0 ^ b.0).count_ones());
                    q2 += weight * (overlap / n).powi(2);
                    let q = |i: u64| (spin(a.0, i as usize) * spin(b.0, i as usize)) as f64;
                    let link: f64 = bonds.iter().map(|&(i, j)| q(i) * q(j)).sum();
                    ql += weight * link / bonds.len() as f64;
                }
            }
            let got = enumerate(lattice, &couplings, field, beta);
            let what = format!("{}D", lattice.dims);
            assert_close(&format!("{what} e"), got.e, e / n, 1e-13);
            let c = beta * beta * (average(&|s| s.1 * s.1) - e * e) / n;
            assert_close(&format!("{what} c"), got.c, c, 1e-12);
            assert_close(&format!("{what} m"), got.m, average(&|s| s.2) / n, 1e-13);
            assert_close(
                &format!("{what} abs_m"),
                got.abs_m,
                average(&|s| s.2.abs()) / n,
                1e-13,
            );
            assert_close(
                &format!("{what} m2"),
                got.m2,
                average(&|s| s.2 * s.2) / (n * n),
                1e-13,
            );
            assert_close(&format!("{what} q2"), got.q2, q2 / (z * z), 1e-13);
            assert_close(&format!("{what} ql"), got.ql, ql / (z * z), 1e-13);
        }
    }

    /// The 2x2 ferromagnet is a ring of four pairs joined by two bonds each: coupling `K = 2 beta`,
    /// `Z = (2 cosh K)^4 + (2 sinh K)^4`, `e = -2ab(a^2 + b^2) / (a^4 + b^4)`, `a = 2cosh K`,
    /// `b = 2 sinh K`. Counting each pair once would halve `K`.
    #[test]
    fn two_by_two_is_a_ring_of_doubled_bonds() {
        let lattice = Lattice::new(2, 2);
        for beta in [0.05f64, 0.3, 1.0] {
            let (a, b) = (2.0 * (2.0 * beta).cosh(), 2.0 * (2.0 * beta).sinh());
            let want = -2.0 * a * b * (a * a + b * b) / (a.powi(4) + b.powi(4));
            let got = enumerate(lattice, &ferromagnet(lattice), 0.0, beta);
            assert_close(&format!("beta {beta} e"), got.e, want, 1e-14);
        }
    }

    /// Flipping every bond at one site and that site's spin maps states onto states of the same
    /// energy: at `h = 0`, e, c, `<q^2>` and `<q_l>` (squares of correlations) are unchanged,
    /// while the correlations of that site with the others, hence `<m^2>` and `<|m|>`, change
    /// sign.
    #[test]
    fn gauge_transformation_keeps_e_c_q2_and_ql() {
        let lattice = Lattice::new(2, 4);
        let couplings = mixed_couplings(lattice);
        let site = 5;
        let dims = lattice.dims as usize;
        let mut gauged = couplings.clone();
        for from in 0..lattice.sites() {
            for (d, to) in lattice.forward_neighbours(from).enumerate() {
                if from == site || to == site {
                    gauged[from as usize * dims + d] *= -1;
                }
            }
        }
        for beta in [0.3, 1.0, 2.5] {
            let before = enumerate(lattice, &couplings, 0.0, beta);
            let after = enumerate(lattice, &gauged, 0.0, beta);
            assert_close("e", after.e, before.e, 1e-13);
            assert_close("c", after.c, before.c, 1e-12);
            assert_close("q2", after.q2, before.q2, 1e-13);
            assert_close("ql", after.ql, before.ql, 1e-13);
            assert!((after.m2 - before.m2).abs() > 1e-3, "{before:?} {after:?}");
            assert!(
                (after.abs_m - before.abs_m).abs() > 1e-3,
                "{before:?} {after:?}"
            );
        }
    }

    /// 2x2x2 ferromagnet: 24 bonds, 12 doubled pairs, so `H^2` averages to 48 over all states.
    /// At `beta = 0` every state weighs the same: `e = c = 0`, `<q^2> = <m^2> = 1/N`; at small
    /// `beta`, `e = -beta <H^2>_0 / N = -6 beta`; at large `beta` only the two ground states
    /// (`e = -dims`) remain, and a huge `beta` must not overflow.
    #[test]
    fn cube_2x2x2_limits() {
        let lattice = Lattice::new(3, 2);
        let couplings = ferromagnet(lattice);
        let free = enumerate(lattice, &couplings, 0.0, 0.0);
        for (what, got, want) in [
            ("e", free.e, 0.0),
            ("c", free.c, 0.0),
            ("q2", free.q2, 0.125),
            ("ql", free.ql, 0.0),
            ("m2", free.m2, 0.125),
        ] {
            assert_close(what, got, want, 1e-15);
        }
        let hot = enumerate(lattice, &couplings, 0.0, 1e-4);
        assert_close("hot e", hot.e, -6e-4, 1e-9);
        for beta in [20.0, 1e3] {
            let cold = enumerate(lattice, &couplings, 0.0, beta);
            assert_close("cold e", cold.e, -3.0, 1e-15);
            assert_close("cold c", cold.c, 0.0, 1e-15);
            assert_close("cold abs_m", cold.abs_m, 1.0, 1e-15);
            assert_close("cold q2", cold.q2, 1.0, 1e-15);
            assert_close("cold ql", cold.ql, 1.0, 1e-15);
        }
    }

    /// Up-down symmetry at `h = 0` gives `m = 0`; a field `h > 0` favours up spins, and reversing
    /// it reverses `m` and leaves `e` unchanged.
    #[test]
    fn magnetisation_follows_the_field() {
        let lattice = Lattice::new(2, 4);
        let couplings = mixed_couplings(lattice);
        for beta in [0.2, 0.8, 2.0] {
            let zero = enumerate(lattice, &couplings, 0.0, beta);
            assert!(zero.m.abs() < 1e-13 && zero.abs_m > 0.0, "{zero:?}");
            let up = enumerate(lattice, &couplings, 0.4, beta);
            let down = enumerate(lattice, &couplings, -0.4, beta);
            assert!(up.m > 0.05, "{up:?}");
            assert_close("m", down.m, -up.m, 1e-12);
            assert_close("e", down.e, up.e, 1e-12);
        }
    }

    #[test]
    #[should_panic(expected = "one coupling per site and direction")]
    fn wrong_number_of_couplings_panics() {
        enumerate(Lattice::new(2, 4), &[1; 16], 0.0, 1.0);
    }
}

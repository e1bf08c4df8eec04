//! Thermodynamic estimators of the vector-spin models (O(n), n = 2, 3) and of discrete states at
//! one temperature.
//!
//! Per measurement of `N` spins: the energy `E`, the magnetisation per site `m` (a vector; the
//! order parameter of discrete states, `n = 1`), `F = |sum_i s_i e^{i k x_i}|^2 / N^2` at the
//! smallest wave vector (averaged over the directions) with `m2v`, the `|m|^2` of the same
//! field `s_i` (the Potts model's: its spins' simplex vectors), and, for the helicity modulus,
//! `C = sum_c C_c / (D V)` and `S2 = |sum_c a_c S_c|^2 / (D V)` from the bond cosines `C_c` and
//! sines `S_c` of each class `c` of bonds of unit vector `a_c` (a direction; on the honeycomb
//! lattice its x bonds split by the parity of their site), `D` the dimension and `V` the volume
//! (`sum_d S_d^2 / (D N)` on the square and cubic lattices; `vector::record`).
//!
//! ```text
//! e = <E>/N              c = beta^2 (<E^2> - <E>^2)/N
//! |m|, m2 = <m.m>, m4 = <(m.m)^2>, m_x = <m^x> (along the field)
//! U4 = ((n + 2) - n <m4>/<m2>^2) / 2      (0 for a Gaussian m, 1 for an ordered phase)
//! chi = beta N <m2>      chi_c = beta N (<m2> - <|m|>^2)
//! xi/L = sqrt(<m2v>/<F> - 1) / (2 L sin(pi/L))                 (second-moment length)
//! Y = <C> - beta <S2>                                           (helicity modulus, XY)
//! ```
//!
//! An antiferromagnet on a bipartite lattice also gives the staggered magnetisation
//! `m_s = sum_i eps_i s_i / N` (`eps_i` the sublattice sign) and its `|m_s|`, `m_s2`, `m_s4`,
//! `U4_s` and `chi_s = beta N <m_s2>`, of the same form.
//!
//! Errors by the jackknife over blocks, as for the Ising estimators ([`super::ising`]).

use super::autocorr::tau_int;
use super::ising::{ABS_M, ABS_M_SQ, BLOCKS_PER_REPLICA, M2, M4, energy_and_abs_m};
use super::jackknife::{Estimate, block_means, columns, jackknife};

/// What one measurement of one replica contributes (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct VectorMeasurement {
    pub energy: f64,
    /// `m` per site.
    pub m: [f64; 3],
    /// `|F(k_min)|^2 / N^2`.
    pub fourier: f64,
    /// `sum_d C_d / (D V)` (see the module docs).
    pub bond_cosines: f64,
    /// `|sum_c a_c S_c|^2 / (D V)`.
    pub bond_sines_squared: f64,
    /// Discrete states: the density of sites in the state `s = 0` (Blume-Capel's vacancies).
    pub zeros: f64,
    /// `|m|^2` of the field whose Fourier component `fourier` is, which `xi/L` takes: `m . m`
    /// but for the Potts model, whose `fourier` is of its spins' simplex vectors.
    pub vector_m2: f64,
    /// Of a cluster step: the improved estimator of `vector_m2` from the measured step's
    /// clusters ([`crate::vector::cluster_m2`]); 0 without cluster updates, NaN where a
    /// checkpoint written before it kept none.
    pub cluster_m2: f64,
    /// `|m_s|^2`, the staggered magnetisation's square per site (the Potts spins': of their
    /// simplex vectors); NaN where a checkpoint written before it kept none.
    pub staggered_m2: f64,
}

impl VectorMeasurement {
    /// `|m|^2`.
    pub fn m_squared(&self) -> f64 {
        self.m.iter().map(|m| m * m).sum()
    }

    /// `|m|`.
    pub fn abs_m(&self) -> f64 {
        self.m_squared().sqrt()
    }
}

/// The estimators of one temperature of a vector-spin model.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct VectorEstimates {
    pub beta: f64,
    pub e: Estimate,
    pub c: Estimate,
    pub abs_m: Estimate,
    pub m2: Estimate,
    pub m4: Estimate,
    /// `<m^x>`, the magnetisation along the field.
    pub m_field: Estimate,
    pub u4: Estimate,
    pub chi: Estimate,
    pub chi_connected: Estimate,
    pub xi_over_l: Estimate,
    /// The helicity modulus (XY only).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub helicity: Option<Estimate>,
    /// Blume-Capel: the density of sites with `s = 0`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub zeros: Option<Estimate>,
    /// Potts: `<|m|^2>` of the spins' simplex vectors, which the cluster sizes estimate too.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub simplex_m2: Option<Estimate>,
    /// An antiferromagnet on a bipartite lattice: its staggered magnetisation.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub staggered: Option<StaggeredEstimates>,
    /// Integrated autocorrelation times of `E` and `|m|`, in measurements, averaged over
    /// replicas.
    pub tau_e: f64,
    pub tau_abs_m: f64,
    /// Measurements, all replicas together.
    pub samples: usize,
}

/// The staggered magnetisation's estimators of one temperature (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StaggeredEstimates {
    pub abs_m: Estimate,
    pub m2: Estimate,
    pub m4: Estimate,
    pub u4: Estimate,
    pub chi: Estimate,
}

// The primary quantities of one measurement (see `primaries`): the Ising estimators' six, then
// these.
const M_FIELD: usize = 6;
const FOURIER: usize = 7;
const COSINES: usize = 8;
const SINES_SQ: usize = 9;
const ZEROS: usize = 10;
const VECTOR_M2: usize = 11;
const STAGGERED_ABS: usize = 12;
const STAGGERED_M2: usize = 13;
const STAGGERED_M4: usize = 14;
const PRIMARY_COUNT: usize = 15;

fn primaries(shifts: (f64, f64), x: &VectorMeasurement) -> [f64; PRIMARY_COUNT] {
    let m2 = x.m_squared();
    let de = x.energy - shifts.0;
    let dm = m2.sqrt() - shifts.1;
    [
        de,
        de * de,
        dm,
        dm * dm,
        m2,
        m2 * m2,
        x.m[0],
        x.fourier,
        x.bond_cosines,
        x.bond_sines_squared,
        x.zeros,
        x.vector_m2,
        x.staggered_m2.sqrt(),
        x.staggered_m2,
        x.staggered_m2 * x.staggered_m2,
    ]
}

/// Which estimators beyond the common ones a model's measurements give.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VectorExtras {
    /// The helicity modulus (XY).
    pub helicity: bool,
    /// The density of `s = 0` (Blume-Capel).
    pub zeros: bool,
    /// `<|m|^2>` of the simplex vectors (Potts).
    pub simplex: bool,
    /// The staggered magnetisation (an antiferromagnet on a bipartite lattice), of spins of
    /// these components (`q - 1` of the Potts spins' simplex vectors), which `U4_s` takes.
    pub staggered: Option<u32>,
}

/// The estimators at `beta` of `components`-vectors (1 for the order parameter of discrete
/// states) on `size^d` lattices of `sites` spins, from `series[r]`, the measurements of replica
/// `r` (each replica an independent unit), with the `extras` the model measures.
pub fn vector_estimates(
    beta: f64,
    (components, size, sites): (u32, u32, u64),
    series: &[Vec<VectorMeasurement>],
    extras: VectorExtras,
) -> VectorEstimates {
    let n_sites = sites as f64;
    let samples: usize = series.iter().map(Vec::len).sum();
    let all = || series.iter().flatten();
    let energy_shift = all().map(|x| x.energy).sum::<f64>() / samples as f64;
    let abs_m_shift = all().map(VectorMeasurement::abs_m).sum::<f64>() / samples as f64;
    let shifts = (energy_shift, abs_m_shift);
    let quantities: Vec<Vec<Vec<f64>>> = series
        .iter()
        .map(|replica| columns(replica.iter().map(|x| primaries(shifts, x))))
        .collect();
    let blocks = block_means(&quantities, BLOCKS_PER_REPLICA);
    let n = f64::from(components);
    let k_factor = 2.0 * f64::from(size) * (std::f64::consts::PI / f64::from(size)).sin();
    let mean_tau = |f: &dyn Fn(&VectorMeasurement) -> f64| {
        let taus = series
            .iter()
            .map(|r| tau_int(&r.iter().map(f).collect::<Vec<_>>()));
        taus.sum::<f64>() / series.len() as f64
    };
    let (e, c, abs_m) = energy_and_abs_m(&blocks, beta, n_sites, shifts);
    VectorEstimates {
        beta,
        e,
        c,
        abs_m,
        m2: jackknife(&blocks, |x| x[M2]),
        m4: jackknife(&blocks, |x| x[M4]),
        m_field: jackknife(&blocks, |x| x[M_FIELD]),
        u4: jackknife(&blocks, |x| ((n + 2.0) - n * x[M4] / (x[M2] * x[M2])) / 2.0),
        chi: jackknife(&blocks, |x| beta * n_sites * x[M2]),
        chi_connected: jackknife(&blocks, |x| {
            beta * n_sites * (x[ABS_M_SQ] - x[ABS_M] * x[ABS_M])
        }),
        xi_over_l: jackknife(&blocks, |x| {
            (x[VECTOR_M2] / x[FOURIER] - 1.0).sqrt() / k_factor
        }),
        helicity: (extras.helicity)
            .then(|| jackknife(&blocks, |x| x[COSINES] - beta * x[SINES_SQ])),
        zeros: extras.zeros.then(|| jackknife(&blocks, |x| x[ZEROS])),
        simplex_m2: extras.simplex.then(|| jackknife(&blocks, |x| x[VECTOR_M2])),
        staggered: (extras.staggered).map(|components| {
            let n = f64::from(components);
            StaggeredEstimates {
                abs_m: jackknife(&blocks, |x| x[STAGGERED_ABS]),
                m2: jackknife(&blocks, |x| x[STAGGERED_M2]),
                m4: jackknife(&blocks, |x| x[STAGGERED_M4]),
                u4: jackknife(&blocks, |x| {
                    ((n + 2.0) - n * x[STAGGERED_M4] / (x[STAGGERED_M2] * x[STAGGERED_M2])) / 2.0
                }),
                chi: jackknife(&blocks, |x| beta * n_sites * x[STAGGERED_M2]),
            }
        }),
        tau_e: mean_tau(&|x| x.energy),
        tau_abs_m: mean_tau(&VectorMeasurement::abs_m),
        samples,
    }
}

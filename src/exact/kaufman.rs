//! Kaufman's exact partition function of the 2D Ising model on a finite periodic lattice.
//!
//! For an `L x L` torus with `J = 1`, `h = 0` and `K = beta` (Kaufman, Phys. Rev. 76, 1232 (1949)):
//!
//! ```text
//! Z = 1/2 (2 sinh 2K)^(L^2/2) [ prod_k 2cosh(L g_{2k+1}/2) + prod_k 2sinh(L g_{2k+1}/2) + prod_k
//! 2cosh(L g_{2k}/2)   + prod_k 2sinh(L g_{2k}/2) ],  k = 0..L-1, g_0 = 2K + ln tanh K
//! (signed: negative above T_c), g_l = acosh(c - cos(pi l / L)),  l >= 1,  c = cosh 2K coth 2K.
//! ```
//!
//! Numerics. `ln Z` is evaluated as a [`Dual2`] in `K`, so the energy and the specific heat come
//! from exact derivatives. Nothing may overflow for large `L` or large `K`:
//!
//! - every product is kept as a logarithm (`ln 2cosh`, `ln |2sinh|` written as `|x| + ln(1 +-
//!   e^{-2|x|})`) and a sign; the four terms are combined by a signed log-sum-exp whose reference
//!   is the largest term *as a [`Dual2`]*, so the common `O(L^2)` derivatives cancel exactly
//!   instead of leaving `O(L^4)` rounding in the second derivative;
//! - a `2 sinh(x)` factor with `|x| < 1` (only `g_0`, near `T_c`) stays a plain multiplicative
//!   [`Dual2`]: as a logarithm its derivatives `coth x` and `-csch^2 x` would be huge and cancel;
//! - `g_l` is written with `t = e^{-2K}` in `(0, 1)`: `c - cos(theta) = 1 + (A + 2 B s)/B` with
//!   `A = (t^2 + 2t - 1)^2`, `B = 2t(1 - t^2)`, `s = sin^2(theta/2)`, all bounded, so
//!   `g = acosh(1 + Q/B) = ln(1 + (Q + sqrt(Q(Q + 2B)))/B)`, `Q = A + 2 B s`: it vanishes smoothly
//!   (no `acosh` near 1, whose argument would lose digits) and becomes `ln(B + Q + W) - ln B` with
//!   `ln B` taken analytically when `B` underflows at large `K`.

use std::f64::consts::{LN_2, PI};

use super::dual::Dual2;

/// Exact per-site thermodynamics of the `L x L` periodic 2D Ising ferromagnet.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExactIsing2d {
    /// Energy per site, `-(1/N) d ln Z / d beta`.
    pub e: f64,
    /// Specific heat per site, `(beta^2 / N) d^2 ln Z / d beta^2`.
    pub c: f64,
    /// Free energy per site, `-ln Z / (beta N)`.
    pub f: f64,
}

/// Exact energy, specific heat and free energy per site of the `size x size` periodic lattice.
///
/// `size` must be even and at least 2, `beta` positive and finite; the caller validates (other
/// inputs give meaningless or non-finite numbers, never a panic).
pub fn kaufman(size: u32, beta: f64) -> ExactIsing2d {
    per_site(ln_partition_function(size, beta), size, beta)
}

/// Exact energy, specific heat and free energy per site of the `size x size` torus whose bonds
/// across `twisted` of its two edges (0, 1 or 2) are antiperiodic, `J = -1`; `None` where the
/// twisted terms cancel to fewer than 8 digits (`KEPT_DIGITS`).
///
/// The twist changes the signs of Kaufman's four terms (the traces over the transfer matrix's
/// sectors with and without the spin reversal): `+ + - -` for one antiperiodic axis (either,
/// on a square), `- + + -` for both. `ln Z_periodic - ln Z_antiperiodic` is the interface free
/// energy, `L (2K + ln tanh K)` to leading order below `T_c`: `Z_antiperiodic` is a difference
/// of terms a factor `exp(-L (2K + ln tanh K))` apart, so the digits run out as `L` grows
/// (at `K = 0.5` near `L = 130`).
pub fn kaufman_twisted(size: u32, beta: f64, twisted: u32) -> Option<ExactIsing2d> {
    let (ln_z, kept) = ln_z_signed(size, beta, twist_signs(twisted));
    (kept >= 10f64.powi(KEPT_DIGITS - 16)).then(|| per_site(ln_z, size, beta))
}

/// e, c and f per site of the `size x size` lattice from its `ln Z` and derivatives at `beta`.
fn per_site(ln_z: Dual2, size: u32, beta: f64) -> ExactIsing2d {
    let sites = f64::from(size) * f64::from(size);
    ExactIsing2d {
        e: -ln_z.d1 / sites,
        c: beta * beta * ln_z.d2 / sites,
        f: -ln_z.v / (beta * sites),
    }
}

/// The digits (of f64's 16) that a twisted partition function must keep through the
/// cancellation of its terms.
const KEPT_DIGITS: i32 = 8;

/// The signs of Kaufman's four terms on a torus with `twisted` antiperiodic axes.
fn twist_signs(twisted: u32) -> [f64; 4] {
    match twisted {
        0 => [1.0, 1.0, 1.0, 1.0],
        1 => [1.0, 1.0, -1.0, -1.0],
        2 => [-1.0, 1.0, 1.0, -1.0],
        _ => panic!("a square lattice has two axes to twist, not {twisted}"),
    }
}

/// `ln Z` of the `size x size` periodic lattice with its first two derivatives in `beta`.
///
/// Same domain as [`kaufman`].
pub fn ln_partition_function(size: u32, beta: f64) -> Dual2 {
    ln_z_signed(size, beta, twist_signs(0)).0
}

/// `ln Z` with Kaufman's four terms taken with `signs` (their sum stays positive: it is a
/// partition function), and the fraction of the terms' magnitude that their sum keeps.
fn ln_z_signed(size: u32, beta: f64, signs: [f64; 4]) -> (Dual2, f64) {
    let couplings = Couplings::new(beta);
    let half_size = f64::from(size) / 2.0;
    let x = |l: u64| couplings.gamma(l, size) * half_size;
    let odd: Vec<Dual2> = (0..u64::from(size)).map(|k| x(2 * k + 1)).collect();
    let even: Vec<Dual2> = (0..u64::from(size)).map(|k| x(2 * k)).collect();
    let cosh_product = |xs: &[Dual2]| xs.iter().fold(ScaledExp::ONE, |p, &x| p.times_2cosh(x));
    let sinh_product = |xs: &[Dual2]| xs.iter().fold(ScaledExp::ONE, |p, &x| p.times_2sinh(x));
    let terms = [
        cosh_product(&odd),
        sinh_product(&odd),
        cosh_product(&even),
        sinh_product(&even),
    ];
    let (bracket, kept) = ln_sum(&[0, 1, 2, 3].map(|i| terms[i].signed(signs[i])));
    let ln_z = couplings.ln_2sinh_2k * (half_size * f64::from(size)) + bracket - LN_2;
    (ln_z, kept)
}

/// The `K`-dependent pieces of Kaufman's `g_l`, in terms of `t = e^{-2K}` (see the module docs).
struct Couplings {
    k: Dual2,
    /// `(t^2 + 2t - 1)^2 = B (c - 2)`: zero at `T_c`.
    a: Dual2,
    /// `2t(1 - t^2)`.
    b: Dual2,
    /// `ln B`, finite even where `B` underflows.
    ln_b: Dual2,
    /// `ln(2 sinh 2K) = ln(1 - t^2) - ln t`.
    ln_2sinh_2k: Dual2,
}

impl Couplings {
    fn new(beta: f64) -> Self {
        let k = Dual2::variable(beta);
        let t = (k * -2.0).exp();
        // 1 - t^2 = -expm1(-4K) keeps its digits at small K.
        let one_minus_t2 = -(k * -4.0).exp_m1();
        let ln_one_minus_t2 = one_minus_t2.ln();
        let a_root = t * t + t * 2.0 - 1.0;
        Self {
            k,
            a: a_root * a_root,
            b: t * one_minus_t2 * 2.0,
            ln_b: ln_one_minus_t2 - k * 2.0 + LN_2,
            ln_2sinh_2k: ln_one_minus_t2 + k * 2.0,
        }
    }

    /// Kaufman's `g_l` on a lattice of linear size `size`.
    fn gamma(&self, l: u64, size: u32) -> Dual2 {
        if l == 0 {
            return self.k * 2.0 + self.k.tanh().ln();
        }
        let half_angle = PI * l as f64 / (2.0 * f64::from(size));
        let q = self.a + self.b * (2.0 * half_angle.sin().powi(2));
        // acosh(1 + Q/B) = ln(1 + excess / B)
        let excess = q + (q * (q + self.b * 2.0)).sqrt();
        if excess.v < self.b.v {
            (excess / self.b).ln_1p()
        } else {
            (self.b + excess).ln() - self.ln_b
        }
    }
}

/// `scale * exp(log)`: a product of many factors kept as a logarithm, except for factors near
/// zero, which stay in `scale` so that their derivatives stay exact.
#[derive(Debug, Clone, Copy)]
struct ScaledExp {
    scale: Dual2,
    log: Dual2,
}

impl ScaledExp {
    const ONE: Self = Self {
        scale: Dual2::constant(1.0),
        log: Dual2::constant(0.0),
    };

    fn signed(self, sign: f64) -> Self {
        Self {
            scale: self.scale * sign,
            ..self
        }
    }

    fn times_2cosh(self, x: Dual2) -> Self {
        Self {
            log: self.log + x.ln_2cosh(),
            ..self
        }
    }

    fn times_2sinh(self, x: Dual2) -> Self {
        // Beyond |x| = 1, coth x and csch^2 x are O(1): the logarithm is well conditioned.
        if x.v.abs() < 1.0 {
            Self {
                scale: self.scale * x.sinh() * 2.0,
                ..self
            }
        } else {
            Self {
                scale: self.scale * x.v.signum(),
                log: self.log + x.ln_2sinh_abs(),
            }
        }
    }
}

/// `ln(sum of terms)`, the sum being positive, relative to its largest logarithm; and the sum
/// over the sum of the terms' magnitudes (1 where no two terms cancel).
fn ln_sum(terms: &[ScaledExp; 4]) -> (Dual2, f64) {
    let largest = terms
        .iter()
        .map(|t| t.log)
        .fold(terms[0].log, |a, b| if b.v > a.v { b } else { a });
    let relative: Vec<Dual2> = (terms.iter())
        .map(|t| t.scale * (t.log - largest).exp())
        .collect();
    let sum: Dual2 = relative.iter().copied().sum();
    let magnitude: f64 = relative.iter().map(|t| t.v.abs()).sum();
    (largest + sum.ln(), sum.v / magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::assert_close;

    /// The guide's reference values (Weigel 2012 quotes 1.106079207 and 0.8616983594).
    #[test]
    fn reference_values_at_l128() {
        let exact = kaufman(128, 0.4);
        assert_close("e", exact.e, -1.1060792038, 1e-9);
        assert_close("c", exact.c, 0.8616983618, 1e-9);
    }

    /// Energy histogram of the `size x size` torus by enumeration of all states, every site
    /// bonded to its right and lower neighbour with wrap-around (so on 2x2 each pair of
    /// neighbours is joined twice), the bonds across the x edge antiperiodic where `twisted` is
    /// 1 or 2, across the y edge where it is 2. Returns (energy, number of states) pairs.
    fn enumerate_twisted(size: usize, twisted: u32) -> Vec<(f64, f64)> {
        let sites = size * size;
        let mut counts = vec![0u64; 4 * sites + 1];
        for state in 0u64..1 << sites {
            let spin = |x: usize, y: usize| {
                if state >> ((y % size) * size + x % size) & 1 == 1 {
                    1i64
                } else {
                    -1
                }
            };
            let mut energy = 0i64;
            for y in 0..size {
                for x in 0..size {
                    let jx = if x == size - 1 && twisted >= 1 { -1 } else { 1 };
                    let jy = if y == size - 1 && twisted == 2 { -1 } else { 1 };
                    energy -= spin(x, y) * (jx * spin(x + 1, y) + jy * spin(x, y + 1));
                }
            }
            counts[(energy + 2 * sites as i64) as usize] += 1;
        }
        counts
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(i, &n)| (i as f64 - 2.0 * sites as f64, n as f64))
            .collect()
    }

    /// e, c, f from an energy histogram, with Boltzmann weights relative to the lowest energy.
    fn thermodynamics(histogram: &[(f64, f64)], sites: f64, beta: f64) -> ExactIsing2d {
        let lowest = histogram
            .iter()
            .map(|&(e, _)| e)
            .fold(f64::INFINITY, f64::min);
        let weight = |e: f64, n: f64| n * (-beta * (e - lowest)).exp();
        let z: f64 = histogram.iter().map(|&(e, n)| weight(e, n)).sum();
        let mean: f64 = histogram
            .iter()
            .map(|&(e, n)| e * weight(e, n))
            .sum::<f64>()
            / z;
        let variance: f64 = histogram
            .iter()
            .map(|&(e, n)| (e - mean).powi(2) * weight(e, n))
            .sum::<f64>()
            / z;
        let ln_z = z.ln() - beta * lowest;
        ExactIsing2d {
            e: mean / sites,
            c: beta * beta * variance / sites,
            f: -ln_z / (beta * sites),
        }
    }

    /// The torus, and one and two antiperiodic axes, against enumeration.
    #[test]
    fn matches_enumeration_of_small_lattices() {
        for size in [2u32, 4] {
            for twisted in [0, 1, 2] {
                let histogram = enumerate_twisted(size as usize, twisted);
                for beta in [0.2, 0.44, 0.7] {
                    let want = thermodynamics(&histogram, f64::from(size * size), beta);
                    let got = kaufman_twisted(size, beta, twisted).unwrap();
                    let what = format!("L={size} twisted {twisted} beta={beta}");
                    assert_close(&format!("{what} e"), got.e, want.e, 1e-10);
                    assert_close(&format!("{what} c"), got.c, want.c, 1e-10);
                    assert_close(&format!("{what} f"), got.f, want.f, 1e-10);
                }
            }
        }
    }

    /// Below `T_c` the free energy of the twist grows as `L` times Onsager's interface
    /// tension `2K + ln tanh K`, less `ln L / 2` (the wall's `L` positions and its capillary
    /// waves' `L^(-1/2)`): what remains converges, where a slope off by 0.002 would move it by
    /// 0.06 from L = 32 to 64. Where the twisted terms cancel past the kept digits there is no
    /// value.
    #[test]
    fn the_twist_costs_the_interface_tension() {
        for beta in [0.47, 0.5] {
            let tension = 2.0 * beta + f64::tanh(beta).ln();
            let remainder = |size: u32| {
                let (sites, l) = (f64::from(size * size), f64::from(size));
                let twisted = kaufman_twisted(size, beta, 1).unwrap();
                let cost = beta * sites * (twisted.f - kaufman(size, beta).f);
                cost - tension * l + 0.5 * l.ln()
            };
            let [c32, c48, c64] = [32, 48, 64].map(remainder);
            assert!(c32 < c48 && c48 < c64, "beta {beta}: {c32}, {c48}, {c64}");
            assert!(c64 - c32 < 0.06, "beta {beta}: {c32} to {c64}");
        }
        assert!(kaufman_twisted(256, 0.6, 1).is_none());
    }

    /// The derivatives of ln Z against finite differences of its value, at and around T_c.
    #[test]
    fn derivatives_match_finite_differences_of_ln_z() {
        let h = 1e-4;
        for beta in [0.3, 2f64.sqrt().ln_1p() / 2.0, 0.6] {
            let ln_z = |b: f64| ln_partition_function(16, b).v;
            let (lo, mid, hi) = (ln_z(beta - h), ln_z(beta), ln_z(beta + h));
            let got = ln_partition_function(16, beta);
            assert_close("d1", got.d1, (hi - lo) / (2.0 * h), 1e-6 * got.d1.abs());
            assert_close(
                "d2",
                got.d2,
                (hi - 2.0 * mid + lo) / (h * h),
                1e-5 * got.d2.abs(),
            );
            assert_eq!(got.v, mid);
        }
    }

    #[test]
    fn finite_at_the_critical_point() {
        let beta_c = 2f64.sqrt().ln_1p() / 2.0;
        for size in [2, 4, 64, 1024] {
            let got = kaufman(size, beta_c);
            // e_inf(beta_c) = -sqrt 2; the finite-size shift is O(1/L).
            assert!(
                (got.e + 2f64.sqrt()).abs() < 2.0 / f64::from(size),
                "L={size}: {got:?}"
            );
            assert!(got.c > 0.0 && got.f.is_finite(), "L={size}: {got:?}");
        }
        // c grows like ln L at T_c.
        assert!(kaufman(1024, beta_c).c > kaufman(64, beta_c).c + 1.0);
    }

    /// Deep in the ordered phase Z = 2 e^{2 beta N} (1 + O(N e^{-8 beta})).
    #[test]
    fn ground_state_at_large_beta() {
        for size in [4, 128, 1024] {
            let sites = f64::from(size * size);
            for beta in [6.0, 50.0, 400.0, 1e4] {
                let got = kaufman(size, beta);
                let what = format!("L={size} beta={beta}");
                assert_close(&format!("{what} e"), got.e, -2.0, 1e-12);
                assert_close(
                    &format!("{what} f"),
                    got.f,
                    -2.0 - LN_2 / (beta * sites),
                    1e-12,
                );
                assert!((0.0..1e-12).contains(&got.c.abs()), "{what}: {got:?}");
            }
        }
    }

    /// Far above T_c, ln Z / N = ln 2 + 2 ln cosh K + O(tanh^4 K): e = -2 tanh K + O(K^3).
    #[test]
    fn high_temperature_limit() {
        for size in [4, 128] {
            for beta in [1e-3, 1e-2] {
                let got = kaufman(size, beta);
                assert_close("e", got.e, -2.0 * beta.tanh(), 10.0 * beta.powi(3));
                assert_close("c", got.c, 2.0 * beta * beta, 30.0 * beta.powi(4));
            }
        }
    }
}

//! Onsager's exact solution of the 2D Ising model on the infinite square lattice (`J = 1`,
//! `h = 0`, `K = beta`; L. Onsager, Phys. Rev. 65, 117 (1944)), per site:
//!
//! ```text
//! -beta f = ln(2 cosh 2K) + (1/pi) int_0^{pi/2} ln[(1 + sqrt(1 - k^2 sin^2 t)) / 2] dt,
//! k = 2 sinh 2K / cosh^2 2K,
//! e = -coth 2K [1 + (2/pi)(2 tanh^2 2K - 1) K1(k)],
//! c = (4/pi)(K coth 2K)^2 [K1(k) - E1(k) - (1 - tanh^2 2K)(pi/2 + (2 tanh^2 2K - 1) K1(k))],
//! ```
//!
//! with the complete elliptic integrals `K1` and `E1` by the arithmetic-geometric mean, and the
//! free energy's integral by adaptive Simpson quadrature (its integrand is smooth on the closed
//! interval for every `k <= 1`, steep only near `t = pi/2` as `k` nears 1). At `beta_c`, `k = 1`
//! and `c` is infinite.

use std::f64::consts::{FRAC_PI_2, PI};

use super::ExactIsing2d;

/// Exact energy, specific heat and free energy per site of the infinite lattice at `beta`
/// (positive and finite; the caller validates).
pub fn onsager(beta: f64) -> ExactIsing2d {
    let (sinh, cosh) = ((2.0 * beta).sinh(), (2.0 * beta).cosh());
    let tanh = sinh / cosh;
    // 2 sinh / cosh^2 <= 1, with equality at beta_c; rounding must not step past it.
    let k = (2.0 * sinh / (cosh * cosh)).min(1.0);
    let (k1, e1) = elliptic_integrals(k);
    let coth = cosh / sinh;
    // (2 tanh^2 2K - 1) K1(k) vanishes at beta_c, where K1 diverges only logarithmically.
    let shaped_k1 = match k1.is_finite() {
        true => (2.0 * tanh * tanh - 1.0) * k1,
        false => 0.0,
    };
    let e = -coth * (1.0 + 2.0 / PI * shaped_k1);
    let c = 4.0 / PI
        * (beta * coth).powi(2)
        * (k1 - e1 - (1.0 - tanh * tanh) * (FRAC_PI_2 + shaped_k1));
    let integrand = |t: f64| ((1.0 + (1.0 - (k * t.sin()).powi(2)).max(0.0).sqrt()) / 2.0).ln();
    let minus_beta_f = (2.0 * cosh).ln() + simpson(&integrand, 0.0, FRAC_PI_2) / PI;
    ExactIsing2d {
        e,
        c,
        f: -minus_beta_f / beta,
    }
}

/// The complete elliptic integrals of the first and second kind, `K1(k)` and `E1(k)`, by the
/// arithmetic-geometric mean; `K1(1)` is infinite.
fn elliptic_integrals(k: f64) -> (f64, f64) {
    if k >= 1.0 {
        return (f64::INFINITY, 1.0);
    }
    let (mut a, mut g) = (1.0, (1.0 - k * k).sqrt());
    // E1 = K1 (1 - sum_n 2^(n-1) c_n^2), c_0 = k, c_{n+1} = (a_n - g_n) / 2.
    let mut sum = k * k / 2.0;
    let mut weight = 1.0;
    while (a - g).abs() > 1e-16 * a {
        let c = (a - g) / 2.0;
        sum += weight * c * c;
        weight *= 2.0;
        (a, g) = ((a + g) / 2.0, (a * g).sqrt());
    }
    let k1 = PI / (2.0 * a);
    (k1, k1 * (1.0 - sum))
}

/// `int_a^b f` by adaptive Simpson quadrature to about 1e-15 absolute.
fn simpson(f: &impl Fn(f64) -> f64, a: f64, b: f64) -> f64 {
    let m = (a + b) / 2.0;
    let (fa, fm, fb) = (f(a), f(m), f(b));
    let whole = (b - a) / 6.0 * (fa + 4.0 * fm + fb);
    refine(f, (a, fa), (m, fm), (b, fb), whole, 1e-15, 60)
}

/// One step of adaptive Simpson on `[a, b]` (`m` its middle, each with `f` there) whose
/// Simpson estimate is `whole`: halves until the halves agree with it within `tolerance`.
fn refine(
    f: &impl Fn(f64) -> f64,
    (a, fa): (f64, f64),
    (m, fm): (f64, f64),
    (b, fb): (f64, f64),
    whole: f64,
    tolerance: f64,
    depth: u32,
) -> f64 {
    let (left, right) = ((a + m) / 2.0, (m + b) / 2.0);
    let (fl, fr) = (f(left), f(right));
    let left_half = (m - a) / 6.0 * (fa + 4.0 * fl + fm);
    let right_half = (b - m) / 6.0 * (fm + 4.0 * fr + fb);
    let change = left_half + right_half - whole;
    if depth == 0 || change.abs() <= 15.0 * tolerance {
        return left_half + right_half + change / 15.0;
    }
    refine(
        f,
        (a, fa),
        (left, fl),
        (m, fm),
        left_half,
        tolerance / 2.0,
        depth - 1,
    ) + refine(
        f,
        (m, fm),
        (right, fr),
        (b, fb),
        right_half,
        tolerance / 2.0,
        depth - 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{assert_close, kaufman};

    /// ln(1 + sqrt 2) / 2.
    const BETA_C: f64 = 0.440_686_793_509_771_5;

    /// Away from T_c the correlation length is a few sites: large lattices (Kaufman's solution,
    /// itself checked against enumeration) have the infinite lattice's e, c and f up to
    /// exponentially small corrections (f, below T_c, up to the ground states' ln 2 / N), and
    /// neither solution overflows.
    #[test]
    fn large_lattices_have_onsagers_values() {
        // L = 128 at beta = 0.4 is still 6e-11 from the infinite lattice's e.
        for (size, tol) in [(128, 1e-9), (1024, 1e-12)] {
            for beta in [0.2, 0.3, 0.4, 0.5, 0.6, 1.0] {
                let (got, want) = (onsager(beta), kaufman(size, beta));
                let what = format!("L={size} beta={beta}");
                assert_close(&format!("{what} e"), got.e, want.e, tol);
                assert_close(&format!("{what} c"), got.c, want.c, 10.0 * tol);
                // Below T_c the two ordered states add ln 2 to a finite lattice's ln Z.
                let sites = f64::from(size * size);
                let degeneracy = match beta > BETA_C {
                    true => 2f64.ln() / (beta * sites),
                    false => 0.0,
                };
                assert_close(&format!("{what} f"), got.f, want.f + degeneracy, tol);
            }
        }
    }

    /// At the critical point: e = -sqrt 2, -beta f = ln 2 / 2 + 2 G / pi (G Catalan's
    /// constant), and c diverges.
    #[test]
    fn critical_point() {
        let beta_c = BETA_C;
        let catalan = 0.915_965_594_177_219;
        let got = onsager(beta_c);
        assert_close("e", got.e, -(2f64.sqrt()), 1e-12);
        let f = -(2f64.ln() / 2.0 + 2.0 * catalan / PI) / beta_c;
        assert_close("f", got.f, f, 1e-12);
        assert_eq!(got.c, f64::INFINITY);
        // Near it, c grows as -(8/pi) K_c^2 ln|1 - T/T_c|: by 0.49 ln 1000 = 3.4 from a
        // distance of 1e-3 to one of 1e-6.
        let near = |distance: f64| onsager(beta_c * (1.0 + distance)).c;
        assert_close("growth", near(1e-6) - near(1e-3), 3.4, 0.1);
    }
}

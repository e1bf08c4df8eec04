//! Second-order forward-mode automatic differentiation in one variable.
//!
//! A [`Dual2`] carries a value `v` together with its first and second derivatives `d1`, `d2`
//! with respect to one independent variable. Products and quotients follow Leibniz's rule and
//! every elementary function `g` follows the second-order chain rule
//!
//! ```text
//! (g o x)'  = g'(x) x'
//! (g o x)'' = g''(x) x'^2 + g'(x) x''
//! ```
//!
//! so derivatives are exact up to floating-point rounding, with no finite differences.

use std::iter::Sum;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A value with its first and second derivatives with respect to one variable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dual2 {
    /// The value.
    pub v: f64,
    /// The first derivative.
    pub d1: f64,
    /// The second derivative.
    pub d2: f64,
}

impl Dual2 {
    /// A quantity that does not depend on the variable.
    pub const fn constant(v: f64) -> Self {
        Self {
            v,
            d1: 0.0,
            d2: 0.0,
        }
    }

    /// The independent variable itself, at the point `v`.
    pub const fn variable(v: f64) -> Self {
        Self {
            v,
            d1: 1.0,
            d2: 0.0,
        }
    }

    /// `g(self)`, given `g`, `g'` and `g''` evaluated at `self.v`.
    fn chain(self, g: f64, g1: f64, g2: f64) -> Self {
        Self {
            v: g,
            d1: g1 * self.d1,
            d2: g2 * self.d1 * self.d1 + g1 * self.d2,
        }
    }

    /// `e^x`.
    pub fn exp(self) -> Self {
        let e = self.v.exp();
        self.chain(e, e, e)
    }

    /// `e^x - 1`, accurate for small `x`.
    pub fn exp_m1(self) -> Self {
        let e = self.v.exp();
        self.chain(self.v.exp_m1(), e, e)
    }

    /// `ln x`, for `x > 0`.
    pub fn ln(self) -> Self {
        let r = self.v.recip();
        self.chain(self.v.ln(), r, -r * r)
    }

    /// `ln(1 + x)`, accurate for small `x`.
    pub fn ln_1p(self) -> Self {
        let r = (1.0 + self.v).recip();
        self.chain(self.v.ln_1p(), r, -r * r)
    }

    /// `sqrt x`, for `x > 0` (the derivatives are infinite at 0).
    pub fn sqrt(self) -> Self {
        let s = self.v.sqrt();
        self.chain(s, 0.5 / s, -0.25 / (s * self.v))
    }

    /// `sinh x`.
    pub fn sinh(self) -> Self {
        let s = self.v.sinh();
        self.chain(s, self.v.cosh(), s)
    }

    /// `tanh x`.
    pub fn tanh(self) -> Self {
        let t = self.v.tanh();
        let sech2 = 1.0 - t * t;
        self.chain(t, sech2, -2.0 * t * sech2)
    }

    /// `ln(2 cosh x)`, without overflow for any finite `x`: `|x| + ln(1 + e^{-2|x|})`.
    pub fn ln_2cosh(self) -> Self {
        let a = self.v.abs();
        let sech = self.v.cosh().recip();
        self.chain(a + (-2.0 * a).exp().ln_1p(), self.v.tanh(), sech * sech)
    }

    /// `ln |2 sinh x|`, without overflow for any finite `x != 0`: `|x| + ln(1 - e^{-2|x|})`.
    pub fn ln_2sinh_abs(self) -> Self {
        let a = self.v.abs();
        let csch = self.v.sinh().recip();
        self.chain(
            a + (-(-2.0 * a).exp_m1()).ln(),
            self.v.tanh().recip(),
            -csch * csch,
        )
    }
}

impl From<f64> for Dual2 {
    fn from(v: f64) -> Self {
        Self::constant(v)
    }
}

impl Neg for Dual2 {
    type Output = Self;
    fn neg(self) -> Self {
        Self {
            v: -self.v,
            d1: -self.d1,
            d2: -self.d2,
        }
    }
}

impl<T: Into<Dual2>> Add<T> for Dual2 {
    type Output = Self;
    fn add(self, rhs: T) -> Self {
        let rhs = rhs.into();
        Self {
            v: self.v + rhs.v,
            d1: self.d1 + rhs.d1,
            d2: self.d2 + rhs.d2,
        }
    }
}

impl<T: Into<Dual2>> Sub<T> for Dual2 {
    type Output = Self;
    fn sub(self, rhs: T) -> Self {
        self + (-rhs.into())
    }
}

impl<T: Into<Dual2>> Mul<T> for Dual2 {
    type Output = Self;
    fn mul(self, rhs: T) -> Self {
        let rhs = rhs.into();
        Self {
            v: self.v * rhs.v,
            d1: self.d1 * rhs.v + self.v * rhs.d1,
            d2: self.d2 * rhs.v + 2.0 * self.d1 * rhs.d1 + self.v * rhs.d2,
        }
    }
}

impl<T: Into<Dual2>> Div<T> for Dual2 {
    type Output = Self;
    /// `q = a / b` with `q' = (a' - q b') / b` and `q'' = (a'' - 2 q' b' - q b'') / b`.
    fn div(self, rhs: T) -> Self {
        let rhs = rhs.into();
        let v = self.v / rhs.v;
        let d1 = (self.d1 - v * rhs.d1) / rhs.v;
        let d2 = (self.d2 - 2.0 * d1 * rhs.d1 - v * rhs.d2) / rhs.v;
        Self { v, d1, d2 }
    }
}

impl Sum for Dual2 {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::constant(0.0), |acc, x| acc + x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central finite differences of `g` at `x` with step `h`: (g', g'').
    fn finite_differences(g: impl Fn(f64) -> f64, x: f64, h: f64) -> (f64, f64) {
        let (lo, mid, hi) = (g(x - h), g(x), g(x + h));
        ((hi - lo) / (2.0 * h), (hi - 2.0 * mid + lo) / (h * h))
    }

    fn assert_close(what: &str, got: f64, want: f64, tol: f64) {
        let scale = want.abs().max(1.0);
        assert!(
            (got - want).abs() <= tol * scale,
            "{what}: got {got}, want {want}"
        );
    }

    /// Every function is applied to a non-trivial inner function, so that both terms of the
    /// second-order chain rule (with `x'' != 0`) are exercised.
    #[test]
    fn derivatives_match_finite_differences() {
        type Pair = (&'static str, fn(Dual2) -> Dual2, fn(f64) -> f64);
        let cases: [Pair; 11] = [
            ("exp", Dual2::exp, f64::exp),
            ("exp_m1", Dual2::exp_m1, f64::exp_m1),
            ("ln", Dual2::ln, f64::ln),
            ("ln_1p", Dual2::ln_1p, f64::ln_1p),
            ("sqrt", Dual2::sqrt, f64::sqrt),
            ("sinh", Dual2::sinh, f64::sinh),
            ("tanh", Dual2::tanh, f64::tanh),
            ("ln_2cosh", Dual2::ln_2cosh, |x| (2.0 * x.cosh()).ln()),
            ("ln_2sinh_abs", Dual2::ln_2sinh_abs, |x| {
                (2.0 * x.sinh()).abs().ln()
            }),
            (
                "quotient",
                |x| (x * x + 1.0) / (x.sinh() + 2.0),
                |x| (x * x + 1.0) / (x.sinh() + 2.0),
            ),
            (
                "difference",
                |x| x * 3.0 - x.exp() - (-x).tanh(),
                |x| 3.0 * x - x.exp() + x.tanh(),
            ),
        ];
        let inner = |x: f64| 0.3 * x * x + 0.5 * x + 0.2;
        for (name, dual, plain) in cases {
            for x in [0.4, 0.9, 1.7] {
                let got = dual(
                    Dual2::variable(x) * Dual2::variable(x) * 0.3 + Dual2::variable(x) * 0.5 + 0.2,
                );
                let (d1, d2) = finite_differences(|y| plain(inner(y)), x, 1e-4);
                assert_close(&format!("{name}({x}) value"), got.v, plain(inner(x)), 1e-14);
                assert_close(&format!("{name}'({x})"), got.d1, d1, 1e-7);
                assert_close(&format!("{name}''({x})"), got.d2, d2, 1e-5);
            }
        }
    }

    #[test]
    fn log_hyperbolics_do_not_overflow() {
        let x = Dual2::variable(-2000.0);
        let c = x.ln_2cosh();
        let s = x.ln_2sinh_abs();
        assert_eq!((c.v, c.d1, c.d2), (2000.0, -1.0, 0.0));
        assert_eq!((s.v, s.d1, s.d2), (2000.0, -1.0, -0.0));
    }

    #[test]
    fn ln_2sinh_abs_is_accurate_near_zero() {
        let x = 1e-10;
        let got = Dual2::variable(x).ln_2sinh_abs();
        assert!(
            (got.v - (2.0 * x).ln()).abs() < 4.0 * f64::EPSILON * got.v.abs(),
            "{got:?}"
        );
    }
}

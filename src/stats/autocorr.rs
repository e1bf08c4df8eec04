//! Integrated autocorrelation time with Sokal's automatic window.
//!
//! For a series `x_0..x_{n-1}` with mean `xbar`, the normalised autocorrelation function is
//!
//! ```text
//! rho(t) = sum_{i < n-t} (x_i - xbar)(x_{i+t} - xbar) / sum_i (x_i - xbar)^2
//! ```
//!
//! (the `1/n` "biased" estimator, of lower variance than the `1/(n-t)` one) and
//! `tau_int(M) = 1/2 + sum_{t=1}^{M} rho(t)`. Sokal's window is the smallest `M` with
//! `M >= c tau_int(M)`, `c = 6`: long enough to catch the decay of `rho`, short enough to keep the
//! noise of its tail out. The variance of the mean of `n` correlated samples is
//! `2 tau_int sigma^2 / n`. All `rho(t)` come from one FFT (Wiener-Khinchin), `O(n log n)`.

/// Sokal's window factor `c`.
const WINDOW_FACTOR: f64 = 6.0;

/// Integrated autocorrelation time of `series`, in units of its spacing, with Sokal's
/// automatic window (`c = 6`): `tau_int = 1/2 + sum_{t=1}^{M} rho(t)`, at least 1/2.
///
/// It is 1/2 for fewer than two points or zero variance. When the series is shorter than the
/// window needs (`M < 6 tau_int(M)` for every `M < n`), the largest `tau_int(M)` is returned: a
/// lower bound, as the series is too short to measure its own correlations.
pub fn tau_int(series: &[f64]) -> f64 {
    if series.len() < 2 {
        return 0.5;
    }
    let mean = series.iter().sum::<f64>() / series.len() as f64;
    let centred: Vec<f64> = series.iter().map(|x| x - mean).collect();
    let sums = lagged_product_sums(&centred);
    if sums[0] <= 0.0 {
        return 0.5;
    }
    let mut tau = 0.5;
    let mut largest = 0.5;
    for (window, sum) in sums.iter().enumerate().skip(1) {
        tau += sum / sums[0];
        largest = f64::max(largest, tau);
        if window as f64 >= WINDOW_FACTOR * tau {
            return tau.max(0.5);
        }
    }
    largest
}

/// `sums[t] = sum_i x_i x_{i+t}` for every lag `t < x.len()`. The power spectrum of `x`
/// zero-padded to at least twice its length is the transform of the linear (not circular)
/// autocorrelation; being real and even, its forward transform equals `size` times its inverse.
fn lagged_product_sums(x: &[f64]) -> Vec<f64> {
    let size = (2 * x.len()).next_power_of_two();
    let mut re = x.to_vec();
    re.resize(size, 0.0);
    let mut im = vec![0.0; size];
    fft(&mut re, &mut im);
    for (r, i) in re.iter_mut().zip(&mut im) {
        *r = *r * *r + *i * *i;
        *i = 0.0;
    }
    fft(&mut re, &mut im);
    re.truncate(x.len());
    re.iter().map(|r| r / size as f64).collect()
}

/// In-place forward discrete Fourier transform `X_k = sum_j x_j e^{-2 pi i jk/n}` (iterative
/// radix-2 Cooley-Tukey); the length must be a power of two, at least 2.
fn fft(re: &mut [f64], im: &mut [f64]) {
    let n = re.len();
    let shift = usize::BITS - n.trailing_zeros();
    for i in 0..n {
        let j = i.reverse_bits() >> shift;
        if j > i {
            re.swap(i, j);
            im.swap(i, j);
        }
    }
    let mut span = 2;
    while span <= n {
        let half = span / 2;
        // Each twiddle factor is computed directly: no error accumulates through recurrences.
        let twiddles: Vec<(f64, f64)> = (0..half)
            .map(|j| (-2.0 * std::f64::consts::PI * j as f64 / span as f64).sin_cos())
            .collect();
        for start in (0..n).step_by(span) {
            for (j, &(sin, cos)) in twiddles.iter().enumerate() {
                let (a, b) = (start + j, start + j + half);
                let (tr, ti) = (re[b] * cos - im[b] * sin, re[b] * sin + im[b] * cos);
                (re[b], im[b]) = (re[a] - tr, im[a] - ti);
                re[a] += tr;
                im[a] += ti;
            }
        }
        span *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::test_rng::TestRng;

    /// AR(1), `x_{t+1} = rho x_t + sqrt(1 - rho^2) xi_t`, has `rho(t) = rho^t` and
    /// `tau_int = (1 + rho) / (2 (1 - rho))`.
    fn ar1(rho: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut rng = TestRng::new(seed);
        let noise = (1.0 - rho * rho).sqrt();
        let mut x = rng.gaussian();
        (0..n)
            .map(|_| {
                x = rho * x + noise * rng.gaussian();
                x
            })
            .collect()
    }

    #[test]
    fn ar1_processes_have_their_known_tau() {
        for (rho, seed) in [(0.0, 1), (0.5, 2), (0.8, 3), (0.95, 4)] {
            let want = (1.0 + rho) / (2.0 * (1.0 - rho));
            let got = tau_int(&ar1(rho, 1 << 20, seed));
            assert!(
                (got / want - 1.0).abs() < 0.1,
                "rho {rho}: tau {got}, want {want}"
            );
        }
    }

    /// The FFT route against the direct sum.
    #[test]
    fn lagged_sums_match_direct_sums() {
        let x = ar1(0.7, 301, 5);
        let sums = lagged_product_sums(&x);
        assert_eq!(sums.len(), x.len());
        for (t, got) in sums.iter().enumerate() {
            let want: f64 = x.iter().zip(&x[t..]).map(|(a, b)| a * b).sum();
            assert!(
                (got - want).abs() < 1e-11 * sums[0],
                "lag {t}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn degenerate_series_give_one_half() {
        assert_eq!(tau_int(&[]), 0.5);
        assert_eq!(tau_int(&[3.0]), 0.5);
        assert_eq!(tau_int(&[2.5; 100]), 0.5);
    }

    /// A series much shorter than its correlation time: the window is never reached and the
    /// estimate is a lower bound, well above 1/2 (with the full window it would collapse to 0).
    #[test]
    fn too_short_series_give_a_lower_bound() {
        let got = tau_int(&ar1(0.999, 200, 6));
        assert!(got > 5.0 && got < 500.0, "{got}");
    }
}

//! Gaussian couplings of the vector spin glass: `J_ij` from N(0, 1), drawn per disorder sample
//! on the host and handed to every backend as fixed-point words ([`CouplingScale::GAUSSIAN`]:
//! an `i32` in units of `2^-24`, clamped to `|J| <= 8`).
//!
//! Bonds `2w` and `2w + 1` (numbered `site * dims + d`, as every coupling) of sample `s` are
//! the Box-Muller pair of the Philox block `(word = w, sweep 0, Couplings, draw 1, colour 0,
//! batch s)`: words 0, 1 give `u1` in `(0, 1]`, words 2, 3 give `u2` in `[0, 1)` (53 bits
//! each), and `r = sqrt(-2 ln u1)`, `J = r cos(2 pi u2)`, `r sin(2 pi u2)` in `f64`, rounded to
//! the nearest `2^-24`. The draw 1 keeps these blocks apart from the bimodal bits (draw 0). A
//! coupling is thus a function of the seed, the sample and the bond alone. Its fixed point is
//! exact to `2^-25`; the clamp cuts the 8-sigma tails (probability `1.2e-15` per bond).

use std::f64::consts::PI;

use super::fixed::{CouplingScale, GAUSSIAN_FRACTION_BITS, MAX_GAUSSIAN_COUPLING};
use crate::model::Lattice;
use crate::model::couplings::couplings_block;

/// The `draw` of the Gaussian couplings' blocks (the bimodal bits take draw 0).
const GAUSSIAN_DRAW: u32 = 1;

/// The coupling words of sample `sample`, one per bond `site * dims + d` of `lattice`.
pub fn gaussian_couplings(lattice: &Lattice, seed: u64, sample: u32) -> Vec<i32> {
    let bonds = lattice.bonds() as usize;
    (0..bonds.div_ceil(2))
        .flat_map(|pair| {
            // Two bonds per block: the 2^28 sites a Gaussian glass takes at most
            // (checks::validate_vector) have fewer than 2^33 bonds.
            let pair = u32::try_from(pair).expect("fewer than 2^33 bonds per sample");
            normal_pair(couplings_block(seed, pair, GAUSSIAN_DRAW, sample)).map(coupling_word)
        })
        .take(bonds)
        .collect()
}

/// The two normal deviates of a block, by Box-Muller.
fn normal_pair(words: [u32; 4]) -> [f64; 2] {
    let uniform = |high: u32, low: u32| {
        let bits = (u64::from(high) << 21) | (u64::from(low) >> 11);
        bits as f64 / (1u64 << 53) as f64
    };
    // 1 - u is in (0, 1]: the logarithm is finite.
    let radius = (-2.0 * (1.0 - uniform(words[0], words[1])).ln()).sqrt();
    let angle = 2.0 * PI * uniform(words[2], words[3]);
    [radius * angle.cos(), radius * angle.sin()]
}

/// `j` clamped to `|j| <= 8` in units of `2^-24`, rounded.
fn coupling_word(j: f64) -> i32 {
    let clamped = j.clamp(-MAX_GAUSSIAN_COUPLING, MAX_GAUSSIAN_COUPLING);
    (clamped * f64::from(1u32 << GAUSSIAN_FRACTION_BITS)).round() as i32
}

/// A coupling word in units of 1, as `couplings.npy` records it.
pub fn coupling_value(word: i32) -> f64 {
    f64::from(word) / f64::from(1u32 << CouplingScale::GAUSSIAN.fraction_bits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::vector::fixed::exact_coupling_word;

    #[test]
    fn gaussian_couplings_have_mean_zero_and_variance_one() {
        let lattice = Lattice::new(3, 32);
        let j: Vec<f64> = gaussian_couplings(&lattice, 17, 0)
            .into_iter()
            .map(coupling_value)
            .collect();
        let n = j.len() as f64; // 98304 bonds
        let mean = j.iter().sum::<f64>() / n;
        let variance = j.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        let fourth = j.iter().map(|x| x.powi(4)).sum::<f64>() / n;
        // Standard errors: 1/sqrt(n) = 0.0032 for the mean, sqrt(2/n) = 0.0045 for the
        // variance, sqrt(96/n) = 0.031 for the fourth moment (3); each within 5 of them.
        assert!(mean.abs() < 5.0 * 0.0032, "mean {mean}");
        assert!((variance - 1.0).abs() < 5.0 * 0.0045, "variance {variance}");
        assert!((fourth - 3.0).abs() < 5.0 * 0.031, "fourth moment {fourth}");
        let beyond_two = j.iter().filter(|x| x.abs() > 2.0).count() as f64 / n;
        // P(|J| > 2) = 0.0455, standard error 0.00066.
        assert!((beyond_two - 0.0455).abs() < 5.0 * 0.00066, "{beyond_two}");
    }

    #[test]
    fn gaussian_couplings_depend_on_the_seed_sample_and_bond_only() {
        let small = Lattice::new(2, 8);
        let large = Lattice::new(3, 16);
        let a = gaussian_couplings(&small, 5, 1);
        assert_eq!(a, gaussian_couplings(&small, 5, 1));
        // Bond b's coupling is the same on every lattice: the small one's are a prefix.
        assert_eq!(a, gaussian_couplings(&large, 5, 1)[..a.len()]);
        assert_ne!(a, gaussian_couplings(&small, 5, 0));
        assert_ne!(a, gaussian_couplings(&small, 6, 1));
        assert!(a.iter().all(|&j| j.unsigned_abs() <= 1 << 27));
    }

    #[test]
    fn coupling_words_are_rounded_and_clamped() {
        assert_eq!(coupling_word(1.0), 1 << 24);
        assert_eq!(coupling_word(-0.5), -(1 << 23));
        assert_eq!(coupling_word(0.7 * 2f64.powi(-24)), 1);
        assert_eq!(coupling_word(12.0), 1 << 27);
        assert_eq!(coupling_word(-9.5), -(1 << 27));
        assert_eq!(coupling_value(3 << 23), 1.5);
    }

    #[test]
    fn exact_coupling_words_invert_the_values_and_refuse_what_no_word_holds() {
        for word in [0, 1, -1, 3 << 23, 1 << 27, -(1 << 27), 123_456_789] {
            assert_eq!(exact_coupling_word(coupling_value(word)), Some(word));
        }
        let drawn = gaussian_couplings(&Lattice::new(2, 8), 3, 0);
        assert!(
            drawn
                .iter()
                .all(|&w| exact_coupling_word(coupling_value(w)) == Some(w))
        );
        for j in [
            0.1,
            2f64.powi(-25),
            8.0 + 2f64.powi(-24),
            -9.0,
            f64::NAN,
            f64::INFINITY,
        ] {
            assert_eq!(exact_coupling_word(j), None, "{j}");
        }
    }
}

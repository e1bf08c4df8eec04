//! Multi-histogram reweighting of a population anneal (Barash et al. 2017, after Ferrenberg and
//! Swendsen): the energy histograms of every temperature step combine into one estimate of the
//! density of states, which gives `ln Z`, `e` and `c` at any beta, between the steps included.
//!
//! With `H_i(E)` the histogram of the `R_i` replicas at `beta_i` (step 0 being the random
//! population at beta 0) and `N(E) = sum_i H_i(E)`, neglecting the correlations between steps:
//!
//! ```text
//! Omega(E) = N(E) / sum_i R_i exp(-beta_i E) / Z_i,      Z_i = sum_E Omega(E) exp(-beta_i E)
//! ```
//!
//! with the `Z_i` that the anneal itself estimated (Barash et al. 2017 and Machta's formulation:
//! population annealing knows its free energies, so the equations need no self-consistent
//! iteration, which converges slowly over hundreds of closely spaced steps), and `Omega` scaled so
//! that `Z(0)` is the number of configurations (`2^N` of Ising spins) exactly. A pass costs one
//! term per (energy, step). Only the summed histogram `N(E)` and each step's `(beta_i, R_i,
//! ln Z_i)` enter, so a population carries one histogram through the whole anneal. Everything is
//! in f64 logarithms (log-sum-exp) over exact integer energies, in increasing energy and step
//! order: the result is a function of the integers alone.

use std::collections::BTreeMap;

/// Total energies and how often the replicas had them, summed over the steps so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnergyHistogram {
    pub counts: BTreeMap<i64, u64>,
}

impl EnergyHistogram {
    /// Count every energy of `energies` once more.
    pub fn add(&mut self, energies: impl IntoIterator<Item = i64>) {
        self.add_counts(energies.into_iter().map(|e| (e, 1)));
    }

    /// Count each energy of `counted` as often as it says (levels no replica holds add nothing).
    pub fn add_counts(&mut self, counted: impl IntoIterator<Item = (i64, u64)>) {
        for (energy, count) in counted.into_iter().filter(|&(_, n)| n > 0) {
            *self.counts.entry(energy).or_default() += count;
        }
    }
}

/// One temperature step of the anneal, as the reweighting sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HistogramStep {
    pub beta: f64,
    /// The population size `R_i` measured there.
    pub replicas: u32,
    /// The anneal's `ln Z_i` (total, not per site): the starting point of the iteration; the
    /// first step's is kept as the normalisation.
    pub ln_z: f64,
}

/// The density of states of one population, as `ln Omega` of each energy of its histogram.
#[derive(Debug, Clone, PartialEq)]
pub struct DensityOfStates {
    energies: Vec<f64>,
    ln_omega: Vec<f64>,
}

/// What the density of states gives at one beta: totals, not per site.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reweighted {
    pub ln_z: f64,
    /// `<E>`.
    pub energy: f64,
    /// `<E^2> - <E>^2`.
    pub variance: f64,
}

/// `ln sum_k exp(x_k)` of the values of `terms`, stable for any magnitudes.
fn log_sum_exp(terms: impl Iterator<Item = f64> + Clone) -> f64 {
    let top = terms.clone().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return top;
    }
    top + terms.map(|x| (x - top).exp()).sum::<f64>().ln()
}

impl DensityOfStates {
    /// The density of states from `histogram` (energies in units of `unit`), summed over
    /// `steps` (the first of them fixing the normalisation), weighted by each step's own
    /// `ln Z_i`.
    pub fn new(histogram: &EnergyHistogram, steps: &[HistogramStep], unit: f64) -> Self {
        let energies: Vec<f64> = histogram.counts.keys().map(|&e| e as f64 * unit).collect();
        let mut ln_omega: Vec<f64> = energies
            .iter()
            .zip(histogram.counts.values())
            .map(|(&e, &n)| {
                let terms = steps
                    .iter()
                    .map(move |s| f64::from(s.replicas).ln() - s.beta * e - s.ln_z);
                (n as f64).ln() - log_sum_exp(terms)
            })
            .collect();
        if let Some(first) = steps.first() {
            let shift = first.ln_z - ln_partition(&energies, &ln_omega, first.beta);
            ln_omega.iter_mut().for_each(|w| *w += shift);
        }
        DensityOfStates { energies, ln_omega }
    }

    /// `ln Z`, `<E>` and the variance of `E` at `beta`.
    pub fn at(&self, beta: f64) -> Reweighted {
        let ln_z = ln_partition(&self.energies, &self.ln_omega, beta);
        let probability = |(e, ln_omega): (&f64, &f64)| (ln_omega - beta * e - ln_z).exp();
        let states = || self.energies.iter().zip(&self.ln_omega);
        let energy: f64 = states().map(|s| probability(s) * s.0).sum();
        let variance = states()
            .map(|s| probability(s) * (s.0 - energy).powi(2))
            .sum();
        Reweighted {
            ln_z,
            energy,
            variance,
        }
    }
}

/// `ln sum_E Omega(E) exp(-beta E)`.
fn ln_partition(energies: &[f64], ln_omega: &[f64], beta: f64) -> f64 {
    log_sum_exp(energies.iter().zip(ln_omega).map(|(e, w)| w - beta * e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` free spins in a unit field, `E = -M`: `Omega(E = 2k - n) = C(n, k)`, `ln Z(beta) =
    /// n ln(2 cosh beta)`, `<E> = -n tanh beta`, `var E = n / cosh^2 beta`.
    const SPINS: u64 = 40;

    fn ln_binomial(n: u64, k: u64) -> f64 {
        (1..=k).map(|i| ((n - k + i) as f64 / i as f64).ln()).sum()
    }

    /// The histogram of about `replicas` replicas at `beta`, at the exact expected counts
    /// (rounded: `replicas` large makes the rounding negligible).
    fn expected_histogram(beta: f64, replicas: f64) -> Vec<(i64, u64)> {
        let n = SPINS as f64;
        let ln_z = n * (2.0 * beta.cosh()).ln();
        (0..=SPINS)
            .map(|k| {
                let energy = 2 * k as i64 - SPINS as i64;
                let p = (ln_binomial(SPINS, k) - beta * energy as f64 - ln_z).exp();
                (energy, (replicas * p).round() as u64)
            })
            .filter(|&(_, count)| count > 0)
            .collect()
    }

    #[test]
    fn synthetic_histograms_give_the_free_spins_exactly() {
        let betas = [0.0, 0.3, 0.6, 0.9, 1.2];
        let mut histogram = EnergyHistogram::default();
        let n = SPINS as f64;
        // The exact ln Z_i, as a converged anneal estimates them.
        let steps: Vec<HistogramStep> = betas
            .iter()
            .map(|&beta| {
                let bins = expected_histogram(beta, 4e9);
                for &(energy, count) in &bins {
                    *histogram.counts.entry(energy).or_default() += count;
                }
                HistogramStep {
                    beta,
                    replicas: bins.iter().map(|b| b.1 as u32).sum(),
                    ln_z: n * (2.0 * beta.cosh()).ln(),
                }
            })
            .collect();
        let dos = DensityOfStates::new(&histogram, &steps, 1.0);
        for beta in [0.0, 0.15, 0.45, 0.75, 1.05, 1.2] {
            let got = dos.at(beta);
            let cosh = f64::cosh(beta);
            let want_ln_z = n * (2.0 * cosh).ln();
            assert!((got.ln_z - want_ln_z).abs() < 1e-7, "ln Z {beta}: {got:?}");
            assert!(
                (got.energy + n * beta.tanh()).abs() < 1e-7,
                "E {beta}: {got:?}"
            );
            assert!(
                (got.variance - n / (cosh * cosh)).abs() < 1e-6,
                "var {beta}: {got:?}"
            );
        }
    }

    #[test]
    fn one_step_reweights_its_own_histogram() {
        // Two energies, equally often at beta 0: Omega is 2^n split evenly over them.
        let mut histogram = EnergyHistogram::default();
        histogram.add([-4, 4, -4, 4]);
        let steps = [HistogramStep {
            beta: 0.0,
            replicas: 4,
            ln_z: 3.0 * std::f64::consts::LN_2,
        }];
        let dos = DensityOfStates::new(&histogram, &steps, 1.0);
        let got = dos.at(0.5);
        let want = (4.0 * (2.0f64.exp() + (-2.0f64).exp())).ln();
        assert!((got.ln_z - want).abs() < 1e-14, "{got:?}");
        assert!((got.energy + 4.0 * 2.0f64.tanh()).abs() < 1e-14, "{got:?}");
        assert_eq!(histogram.counts.len(), 2);
        assert_eq!(histogram.counts[&-4], 2);
    }
}

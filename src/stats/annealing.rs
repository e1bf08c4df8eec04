//! Population annealing's estimators (paper 001): population averages at one temperature step,
//! the free energy from the reweighting factors, family statistics, and averages over
//! independent runs (the paper's errors).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::Estimate;

/// What one population gives at one beta. Per site where it is a density.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AnnealingEstimates {
    pub beta: f64,
    /// The population size `R_i` at this step.
    pub population: u32,
    pub e: f64,
    /// `beta^2 (<E^2> - <E>^2) / N`.
    pub c: f64,
    pub abs_m: f64,
    pub m2: f64,
    pub m4: f64,
    /// Binder's `1 - <m^4> / (3 <m^2>^2)`.
    pub u4: f64,
    /// `ln Z / N`: `ln 2 + (1/N) sum_k ln Q_k` over the steps so far.
    pub ln_z: f64,
    /// Free energy per site `-ln Z / (beta N)`.
    pub f: f64,
    /// Entropy per site `beta (e - f)`.
    pub s: f64,
    /// The step into this beta: the overlap of the energy histograms before and after it.
    pub overlap: f64,
    /// The step into this beta: `(sum w)^2 / sum w^2` of the reweighting factors.
    pub effective_population: f64,
    /// Families (replicas of the initial population) with descendants.
    pub families: u32,
    /// `R sum_f nu_f^2`, `nu_f` the fraction of the population descended from family `f`.
    pub rho_t: f64,
    /// `R exp(sum_f nu_f ln nu_f)`: the population over the exponential of the family entropy.
    pub rho_s: f64,
}

/// One population of an anneal, as the loop carries it from step to step (and a checkpoint
/// keeps it): its size is `families.len()`; replica `j` descends from replica `families[j]` of
/// the initial population.
#[derive(Debug, Clone, PartialEq)]
pub struct Population {
    pub families: Vec<u32>,
    /// `ln Z`: `N ln 2 + sum_k ln Q_k` over the steps so far.
    pub ln_z: f64,
    /// The estimates at every beta so far.
    pub estimates: Vec<AnnealingEstimates>,
}

/// Population moments at `beta` of total energies `energies` and magnetisations
/// `magnetisations` of `sites` spins each: `[e, c, |m|, m^2, m^4, U4]`.
pub fn population_moments(
    beta: f64,
    sites: u64,
    energies: &[f64],
    magnetisations: &[i64],
) -> [f64; 6] {
    let n = sites as f64;
    let r = energies.len() as f64;
    let mean_e = energies.iter().sum::<f64>() / r;
    // Two passes: the variance of a sum of large, close energies loses nothing.
    let var_e = energies.iter().map(|e| (e - mean_e).powi(2)).sum::<f64>() / r;
    let m = || magnetisations.iter().map(|&m| m as f64 / n);
    let abs_m = m().map(f64::abs).sum::<f64>() / r;
    let m2 = m().map(|m| m * m).sum::<f64>() / r;
    let m4 = m().map(|m| m.powi(4)).sum::<f64>() / r;
    [
        mean_e / n,
        beta * beta * var_e / n,
        abs_m,
        m2,
        m4,
        1.0 - m4 / (3.0 * m2 * m2),
    ]
}

/// `[families, rho_t, rho_s]` of a population whose replica `i` descends from `families[i]`.
pub fn family_statistics(families: &[u32]) -> (u32, f64, f64) {
    let mut sizes: HashMap<u32, u64> = HashMap::new();
    for &family in families {
        *sizes.entry(family).or_default() += 1;
    }
    let r = families.len() as f64;
    // Summed in family order, so the result does not depend on the map's iteration order.
    let mut counts: Vec<(u32, u64)> = sizes.into_iter().collect();
    counts.sort_unstable();
    let nu = || counts.iter().map(|&(_, n)| n as f64 / r);
    let rho_t = r * nu().map(|nu| nu * nu).sum::<f64>();
    let rho_s = r * nu().map(|nu| nu * nu.ln()).sum::<f64>().exp();
    (counts.len() as u32, rho_t, rho_s)
}

/// The mean over independent runs at one beta and its standard error (NaN for one run).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AnnealingAverage {
    pub beta: f64,
    pub runs: u32,
    pub e: Estimate,
    pub c: Estimate,
    pub abs_m: Estimate,
    pub m2: Estimate,
    pub m4: Estimate,
    pub u4: Estimate,
    pub ln_z: Estimate,
    pub f: Estimate,
    pub s: Estimate,
}

/// Mean and error over runs of each step: `runs[k][step]`, every run on the same schedule.
pub fn average_over_runs(runs: &[Vec<AnnealingEstimates>]) -> Vec<AnnealingAverage> {
    let steps = runs.first().map_or(0, Vec::len);
    (0..steps)
        .map(|step| {
            let of = |value: fn(&AnnealingEstimates) -> f64| {
                mean_and_error(runs.iter().map(|run| value(&run[step])))
            };
            AnnealingAverage {
                beta: runs[0][step].beta,
                runs: runs.len() as u32,
                e: of(|a| a.e),
                c: of(|a| a.c),
                abs_m: of(|a| a.abs_m),
                m2: of(|a| a.m2),
                m4: of(|a| a.m4),
                u4: of(|a| a.u4),
                ln_z: of(|a| a.ln_z),
                f: of(|a| a.f),
                s: of(|a| a.s),
            }
        })
        .collect()
}

/// The mean of independent values and its standard error `sqrt(var / n)`.
fn mean_and_error(values: impl Iterator<Item = f64> + Clone) -> Estimate {
    let n = values.clone().count() as f64;
    let mean = values.clone().sum::<f64>() / n;
    let var = values.map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Estimate {
        mean,
        err: if n > 1.0 { (var / n).sqrt() } else { f64::NAN },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_of_a_known_population() {
        // Two replicas of 4 sites: E = -8 and -4, M = 4 and -2.
        let [e, c, abs_m, m2, m4, u4] = population_moments(0.5, 4, &[-8.0, -4.0], &[4, -2]);
        assert_eq!(e, -1.5);
        assert_eq!(c, 0.25 * 4.0 / 4.0);
        assert_eq!(abs_m, 0.75);
        assert_eq!(m2, (1.0 + 0.25) / 2.0);
        assert_eq!(m4, (1.0 + 0.0625) / 2.0);
        assert!((u4 - (1.0 - m4 / (3.0 * m2 * m2))).abs() < 1e-15);
    }

    #[test]
    fn families_of_an_even_and_a_collapsed_population() {
        assert_eq!(family_statistics(&[0, 1, 2, 3]), (4, 1.0, 1.0));
        let (count, rho_t, rho_s) = family_statistics(&[7, 7, 7, 7]);
        assert_eq!((count, rho_t), (1, 4.0));
        assert!((rho_s - 4.0).abs() < 1e-12);
    }

    #[test]
    fn errors_over_runs() {
        let estimate = mean_and_error([1.0, 3.0].into_iter());
        assert_eq!(estimate.mean, 2.0);
        assert!((estimate.err - 1.0).abs() < 1e-15);
        assert!(mean_and_error([1.0].into_iter()).err.is_nan());
    }
}

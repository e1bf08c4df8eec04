//! Population annealing's estimators (Barash et al. 2017): population averages at one temperature
//! step, the free energy from the reweighting factors, family statistics, and averages over
//! independent runs (the paper's errors): plain, weighted by the runs' free energies, the
//! spin-glass overlaps of run pairs, and the multi-histogram estimates between the steps.

use serde::{Deserialize, Serialize};

use super::multihistogram::{DensityOfStates, EnergyHistogram, HistogramStep};
use crate::stats::{Estimate, OverlapEstimates, group_means, jackknife, overlap_estimates};
use crate::threads;

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
    /// With `overlaps`, on run `k < runs/2` of a sample: the means over its replica pairs with
    /// run `k + runs/2` ([`PairOverlaps`]); NaN elsewhere.
    pub pairs: PairOverlaps,
    /// An antiferromagnet on a bipartite lattice: its staggered magnetisation's moments; NaN
    /// elsewhere.
    pub staggered: StaggeredMoments,
}

/// A population's moments of the staggered magnetisation `m_s = sum_i (-1)^(x + y + z) s_i`
/// per occupied site (of an antiferromagnet on a bipartite lattice). NaN where not measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StaggeredMoments {
    pub abs_m: f64,
    pub m2: f64,
    pub m4: f64,
    /// Binder's `1 - <m_s^4> / (3 <m_s^2>^2)`.
    pub u4: f64,
}

impl StaggeredMoments {
    pub const MISSING: StaggeredMoments = StaggeredMoments {
        abs_m: f64::NAN,
        m2: f64::NAN,
        m4: f64::NAN,
        u4: f64::NAN,
    };

    /// The moments of the staggered magnetisations `levels` (`N |m_s|`) of `sites` spins
    /// each.
    pub fn of(sites: u64, levels: Levels) -> StaggeredMoments {
        let [abs_m, m2, m4, u4] = magnetisation_moments(sites, levels);
        StaggeredMoments { abs_m, m2, m4, u4 }
    }

    fn row(&self) -> [f64; 4] {
        [self.abs_m, self.m2, self.m4, self.u4]
    }
}

/// Means over the replica pairs of two populations at one beta: slot `j` of one with slot `j`
/// of the other, for every slot both fill. NaN where not measured.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairOverlaps {
    /// `q^2`, `q = (1/N) sum_i s_i^a s_i^b`.
    pub q2: f64,
    pub q4: f64,
    /// `|q(k_min)|^2`.
    pub q2_kmin: f64,
    /// The link overlap `q_l`.
    pub ql: f64,
}

impl PairOverlaps {
    pub const MISSING: PairOverlaps = PairOverlaps {
        q2: f64::NAN,
        q4: f64::NAN,
        q2_kmin: f64::NAN,
        ql: f64::NAN,
    };

    /// The means of the pairs' `(q, |q(k_min)|^2, q_l)` (NaN without pairs).
    pub fn of_pairs(pairs: &[(f64, f64, f64)]) -> PairOverlaps {
        let n = pairs.len() as f64;
        let mean = |f: fn(&(f64, f64, f64)) -> f64| pairs.iter().map(f).sum::<f64>() / n;
        PairOverlaps {
            q2: mean(|p| p.0 * p.0),
            q4: mean(|p| p.0.powi(4)),
            q2_kmin: mean(|p| p.1),
            ql: mean(|p| p.2),
        }
    }

    fn row(&self) -> [f64; 4] {
        [self.q2, self.q4, self.q2_kmin, self.ql]
    }
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
    /// With `reweighting`: the energies of its replicas at every step, beta 0 included.
    pub histogram: EnergyHistogram,
}

/// Values and how many replicas of a population hold each (its energy or magnetisation
/// levels).
#[derive(Debug, Clone, Copy)]
pub struct Levels<'a> {
    pub values: &'a [f64],
    pub counts: &'a [u64],
}

impl Levels<'_> {
    /// `sum_levels count f(value) / replicas`, in level order.
    fn mean(&self, f: impl Fn(f64) -> f64) -> f64 {
        let replicas = self.counts.iter().sum::<u64>() as f64;
        let terms = self.values.iter().zip(self.counts);
        terms.map(|(&x, &n)| n as f64 * f(x)).sum::<f64>() / replicas
    }
}

/// Population moments at `beta` of total energies `energies` and magnetisations
/// `magnetisations` of `sites` spins each: `[e, c, |m|, m^2, m^4, U4]`.
pub fn population_moments(
    beta: f64,
    sites: u64,
    energies: Levels,
    magnetisations: Levels,
) -> [f64; 6] {
    let n = sites as f64;
    let mean_e = energies.mean(|e| e);
    // Two passes: the variance of a sum of large, close energies loses nothing.
    let var_e = energies.mean(|e| (e - mean_e).powi(2));
    let [abs_m, m2, m4, u4] = magnetisation_moments(sites, magnetisations);
    [mean_e / n, beta * beta * var_e / n, abs_m, m2, m4, u4]
}

/// `[|m|, m^2, m^4, U4]` of magnetisations `magnetisations` (`M = N m`) of `sites` spins each.
fn magnetisation_moments(sites: u64, magnetisations: Levels) -> [f64; 4] {
    let n = sites as f64;
    let abs_m = magnetisations.mean(|m| (m / n).abs());
    let m2 = magnetisations.mean(|m| (m / n).powi(2));
    let m4 = magnetisations.mean(|m| (m / n).powi(4));
    [abs_m, m2, m4, 1.0 - m4 / (3.0 * m2 * m2)]
}

/// `[families, rho_t, rho_s]` of a population whose replica `i` descends from `families[i]`.
pub fn family_statistics(families: &[u32]) -> (u32, f64, f64) {
    let r = families.len() as f64;
    let nu: Vec<f64> = family_sizes(families)
        .iter()
        .map(|&n| n as f64 / r)
        .collect();
    let rho_t = r * nu.iter().map(|nu| nu * nu).sum::<f64>();
    // The logarithms in parallel, summed in label order.
    let entropy = threads::map(&nu, |nu| nu * nu.ln());
    let rho_s = r * entropy.iter().sum::<f64>().exp();
    (nu.len() as u32, rho_t, rho_s)
}

/// The size of every family of `families` that has members, in label order. Resampling keeps
/// a population in replica order, so its labels (initial replica indices) never decrease and
/// each family is one run of equal labels, found in parallel; other orders are counted.
fn family_sizes(families: &[u32]) -> Vec<u64> {
    let starts: Vec<usize> =
        threads::from_fn(families.len(), |i| i == 0 || families[i - 1] != families[i])
            .iter()
            .enumerate()
            .filter_map(|(i, &start)| start.then_some(i))
            .collect();
    let sorted = starts.windows(2).all(|w| families[w[0]] < families[w[1]]);
    if sorted {
        let ends = starts.iter().skip(1).copied().chain([families.len()]);
        return starts
            .iter()
            .zip(ends)
            .map(|(&s, e)| (e - s) as u64)
            .collect();
    }
    // Labels are initial replica indices (below R), so a vector indexed by label counts the
    // families without hashing, and walking it keeps label order.
    let labels = families.iter().max().map_or(0, |&label| label as usize + 1);
    let mut sizes = vec![0u64; labels];
    for &family in families {
        sizes[family as usize] += 1;
    }
    sizes.retain(|&n| n > 0);
    sizes
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
    /// An antiferromagnet on a bipartite lattice: the staggered magnetisation's moments.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub staggered: Option<StaggeredAverage>,
}

/// The mean over independent runs of the staggered magnetisation's moments
/// ([`StaggeredMoments`]) at one beta, and its standard error.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct StaggeredAverage {
    pub abs_m: Estimate,
    pub m2: Estimate,
    pub m4: Estimate,
    pub u4: Estimate,
}

/// The estimates an [`AnnealingAverage`] holds, in the order of its fields `[e, c, |m|, m^2,
/// m^4, U4, ln Z, f, s]` and then the staggered `[|m_s|, m_s^2, m_s^4, U4_s]`.
const AVERAGED: usize = 13;

/// A run's estimates in [`AVERAGED`]'s order.
fn averaged_row(a: &AnnealingEstimates) -> [f64; AVERAGED] {
    let [abs_ms, ms2, ms4, u4_s] = a.staggered.row();
    [
        a.e, a.c, a.abs_m, a.m2, a.m4, a.u4, a.ln_z, a.f, a.s, abs_ms, ms2, ms4, u4_s,
    ]
}

impl AnnealingAverage {
    /// From the estimates in [`AVERAGED`]'s order; the staggered ones where they were measured.
    fn of(beta: f64, runs: usize, estimates: [Estimate; AVERAGED]) -> Self {
        let [e, c, abs_m, m2, m4, u4, ln_z, f, s, abs_ms, ms2, ms4, u4_s] = estimates;
        AnnealingAverage {
            beta,
            runs: runs as u32,
            e,
            c,
            abs_m,
            m2,
            m4,
            u4,
            ln_z,
            f,
            s,
            staggered: (!ms2.mean.is_nan()).then_some(StaggeredAverage {
                abs_m: abs_ms,
                m2: ms2,
                m4: ms4,
                u4: u4_s,
            }),
        }
    }
}

/// Mean and error over runs of each step: `runs[k][step]`, every run on the same schedule.
pub fn average_over_runs(runs: &[Vec<AnnealingEstimates>]) -> Vec<AnnealingAverage> {
    let steps = runs.first().map_or(0, Vec::len);
    (0..steps)
        .map(|step| {
            let rows: Vec<[f64; AVERAGED]> =
                runs.iter().map(|run| averaged_row(&run[step])).collect();
            let estimates = std::array::from_fn(|i| mean_and_error(rows.iter().map(|row| row[i])));
            AnnealingAverage::of(runs[0][step].beta, runs.len(), estimates)
        })
        .collect()
}

/// Paper 001's free-energy-weighted average over the independent runs of each sample:
/// `O = sum_k Z_k O_k / sum_k Z_k`, `Z_k` run `k`'s estimate of the partition function (its
/// `exp(-beta F_k)`), at each step; `runs[k][step]` for `k = sample runs_per_sample + run`.
/// `ln Z` is `ln` of the mean `Z_k` (the unbiased combination of the `Z_k`), `f` and `s` follow
/// from it.
///
/// Errors: with one sample, the jackknife deleting one run (the weights are ratios of means);
/// with several, the standard error over the samples of their weighted averages (each
/// sample's spread, thermal and disorder, included). Equal `ln Z_k` give the plain average and,
/// with one sample, its error.
pub fn weighted_over_runs(
    runs: &[Vec<AnnealingEstimates>],
    runs_per_sample: usize,
    sites: u64,
) -> Vec<AnnealingAverage> {
    let steps = runs.first().map_or(0, Vec::len);
    let samples: Vec<&[Vec<AnnealingEstimates>]> = runs.chunks(runs_per_sample.max(1)).collect();
    (0..steps)
        .map(|step| {
            let beta = runs[0][step].beta;
            let per_sample: Vec<[Estimate; AVERAGED]> = samples
                .iter()
                .map(|sample| weighted_sample(sample.iter().map(|run| &run[step]), beta, sites))
                .collect();
            let estimates = match per_sample.as_slice() {
                [only] => *only,
                _ => std::array::from_fn(|i| {
                    mean_and_error(per_sample.iter().map(move |sample| sample[i].mean))
                }),
            };
            AnnealingAverage::of(beta, runs.len(), estimates)
        })
        .collect()
}

/// The weighted averages of one sample's runs at `beta`, in [`AVERAGED`]'s order, jackknifed
/// over the runs.
fn weighted_sample<'a>(
    runs: impl Iterator<Item = &'a AnnealingEstimates> + Clone,
    beta: f64,
    sites: u64,
) -> [Estimate; AVERAGED] {
    let n = sites as f64;
    // Relative to the largest, so that no weight overflows: ln Z is extensive.
    let top = runs
        .clone()
        .map(|a| a.ln_z)
        .fold(f64::NEG_INFINITY, f64::max);
    let rows: Vec<Vec<f64>> = runs
        .map(|a| {
            let z = (n * (a.ln_z - top)).exp();
            let [e, c, abs_m, m2, m4, u4, .., abs_ms, ms2, ms4, u4_s] = averaged_row(a);
            let weighted = [e, c, abs_m, m2, m4, u4, abs_ms, ms2, ms4, u4_s].map(|x| z * x);
            std::iter::once(z).chain(weighted).collect()
        })
        .collect();
    let ln_z = |x: &[f64]| top + x[0].ln() / n;
    let f = move |x: &[f64]| -ln_z(x) / beta;
    let mean = |i: usize| jackknife(&rows, move |x| x[i] / x[0]);
    [
        mean(1),
        mean(2),
        mean(3),
        mean(4),
        mean(5),
        mean(6),
        jackknife(&rows, ln_z),
        jackknife(&rows, f),
        jackknife(&rows, |x| beta * (x[1] / x[0] - f(x))),
        mean(7),
        mean(8),
        mean(9),
        mean(10),
    ]
}

/// The disorder-averaged overlaps at one beta (see [`crate::stats::spin_glass_estimates`] for
/// the estimators), over `units` independent units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnealingOverlaps {
    pub beta: f64,
    /// Samples (units of samples), or run pairs with a single sample.
    pub units: usize,
    #[serde(flatten)]
    pub overlaps: OverlapEstimates,
}

/// `[<q^2>]`, `[<q^4>]`, `g` and the other overlap estimators at every step, from the pair means on
/// the first half of each sample's runs (`runs[k][step]`, `k = sample runs_per_sample + run`). A
/// sample's thermal average is the mean over its run pairs. Errors: the jackknife over samples (in
/// units of `samples_per_unit` that share randoms), or with one sample over its run pairs, each an
/// independent estimate.
pub fn overlaps_over_samples(
    runs: &[Vec<AnnealingEstimates>],
    runs_per_sample: usize,
    samples_per_unit: usize,
    sites: u64,
    size: u32,
) -> Vec<AnnealingOverlaps> {
    let steps = runs.first().map_or(0, Vec::len);
    let samples: Vec<&[Vec<AnnealingEstimates>]> = runs.chunks(runs_per_sample.max(1)).collect();
    (0..steps)
        .map(|step| {
            let pair_rows = |sample: &[Vec<AnnealingEstimates>]| -> Vec<[f64; 4]> {
                let first_half = &sample[..sample.len() / 2];
                first_half.iter().map(|run| run[step].pairs.row()).collect()
            };
            let units = match samples.as_slice() {
                [only] => group_means(&pair_rows(only), 1),
                _ => {
                    let per_sample: Vec<Vec<f64>> = samples
                        .iter()
                        .flat_map(|sample| {
                            let rows = pair_rows(sample);
                            group_means(&rows, rows.len())
                        })
                        .collect();
                    group_means(&per_sample, samples_per_unit)
                }
            };
            AnnealingOverlaps {
                beta: runs[0][step].beta,
                units: units.len(),
                overlaps: overlap_estimates(&units, sites as f64, size, 1),
            }
        })
        .collect()
}

/// The multi-histogram estimates at one beta: mean and error over the populations.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ReweightedAverage {
    pub beta: f64,
    pub runs: u32,
    pub e: Estimate,
    pub c: Estimate,
    pub ln_z: Estimate,
    pub f: Estimate,
}

/// Multi-histogram reweighting ([`DensityOfStates`]) of each population onto `betas`:
/// per beta the mean and error over the populations, as for [`average_over_runs`]. Each
/// population's histogram holds its `initial` replicas at beta 0 (`ln Z` there its
/// `start_ln_z`) and every step since, its energies in units of `unit`, of lattices of `sites`
/// sites.
pub fn reweighted_over_runs(
    populations: &[Population],
    (initial, start_ln_z): (u32, &[f64]),
    betas: &[f64],
    (sites, unit): (u64, f64),
) -> Vec<ReweightedAverage> {
    use rayon::prelude::*;
    let n = sites as f64;
    let per_population: Vec<Vec<[f64; 4]>> = populations
        .par_iter()
        .zip(start_ln_z)
        .map(|(population, &ln_z)| {
            let start = HistogramStep {
                beta: 0.0,
                replicas: initial,
                ln_z,
            };
            let steps: Vec<HistogramStep> = std::iter::once(start)
                .chain(population.estimates.iter().map(|a| HistogramStep {
                    beta: a.beta,
                    replicas: a.population,
                    ln_z: n * a.ln_z,
                }))
                .collect();
            let density = DensityOfStates::new(&population.histogram, &steps, unit);
            betas
                .iter()
                .map(|&beta| {
                    let at = density.at(beta);
                    let ln_z = at.ln_z / n;
                    [
                        at.energy / n,
                        beta * beta * at.variance / n,
                        ln_z,
                        -ln_z / beta,
                    ]
                })
                .collect()
        })
        .collect();
    betas
        .iter()
        .enumerate()
        .map(|(i, &beta)| {
            let of = |q: usize| mean_and_error(per_population.iter().map(move |p| p[i][q]));
            ReweightedAverage {
                beta,
                runs: populations.len() as u32,
                e: of(0),
                c: of(1),
                ln_z: of(2),
                f: of(3),
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
        let (energies, magnetisations) = ([-8.0, -6.0, -4.0], [-2.0, 4.0]);
        let [e, c, abs_m, m2, m4, u4] = population_moments(
            0.5,
            4,
            Levels {
                values: &energies,
                counts: &[1, 0, 1],
            },
            Levels {
                values: &magnetisations,
                counts: &[1, 1],
            },
        );
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
    fn families_in_any_order_are_those_of_the_sorted_labels() {
        assert_eq!(family_sizes(&[1, 2, 3, 3, 9]), vec![1, 1, 2, 1]);
        assert_eq!(family_sizes(&[3, 1, 3, 9, 2]), vec![1, 1, 2, 1]);
        assert_eq!(family_sizes(&[3, 3, 1]), vec![1, 2]);
        assert_eq!(
            family_statistics(&[3, 1, 3, 9, 2]),
            family_statistics(&[1, 2, 3, 3, 9])
        );
    }

    /// A run's estimates at one beta: `e` and `ln Z / N` as given, the rest following `e`.
    fn run(beta: f64, e: f64, ln_z: f64) -> AnnealingEstimates {
        AnnealingEstimates {
            beta,
            population: 100,
            e,
            c: 2.0 * e,
            abs_m: -e,
            m2: e * e,
            m4: e.powi(4),
            u4: 0.5 + e,
            ln_z,
            f: -ln_z / beta,
            s: beta * (e + ln_z / beta),
            overlap: 0.9,
            effective_population: 90.0,
            families: 10,
            rho_t: 2.0,
            rho_s: 1.5,
            pairs: PairOverlaps::MISSING,
            staggered: StaggeredMoments {
                abs_m: 0.25 - e,
                m2: e * e / 2.0,
                m4: e.powi(4) / 3.0,
                u4: 0.25 + e,
            },
        }
    }

    fn assert_same(what: &str, a: Estimate, b: Estimate) {
        assert!(
            (a.mean - b.mean).abs() < 1e-13 && (a.err - b.err).abs() < 1e-13,
            "{what}: {a:?} vs {b:?}"
        );
    }

    #[test]
    fn weighted_average_of_equal_free_energies_is_the_plain_average() {
        let runs: Vec<Vec<AnnealingEstimates>> = [-1.2, -1.0, -1.5, -0.9]
            .iter()
            .map(|&e| vec![run(0.4, e, 0.8), run(0.5, e - 0.1, 0.9)])
            .collect();
        let plain = average_over_runs(&runs);
        let weighted = weighted_over_runs(&runs, 4, 64);
        assert_eq!(weighted.len(), 2);
        for (p, w) in plain.iter().zip(&weighted) {
            assert_eq!((p.beta, p.runs), (w.beta, w.runs));
            let (ps, ws) = (p.staggered.unwrap(), w.staggered.unwrap());
            // The staggered columns follow their runs' values: 0.25 - e.
            assert!((ps.abs_m.mean - (0.25 - p.e.mean)).abs() < 1e-13, "{ps:?}");
            for (what, a, b) in [
                ("abs_ms", ps.abs_m, ws.abs_m),
                ("ms2", ps.m2, ws.m2),
                ("ms4", ps.m4, ws.m4),
                ("u4_s", ps.u4, ws.u4),
                ("e", p.e, w.e),
                ("c", p.c, w.c),
                ("abs_m", p.abs_m, w.abs_m),
                ("m2", p.m2, w.m2),
                ("m4", p.m4, w.m4),
                ("u4", p.u4, w.u4),
                ("f", p.f, w.f),
                ("s", p.s, w.s),
            ] {
                assert_same(what, a, b);
            }
            // Equal ln Z: the mean of the Z_k is each of them, with no spread.
            assert!((w.ln_z.mean - p.ln_z.mean).abs() < 1e-15);
            assert!(w.ln_z.err.abs() < 1e-15, "{:?}", w.ln_z);
        }
    }

    #[test]
    fn weighted_average_follows_the_partition_functions() {
        // N = 100 sites: ln Z / N apart by 0.1 makes Z_1 / Z_0 = e^10.
        let runs = vec![vec![run(0.5, -1.0, 1.0)], vec![run(0.5, -2.0, 1.1)]];
        let w = &weighted_over_runs(&runs, 2, 100)[0];
        let share = 1.0 / (1.0 + (-10.0f64).exp());
        assert!(
            (w.e.mean - (-2.0 * share - (1.0 - share))).abs() < 1e-12,
            "{w:?}"
        );
        let ln_z = 1.1 + (0.5 * (1.0 + (-10.0f64).exp())).ln() / 100.0;
        assert!((w.ln_z.mean - ln_z).abs() < 1e-14, "{w:?}");
        assert!((w.f.mean + ln_z / 0.5).abs() < 1e-13, "{w:?}");
        assert!(
            (w.s.mean - 0.5 * (w.e.mean - w.f.mean)).abs() < 1e-13,
            "{w:?}"
        );
        // Two samples of two equal runs each: the error is the spread over the samples.
        let runs = vec![
            vec![run(0.5, -1.0, 1.0)],
            vec![run(0.5, -1.0, 1.0)],
            vec![run(0.5, -2.0, 0.7)],
            vec![run(0.5, -2.0, 0.7)],
        ];
        let w = &weighted_over_runs(&runs, 2, 100)[0];
        assert!(
            (w.e.mean + 1.5).abs() < 1e-14 && (w.e.err - 0.5).abs() < 1e-14,
            "{w:?}"
        );
        assert_eq!(w.runs, 4);
    }

    #[test]
    fn overlaps_average_the_first_half_of_each_samples_runs() {
        let with_pairs = |q2: f64| {
            let mut a = run(0.5, -1.0, 1.0);
            a.pairs = PairOverlaps {
                q2,
                q4: q2 * q2,
                q2_kmin: 0.1 * q2,
                ql: 0.5,
            };
            vec![a]
        };
        let missing = || vec![run(0.5, -1.0, 1.0)];
        // One sample, four runs: two run pairs, (0, 2) and (1, 3), recorded on runs 0 and 1.
        let one = [with_pairs(0.2), with_pairs(0.4), missing(), missing()];
        let got = &overlaps_over_samples(&one, 4, 1, 64, 8)[0];
        assert_eq!(got.units, 2);
        assert!((got.overlaps.q2.mean - 0.3).abs() < 1e-15);
        assert!((got.overlaps.q2.err - 0.1).abs() < 1e-15);
        let g = 0.5 * (3.0 - 0.1 / 0.09);
        assert!((got.overlaps.g.mean - g).abs() < 1e-14, "{got:?}");
        // Two samples of two runs: one pair each, the error over the samples.
        let two = [with_pairs(0.2), missing(), with_pairs(0.6), missing()];
        let got = &overlaps_over_samples(&two, 2, 1, 64, 8)[0];
        assert_eq!(got.units, 2);
        assert!((got.overlaps.q2.mean - 0.4).abs() < 1e-15);
        assert!((got.overlaps.q2.err - 0.2).abs() < 1e-15);
        assert!((got.overlaps.chi_sg.mean - 64.0 * 0.4).abs() < 1e-12);
    }

    #[test]
    fn pair_overlaps_are_means_of_powers() {
        let got = PairOverlaps::of_pairs(&[(0.5, 0.1, 0.9), (-1.0, 0.3, 0.7)]);
        assert_eq!(got.q2, 0.625);
        assert_eq!(got.q4, (0.0625 + 1.0) / 2.0);
        assert!((got.q2_kmin - 0.2).abs() < 1e-15 && (got.ql - 0.8).abs() < 1e-15);
        assert!(PairOverlaps::of_pairs(&[]).q2.is_nan());
    }

    #[test]
    fn errors_over_runs() {
        let estimate = mean_and_error([1.0, 3.0].into_iter());
        assert_eq!(estimate.mean, 2.0);
        assert!((estimate.err - 1.0).abs() < 1e-15);
        assert!(mean_and_error([1.0].into_iter()).err.is_nan());
    }
}

//! Disorder-averaged estimators of the Edwards-Anderson spin glass, or of any model simulated on
//! several disorder samples, at one temperature.
//!
//! `<.>` is the thermal average within one sample, `[.]` the average over samples (all samples
//! weigh the same), `N` the number of sites, `q` the overlap of two replicas of one sample:
//!
//! ```text
//! e      = [<E>]/N                        c       = [beta^2 (<E^2> - <E>^2)]/N
//! |m|    = [<|M|>]/N                      q2, q4  = [<q^2>], [<q^4>]
//! g      = (3 - [<q^4>]/[<q^2>]^2)/2      chi_SG  = N [<q^2>]
//!          ((n^2 + 2) - n^2 [<q^4>]/[<q^2>]^2)/2 for the tensor overlap of n-vectors
//! xi_L/L = sqrt([<q^2>]/[<|q(k_min)|^2>] - 1) / (2 L sin(pi/L))
//! ql     = [<q_l>], q_l = (1/(d N)) sum_<ij> q_i q_j, q_i = s_i^a s_i^b (the link overlap)
//! ```
//!
//! For vector spin glasses ([`super::tensor_glass`]) `q^2` is the tensor overlap's
//! `sum_{mu nu} q_{mu nu}^2`; the link overlap is not measured.
//!
//! Estimator choices:
//!
//! - The thermal averages of one sample are those of [`ising_estimates`] (replicas of a sample
//!   share its couplings, hence its thermal distribution, and are pooled) and, for the overlaps,
//!   the same blocking over replica pairs (means of the time blocks, so that up to
//!   `BLOCKS_PER_REPLICA - 1` leading measurements of a series are left out). In particular the
//!   energy fluctuation is taken within each sample, around that sample's mean energy, and only
//!   then averaged: pooling the energies of all samples would add the sample-to-sample variance
//!   of `<E>` to `c`.
//! - `g` and `xi_L/L` are ratios of disorder averages, as the field defines them, not disorder
//!   averages of per-sample ratios (which differ from them and are far noisier). `xi_L/L` is NaN
//!   when `[<q^2>] < [<|q(k_min)|^2>]`, as noise can make it deep in the paramagnet.
//! - With two samples or more, errors come from the delete-one-unit jackknife over samples
//!   (see [`super::jackknife`]): the disorder average fluctuates far more than the thermal
//!   averages of a sample, and the jackknife carries it through the ratios. A unit is one sample,
//!   or the 32 samples of a word that share their random numbers ([`UnitSize`]), whose thermal
//!   averages are averaged first; with a single unit the errors are NaN.
//! - With a single sample there is no disorder error to measure: the errors are the thermal ones,
//!   from the jackknife over [`BLOCKS_PER_REPLICA`] time blocks of every unit of replicas (for
//!   `e`, `c`, `|m|`) or of replica pairs (for the overlaps), exactly as for the ferromagnet.
//!   Pair `p` joins replicas `p` and `p + R/2`; with units of `u` replicas (`R/2` a multiple of
//!   `u`) the pairs `u k .. u k + u` are the ones that share the same two units, so they are
//!   one unit of pairs.
//! - Samples without measurements (or without replica pairs, for the overlaps) have NaN averages,
//!   which make the disorder averages NaN rather than silently averaging fewer samples.

use super::UnitSize;
use super::autocorr::tau_int;
use super::ising::{BLOCKS_PER_REPLICA, IsingEstimates, ising_estimates};
use super::jackknife::{Estimate, block_means, group_means, jackknife, unit_means};

/// The measurement series of one disorder sample at one temperature.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleSeries {
    /// `energies[r][m]`: total energy of replica `r` at measurement `m` (field term included).
    pub energies: Vec<Vec<f64>>,
    /// `magnetisations[r][m]`: total magnetisation `M` of replica `r`.
    pub magnetisations: Vec<Vec<i64>>,
    /// `overlaps[p][m]`: overlap `q = (1/N) sum_i s_i^a s_i^b` of replica pair `p` at measurement
    /// `m`.
    pub overlaps: Vec<Vec<f64>>,
    /// `overlaps_kmin[p][m]`: `|q(k_min)|^2` of pair `p`, with
    /// `q(k) = (1/N) sum_i s_i^a s_i^b e^{i k.x_i}` and `k_min = (2 pi / L, 0, 0)`.
    pub overlaps_kmin: Vec<Vec<f64>>,
    /// `link_overlaps[p][m]`: the link overlap `q_l = (1/(d N)) sum_<ij> q_i q_j` of pair `p`,
    /// over each site's forward bonds.
    pub link_overlaps: Vec<Vec<f64>>,
}

impl SampleSeries {
    /// The measurements `range` (clamped to the series).
    pub fn measurements(&self, range: std::ops::Range<usize>) -> SampleSeries {
        fn part<T: Clone>(series: &[Vec<T>], range: &std::ops::Range<usize>) -> Vec<Vec<T>> {
            let clamp = |s: &Vec<T>| range.start.min(s.len())..range.end.min(s.len());
            series.iter().map(|s| s[clamp(s)].to_vec()).collect()
        }
        SampleSeries {
            energies: part(&self.energies, &range),
            magnetisations: part(&self.magnetisations, &range),
            overlaps: part(&self.overlaps, &range),
            overlaps_kmin: part(&self.overlaps_kmin, &range),
            link_overlaps: part(&self.link_overlaps, &range),
        }
    }
}

/// Thermal averages of one disorder sample, for the per-sample output.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SampleAverages {
    /// `<E>/N`.
    pub e: f64,
    /// `beta^2 (<E^2> - <E>^2)/N`.
    pub c: f64,
    /// `<|M|>/N`.
    pub abs_m: f64,
    /// `<q^2>`.
    pub q2: f64,
    /// `<q^4>`.
    pub q4: f64,
    /// `<|q(k_min)|^2>`.
    pub q2_kmin: f64,
    /// `<q_l>` (NaN read from a summary written before it was measured).
    #[serde(default = "missing")]
    pub ql: f64,
    /// Number of measurements, all replicas together.
    pub measurements: usize,
}

/// The disorder-averaged estimators of one temperature (see the module docs).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SpinGlassEstimates {
    /// Inverse temperature.
    pub beta: f64,
    /// Number of disorder samples.
    pub samples: usize,
    /// Number of independent units the errors rest on: of samples with several samples, else
    /// of replicas (of replica pairs, for the overlaps, half as many).
    #[serde(default)]
    pub units: usize,
    /// `[<E>]/N`.
    pub e: Estimate,
    /// `[beta^2 (<E^2> - <E>^2)]/N`, the fluctuation taken within each sample.
    pub c: Estimate,
    /// `[<|M|>]/N`.
    pub abs_m: Estimate,
    /// The overlaps' estimators: `[<q^2>]`, `[<q^4>]`, the Binder ratio `g`, the spin-glass
    /// susceptibility `chi_SG`, `[<|q(k_min)|^2>]`, `xi_L / L` and the link overlap `[<q_l>]`.
    #[serde(flatten)]
    pub overlaps: OverlapEstimates,
    /// Integrated autocorrelation time of `E`, in measurements, averaged over samples and
    /// replicas.
    pub tau_e: f64,
    /// Integrated autocorrelation time of `q^2`, in measurements, averaged over samples and
    /// replica pairs.
    pub tau_q2: f64,
    /// Thermal averages of every sample, in input order.
    pub per_sample: Vec<SampleAverages>,
}

/// Disorder-averaged estimators at inverse temperature `beta` of samples of `n_sites` spins on a
/// lattice of linear size `size`, from each sample's measurement series; `unit` says which
/// replicas and samples are independent.
///
/// A replica (pair) whose two series differ in length uses the shorter. Without samples or
/// measurements every estimate is NaN; without replica pairs every overlap estimate is NaN.
pub fn spin_glass_estimates(
    beta: f64,
    n_sites: u64,
    size: u32,
    samples: &[SampleSeries],
    unit: UnitSize,
) -> SpinGlassEstimates {
    let thermal: Vec<SampleThermal> = samples
        .iter()
        .map(|sample| SampleThermal::new(beta, n_sites, size, sample, unit.replicas))
        .collect();
    let per_sample: Vec<SampleAverages> = thermal.iter().map(SampleThermal::averages).collect();
    let (replica, overlaps, units) = match thermal.as_slice() {
        [only] => (only.replica_estimates(), only.overlaps, only.energy.units),
        _ => disorder_averages(&per_sample, unit.samples, n_sites as f64, size),
    };
    let mean_over_samples =
        |f: fn(&SampleThermal) -> f64| thermal.iter().map(f).sum::<f64>() / thermal.len() as f64;
    SpinGlassEstimates {
        beta,
        samples: samples.len(),
        units,
        e: replica.e,
        c: replica.c,
        abs_m: replica.abs_m,
        overlaps,
        tau_e: mean_over_samples(|t| t.energy.tau_e),
        tau_q2: mean_over_samples(|t| t.tau_q2),
        per_sample,
    }
}

/// A per-sample average that an older summary lacks.
fn missing() -> f64 {
    f64::NAN
}

/// Estimators of the quantities measured on single replicas.
struct ReplicaEstimates {
    e: Estimate,
    c: Estimate,
    abs_m: Estimate,
}

/// Estimators of the quantities measured on replica pairs (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OverlapEstimates {
    /// `[<q^2>]`.
    pub q2: Estimate,
    /// `[<q^4>]`.
    pub q4: Estimate,
    /// `g = (3 - [<q^4>]/[<q^2>]^2)/2`.
    pub g: Estimate,
    /// `N [<q^2>]`.
    pub chi_sg: Estimate,
    /// `[<|q(k_min)|^2>]`.
    pub q2_kmin: Estimate,
    /// `xi_L / L`.
    pub xi_over_l: Estimate,
    /// `[<q_l>]` (NaN read from a summary written before it was measured).
    #[serde(default = "Estimate::missing")]
    pub ql: Estimate,
}

// Columns of the overlap quantities: series of a replica pair, its time blocks, or the thermal
// averages of the samples.
/// `q^2`
const Q2: usize = 0;
/// `q^4`
const Q4: usize = 1;
/// `|q(k_min)|^2`
const Q2_KMIN: usize = 2;
/// `q_l`
const QL: usize = 3;

/// The overlap estimators, jackknifed over `rows[b] = [q^2, q^4, |q(k_min)|^2, q_l]` (means over
/// a time block, or thermal averages of a sample), so that the ratios are taken of means.
/// `entries` is the number of the overlap's entries `m` (1 for Ising spins, `n^2` for the
/// tensor overlap of n-vectors, `q^2` the sum of their squares): `g = ((m + 2) - m q4/q2^2)/2`,
/// 0 where the entries are independent Gaussians and 1 for a fixed `q` (`m = 1`:
/// `(3 - q4/q2^2)/2`).
pub fn overlap_estimates(
    rows: &[Vec<f64>],
    sites: f64,
    size: u32,
    entries: u32,
) -> OverlapEstimates {
    let length = f64::from(size);
    let xi_scale = 1.0 / (2.0 * length * (std::f64::consts::PI / length).sin());
    let m = f64::from(entries);
    OverlapEstimates {
        q2: jackknife(rows, |x| x[Q2]),
        q4: jackknife(rows, |x| x[Q4]),
        g: jackknife(rows, |x| 0.5 * ((m + 2.0) - m * x[Q4] / (x[Q2] * x[Q2]))),
        chi_sg: jackknife(rows, |x| sites * x[Q2]),
        q2_kmin: jackknife(rows, |x| x[Q2_KMIN]),
        xi_over_l: jackknife(rows, |x| xi_scale * (x[Q2] / x[Q2_KMIN] - 1.0).sqrt()),
        ql: jackknife(rows, |x| x[QL]),
    }
}

// Columns of a sample's thermal averages in the disorder jackknife, after the overlap columns.
/// `<E>/N`
const E: usize = 4;
/// `beta^2 (<E^2> - <E>^2)/N`
const C: usize = 5;
/// `<|M|>/N`
const ABS_M: usize = 6;

/// Disorder averages with errors from the jackknife that deletes one unit of `samples_per_unit`
/// consecutive samples at a time (their thermal averages averaged first); also the number of
/// units.
fn disorder_averages(
    per_sample: &[SampleAverages],
    samples_per_unit: usize,
    sites: f64,
    size: u32,
) -> (ReplicaEstimates, OverlapEstimates, usize) {
    let rows: Vec<[f64; 7]> = per_sample
        .iter()
        .map(|s| [s.q2, s.q4, s.q2_kmin, s.ql, s.e, s.c, s.abs_m])
        .collect();
    let units = group_means(&rows, samples_per_unit);
    let replica = ReplicaEstimates {
        e: jackknife(&units, |x| x[E]),
        c: jackknife(&units, |x| x[C]),
        abs_m: jackknife(&units, |x| x[ABS_M]),
    };
    let overlaps = overlap_estimates(&units, sites, size, ISING_ENTRIES);
    (replica, overlaps, units.len())
}

/// Overlap entries of Ising spins: `q` is a number.
const ISING_ENTRIES: u32 = 1;

/// The series of a replica pair, `[q^2, q^4, |q(k_min)|^2, q_l]` per measurement.
pub(super) type PairColumns = Vec<Vec<f64>>;

/// The thermal overlap estimates of one sample from its pairs' series, with errors from the
/// jackknife over time blocks of consecutive groups of `replicas_per_unit` pairs (independent
/// units); also the number of such units and the mean `tau_int` of `q^2` over the pairs.
/// `shape`: sites, linear size, overlap entries (see [`overlap_estimates`]).
pub(super) fn thermal_overlaps(
    pairs: &[PairColumns],
    replicas_per_unit: usize,
    (n_sites, size, entries): (u64, u32, u32),
) -> (OverlapEstimates, usize, f64) {
    let units = unit_means(pairs, replicas_per_unit);
    let blocks = block_means(&units, BLOCKS_PER_REPLICA);
    let tau_q2 = pairs.iter().map(|p| tau_int(&p[Q2])).sum::<f64>() / pairs.len() as f64;
    let estimates = overlap_estimates(&blocks, n_sites as f64, size, entries);
    (estimates, units.len(), tau_q2)
}

/// Thermal estimators of one sample, with errors from time blocks.
struct SampleThermal {
    energy: IsingEstimates,
    overlaps: OverlapEstimates,
    tau_q2: f64,
}

impl SampleThermal {
    /// The thermal estimators of `sample`, consecutive groups of `replicas_per_unit` replicas
    /// (and as many replica pairs) being independent units.
    fn new(
        beta: f64,
        n_sites: u64,
        size: u32,
        sample: &SampleSeries,
        replicas_per_unit: usize,
    ) -> Self {
        let pairs: Vec<PairColumns> = sample
            .overlaps
            .iter()
            .zip(&sample.overlaps_kmin)
            .zip(&sample.link_overlaps)
            .map(|((q, q_kmin), ql)| {
                let length = q.len().min(q_kmin.len()).min(ql.len());
                let q2: Vec<f64> = q[..length].iter().map(|q| q * q).collect();
                let q4 = q2.iter().map(|q2| q2 * q2).collect();
                vec![q2, q4, q_kmin[..length].to_vec(), ql[..length].to_vec()]
            })
            .collect();
        let (overlaps, _, tau_q2) =
            thermal_overlaps(&pairs, replicas_per_unit, (n_sites, size, ISING_ENTRIES));
        let unit = UnitSize {
            replicas: replicas_per_unit,
            samples: 1,
        };
        Self {
            energy: ising_estimates(
                beta,
                n_sites,
                &sample.energies,
                &sample.magnetisations,
                unit,
            ),
            overlaps,
            tau_q2,
        }
    }

    fn replica_estimates(&self) -> ReplicaEstimates {
        ReplicaEstimates {
            e: self.energy.e,
            c: self.energy.c,
            abs_m: self.energy.abs_m,
        }
    }

    fn averages(&self) -> SampleAverages {
        SampleAverages {
            e: self.energy.e.mean,
            c: self.energy.c.mean,
            abs_m: self.energy.abs_m.mean,
            q2: self.overlaps.q2.mean,
            q4: self.overlaps.q4.mean,
            q2_kmin: self.overlaps.q2_kmin.mean,
            ql: self.overlaps.ql.mean,
            measurements: self.energy.samples,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::test_rng::TestRng;

    const BETA: f64 = 0.8;
    const SIZE: u32 = 10;
    const SITES: u64 = 1000;

    /// `1 / (2 L sin(pi/L))`, the factor of `xi_L / L`.
    fn xi_scale() -> f64 {
        let l = f64::from(SIZE);
        1.0 / (2.0 * l * (std::f64::consts::PI / l).sin())
    }

    /// A sample whose every time block holds whole periods of 4 measurements, so that its block
    /// means are its exact moments: energies `offset -+ spread`, `M` cycling through
    /// `3, -1, 1, -3` units, `q` through `scale (1, -1, 1/2, -1/2)`, a constant `|q(k_min)|^2`
    /// and `q_l` through `ql (1.1, 0.9, 1.2, 0.8)`.
    /// Hence `<E> = offset`, `<E^2> - <E>^2 = spread^2`, `<|M|> = 2 unit`,
    /// `<q^2> = 5/8 scale^2`, `<q^4> = 17/32 scale^4`, `<q_l> = ql`.
    struct Cyclic {
        offset: f64,
        spread: f64,
        m_unit: i64,
        q_scale: f64,
        q2_kmin: f64,
        ql: f64,
    }

    impl Cyclic {
        fn sample(&self, replicas: usize, pairs: usize, periods: usize) -> SampleSeries {
            let length = 4 * periods;
            let energies = (0..length)
                .map(|t| self.offset + [-self.spread, self.spread][t % 2])
                .collect();
            let magnetisations = (0..length)
                .map(|t| [3, -1, 1, -3][t % 4] * self.m_unit)
                .collect();
            let overlaps = (0..length)
                .map(|t| self.q_scale * [1.0, -1.0, 0.5, -0.5][t % 4])
                .collect();
            let links = (0..length)
                .map(|t| self.ql * [1.1, 0.9, 1.2, 0.8][t % 4])
                .collect();
            SampleSeries {
                energies: vec![energies; replicas],
                magnetisations: vec![magnetisations; replicas],
                overlaps: vec![overlaps; pairs],
                overlaps_kmin: vec![vec![self.q2_kmin; length]; pairs],
                link_overlaps: vec![links; pairs],
            }
        }
    }

    fn assert_close(what: &str, got: f64, want: f64, tol: f64) {
        assert!(
            (got - want).abs() <= tol * want.abs(),
            "{what}: {got} vs {want}"
        );
    }

    /// The standard error of the mean of `values`.
    fn standard_error(values: &[f64]) -> f64 {
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        (values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n * (n - 1.0))).sqrt()
    }

    /// Three cyclic samples with different moments: every disorder average is exact, `c` is the
    /// mean within-sample variance (pooling would add the spread of the offsets), `g` and `xi`
    /// are ratios of averages (every sample alone has `g = 0.82`), and the errors of the linear
    /// estimators are the standard errors over samples.
    #[test]
    fn exact_disorder_averages_of_cyclic_samples() {
        let cases = [
            (-1000.0, 3.0, 0.4, 0.01, 0.5),
            (-1300.0, 4.0, 0.6, 0.02, 0.7),
            (-1100.0, 5.0, 0.8, 0.03, 0.8),
        ]
        .map(|(offset, spread, q_scale, q2_kmin, ql)| Cyclic {
            offset,
            spread,
            m_unit: 20,
            q_scale,
            q2_kmin,
            ql,
        });
        let samples: Vec<SampleSeries> = cases.iter().map(|data| data.sample(2, 1, 32)).collect();
        let got = spin_glass_estimates(BETA, SITES, SIZE, &samples, UnitSize::SYSTEM);
        let n = SITES as f64;
        let over_cases = |f: &dyn Fn(&Cyclic) -> f64| cases.iter().map(f).collect::<Vec<_>>();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let e = over_cases(&|c| c.offset / n);
        let c = over_cases(&|c| BETA * BETA * c.spread.powi(2) / n);
        let q2 = mean(&over_cases(&|c| 0.625 * c.q_scale.powi(2)));
        let q4 = mean(&over_cases(&|c| 17.0 / 32.0 * c.q_scale.powi(4)));
        let q2_kmin = mean(&over_cases(&|c| c.q2_kmin));
        let g = 0.5 * (3.0 - q4 / (q2 * q2));
        assert!((g - 0.82).abs() > 0.1, "the test must tell the ratio apart");
        assert_close("e", got.e.mean, mean(&e), 1e-14);
        assert_close("e err", got.e.err, standard_error(&e), 1e-9);
        assert_close("c", got.c.mean, mean(&c), 1e-9);
        assert_close("c err", got.c.err, standard_error(&c), 1e-6);
        assert_close("abs_m", got.abs_m.mean, 2.0 * 20.0 / n, 1e-14);
        assert!(got.abs_m.err < 1e-15, "{:?}", got.abs_m);
        assert_close("q2", got.overlaps.q2.mean, q2, 1e-14);
        assert_close("q4", got.overlaps.q4.mean, q4, 1e-14);
        assert_close("q2_kmin", got.overlaps.q2_kmin.mean, q2_kmin, 1e-14);
        assert_close("g", got.overlaps.g.mean, g, 1e-13);
        assert_close("chi_sg", got.overlaps.chi_sg.mean, n * q2, 1e-14);
        let xi = xi_scale() * (q2 / q2_kmin - 1.0).sqrt();
        assert_close("xi_over_l", got.overlaps.xi_over_l.mean, xi, 1e-13);
        let ql = over_cases(&|c| c.ql);
        assert_close("ql", got.overlaps.ql.mean, mean(&ql), 1e-14);
        assert_close("ql err", got.overlaps.ql.err, standard_error(&ql), 1e-9);
        assert_close("per-sample ql", got.per_sample[1].ql, 0.7, 1e-14);
        for (what, est) in [
            ("g", got.overlaps.g),
            ("xi", got.overlaps.xi_over_l),
            ("q2", got.overlaps.q2),
        ] {
            assert!(est.err > 0.0, "{what}: {est:?}");
        }
        assert_eq!(got.samples, 3);
        assert_eq!(got.per_sample.len(), 3);
        assert_close("per-sample c", got.per_sample[1].c, c[1], 1e-9);
        assert_close(
            "per-sample q4",
            got.per_sample[2].q4,
            17.0 / 32.0 * 0.8f64.powi(4),
            1e-14,
        );
        assert_eq!(got.per_sample[0].measurements, 2 * 128);
    }

    /// One cyclic sample: the estimates are its exact thermal averages and, every time block
    /// being exact, the thermal errors vanish.
    #[test]
    fn single_cyclic_sample_is_exact() {
        let data = Cyclic {
            offset: -1.9e12,
            spread: 3.0,
            m_unit: 100,
            q_scale: 0.5,
            q2_kmin: 0.05,
            ql: 0.6,
        };
        let got = spin_glass_estimates(
            BETA,
            SITES,
            SIZE,
            &[data.sample(3, 3, 64)],
            UnitSize::SYSTEM,
        );
        let n = SITES as f64;
        let (q2, q4) = (0.625 * 0.25, 17.0 / 32.0 * 0.0625);
        assert_close("e", got.e.mean, -1.9e12 / n, 1e-15);
        // The variance is 1e-24 of <E^2>: only the shift keeps it.
        assert_close("c", got.c.mean, BETA * BETA * 9.0 / n, 1e-9);
        assert_close("abs_m", got.abs_m.mean, 0.2, 1e-14);
        assert_close(
            "g",
            got.overlaps.g.mean,
            0.5 * (3.0 - q4 / (q2 * q2)),
            1e-14,
        );
        let xi = xi_scale() * (q2 / 0.05 - 1.0).sqrt();
        assert_close("xi_over_l", got.overlaps.xi_over_l.mean, xi, 1e-14);
        assert_close("ql", got.overlaps.ql.mean, 0.6, 1e-14);
        for est in [
            got.e,
            got.c,
            got.overlaps.q2,
            got.overlaps.q4,
            got.overlaps.g,
            got.overlaps.xi_over_l,
            got.overlaps.ql,
        ] {
            assert!(est.err < 1e-12 * est.mean.abs(), "{est:?}");
        }
    }

    /// `count` series of `length` values drawn by `draw`.
    fn series<T>(
        rng: &mut TestRng,
        count: usize,
        length: usize,
        mut draw: impl FnMut(&mut TestRng) -> T,
    ) -> Vec<Vec<T>> {
        (0..count)
            .map(|_| (0..length).map(|_| draw(rng)).collect())
            .collect()
    }

    /// Two replicas and one pair of independent measurements: Gaussian energies of mean
    /// `mean_e` and deviation 40, `M` drawn from `(3, -1, 1, -3) x 50`, `q` uniform in `[-1, 1]`
    /// (`<q^2> = 1/3`, `<q^4> = 1/5`), exponential `|q(k_min)|^2` of mean 0.1 and `q_l` uniform
    /// in `[0, 1]`.
    fn random_sample(rng: &mut TestRng, mean_e: f64, length: usize) -> SampleSeries {
        SampleSeries {
            energies: series(rng, 2, length, |rng| mean_e + 40.0 * rng.gaussian()),
            magnetisations: series(rng, 2, length, |rng| {
                [3, -1, 1, -3][rng.below(4) as usize] * 50
            }),
            overlaps: series(rng, 1, length, |rng| 2.0 * rng.uniform() - 1.0),
            overlaps_kmin: series(rng, 1, length, |rng| -0.1 * rng.uniform().ln()),
            link_overlaps: series(rng, 1, length, |rng| rng.uniform()),
        }
    }

    /// The estimates of samples from [`random_sample`] with `[mean_e] = -1500` agree with the
    /// truth within 4 sigma, with non-zero errors (`g = (3 - 9/5)/2`), and `tau` is 1/2.
    fn assert_agreement(got: &SpinGlassEstimates) {
        let n = SITES as f64;
        let want = [
            ("e", got.e, -1500.0 / n),
            ("c", got.c, BETA * BETA * 1600.0 / n),
            ("abs_m", got.abs_m, 100.0 / n),
            ("q2", got.overlaps.q2, 1.0 / 3.0),
            ("q4", got.overlaps.q4, 0.2),
            ("g", got.overlaps.g, 0.6),
            ("chi_sg", got.overlaps.chi_sg, n / 3.0),
            ("q2_kmin", got.overlaps.q2_kmin, 0.1),
            (
                "xi_over_l",
                got.overlaps.xi_over_l,
                xi_scale() * (10.0f64 / 3.0 - 1.0).sqrt(),
            ),
            ("ql", got.overlaps.ql, 0.5),
        ];
        for (what, est, truth) in want {
            assert!(
                est.err > 0.0 && (est.mean - truth).abs() < 4.0 * est.err,
                "{what}: {est:?} vs {truth}"
            );
        }
        for tau in [got.tau_e, got.tau_q2] {
            assert!((0.5..0.6).contains(&tau), "{got:?}");
        }
    }

    /// Sample means of the energy spread by 30 around -1500: `c` is the within-sample variance
    /// `40^2`, where pooling the samples would give `40^2 + 30^2`.
    #[test]
    fn random_samples_agree_within_errors() {
        let mut rng = TestRng::new(23);
        let samples: Vec<SampleSeries> = (0..50)
            .map(|_| {
                let mean_e = -1500.0 + 30.0 * rng.gaussian();
                random_sample(&mut rng, mean_e, 2000)
            })
            .collect();
        let got = spin_glass_estimates(BETA, SITES, SIZE, &samples, UnitSize::SYSTEM);
        assert_agreement(&got);
        // Pooling the samples would give c about 1.56 times too large: many sigma away.
        assert!(
            got.c.mean < 1.1 * BETA * BETA * 1600.0 / SITES as f64,
            "{:?}",
            got.c
        );
        assert_eq!(got.samples, 50);
    }

    /// Samples in pairs that share everything (as lanes that share randoms and meet): in units
    /// of two, every estimate and error is that of one sample of each pair alone.
    #[test]
    fn correlated_samples_are_one_unit() {
        let mut rng = TestRng::new(31);
        let distinct: Vec<SampleSeries> = (0..40)
            .map(|_| {
                let mean_e = -1500.0 + 30.0 * rng.gaussian();
                random_sample(&mut rng, mean_e, 200)
            })
            .collect();
        let doubled: Vec<SampleSeries> = distinct
            .iter()
            .flat_map(|s| [s.clone(), s.clone()])
            .collect();
        let alone = spin_glass_estimates(BETA, SITES, SIZE, &distinct, UnitSize::SYSTEM);
        let pairs = UnitSize {
            replicas: 1,
            samples: 2,
        };
        let together = spin_glass_estimates(BETA, SITES, SIZE, &doubled, pairs);
        let apart = spin_glass_estimates(BETA, SITES, SIZE, &doubled, UnitSize::SYSTEM);
        assert_eq!((alone.units, together.units, apart.units), (40, 40, 80));
        for (what, one, joined, split) in [
            ("e", alone.e, together.e, apart.e),
            ("c", alone.c, together.c, apart.c),
            (
                "q2",
                alone.overlaps.q2,
                together.overlaps.q2,
                apart.overlaps.q2,
            ),
            ("g", alone.overlaps.g, together.overlaps.g, apart.overlaps.g),
            (
                "ql",
                alone.overlaps.ql,
                together.overlaps.ql,
                apart.overlaps.ql,
            ),
        ] {
            assert_close(what, joined.mean, one.mean, 1e-12);
            assert_close(what, joined.err, one.err, 1e-9);
            // Counted as 80 independent samples the error shrinks by about sqrt(2).
            assert!(split.err < 0.75 * one.err, "{what}: {split:?} vs {one:?}");
        }
    }

    /// A single sample: the errors are thermal (from time blocks), still honest and non-zero.
    #[test]
    fn single_sample_has_thermal_errors() {
        let mut rng = TestRng::new(5);
        let sample = random_sample(&mut rng, -1500.0, 20_000);
        let got = spin_glass_estimates(
            BETA,
            SITES,
            SIZE,
            std::slice::from_ref(&sample),
            UnitSize::SYSTEM,
        );
        assert_agreement(&got);
        let only = got.per_sample[0];
        assert_eq!(only.measurements, 40_000);
        assert_eq!((only.e, only.q2), (got.e.mean, got.overlaps.q2.mean));
    }

    #[test]
    fn series_use_their_common_length() {
        let sample = SampleSeries {
            energies: vec![vec![1.0, 2.0, 3.0]],
            magnetisations: vec![vec![4, 6]],
            overlaps: vec![vec![0.5, -0.5, 0.9]],
            overlaps_kmin: vec![vec![0.1, 0.1]],
            link_overlaps: vec![vec![0.3, 0.5, 0.7]],
        };
        let got = spin_glass_estimates(BETA, SITES, SIZE, &[sample], UnitSize::SYSTEM);
        assert_eq!(got.per_sample[0].measurements, 2);
        assert_close("e", got.e.mean, 1.5 / SITES as f64, 1e-15);
        assert_close("q2", got.overlaps.q2.mean, 0.25, 1e-15);
        assert_close("ql", got.overlaps.ql.mean, 0.4, 1e-15);
    }

    #[test]
    fn missing_data_give_nan() {
        let none = spin_glass_estimates(BETA, SITES, SIZE, &[], UnitSize::SYSTEM);
        assert!(
            none.e.mean.is_nan()
                && none.overlaps.g.err.is_nan()
                && none.overlaps.xi_over_l.mean.is_nan()
        );
        assert!(none.tau_e.is_nan() && none.tau_q2.is_nan());
        assert_eq!((none.samples, none.per_sample.len()), (0, 0));

        let empty = SampleSeries {
            energies: vec![vec![]; 2],
            magnetisations: vec![vec![]; 2],
            overlaps: vec![vec![]],
            overlaps_kmin: vec![vec![]],
            link_overlaps: vec![vec![]],
        };
        for samples in [vec![empty.clone()], vec![empty.clone(), empty]] {
            let got = spin_glass_estimates(BETA, SITES, SIZE, &samples, UnitSize::SYSTEM);
            assert!(got.e.mean.is_nan() && got.c.mean.is_nan() && got.overlaps.q2.mean.is_nan());
        }

        // One replica: energies but no overlap.
        let single_replica = SampleSeries {
            energies: vec![vec![-10.0, -12.0]],
            magnetisations: vec![vec![2, 4]],
            ..SampleSeries::default()
        };
        for count in [1, 2] {
            let got = spin_glass_estimates(
                BETA,
                SITES,
                SIZE,
                &vec![single_replica.clone(); count],
                UnitSize::SYSTEM,
            );
            assert_close("e", got.e.mean, -11.0 / SITES as f64, 1e-15);
            assert!(
                got.overlaps.q2.mean.is_nan()
                    && got.overlaps.g.mean.is_nan()
                    && got.overlaps.xi_over_l.mean.is_nan()
            );
            assert!(got.overlaps.ql.mean.is_nan());
            assert!(got.tau_q2.is_nan());
        }
    }
}

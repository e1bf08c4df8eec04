//! Thermodynamic estimators of an Ising ferromagnet at one temperature.
//!
//! From the total energy `E` and magnetisation `M` of `N` spins, `m = M/N`:
//!
//! ```text
//! e   = <E>/N                      c   = beta^2 (<E^2> - <E>^2)/N
//! |m| = <|m|>                      chi = beta N (<m^2> - <|m|>^2)
//! m2  = <m^2>,  m4 = <m^4>         U4  = 1 - <m^4> / (3 <m^2>^2)
//! ```
//!
//! The fluctuations are computed from moments of `E - E_0` and `|m| - m_0`, `E_0` and `m_0` being
//! the means over all data: `<E^2> - <E>^2` is a difference of numbers of order `N^2`, and the
//! shift removes that cancellation (the identity holds for any constant shift).
//!
//! Errors come from the jackknife over blocks (see [`super::jackknife`]): every independent unit
//! of replicas ([`UnitSize`]: one replica, or the 32 lanes of a word that share their random
//! numbers, averaged per measurement) is cut into [`BLOCKS_PER_REPLICA`] blocks (one per
//! measurement when it has fewer measurements), all blocks weighing the same.

use super::UnitSize;
use super::autocorr::tau_int;
use super::jackknife::{Estimate, block_means, columns, jackknife, unit_means};

/// Blocks per replica for the jackknife: enough for a stable error, few enough for blocks
/// much longer than the autocorrelation time in a run of useful length.
pub const BLOCKS_PER_REPLICA: usize = 16;

/// The thermodynamic estimators of one temperature of an Ising ferromagnet (per site).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IsingEstimates {
    /// Inverse temperature.
    pub beta: f64,
    /// Energy per site `<E>/N`.
    pub e: Estimate,
    /// Specific heat per site `beta^2 (<E^2> - <E>^2)/N`.
    pub c: Estimate,
    /// `<|m|>`.
    pub abs_m: Estimate,
    /// `<m^2>`.
    pub m2: Estimate,
    /// `<m^4>`.
    pub m4: Estimate,
    /// Susceptibility `beta N (<m^2> - <|m|>^2)`.
    pub chi: Estimate,
    /// Binder cumulant `1 - <m^4> / (3 <m^2>^2)`.
    pub u4: Estimate,
    /// Integrated autocorrelation time of `E`, in measurements, averaged over replicas.
    pub tau_e: f64,
    /// Integrated autocorrelation time of `|M|`, in measurements, averaged over replicas.
    pub tau_abs_m: f64,
    /// Number of measurements, all replicas together.
    pub samples: usize,
    /// Number of independent units of replicas the errors rest on.
    #[serde(default)]
    pub units: usize,
}

// Indices of the primary quantities measured at every step (see `primaries`); the vector
// estimators' primaries start with the same six.
/// `E - E_0`
pub(super) const ENERGY: usize = 0;
/// `(E - E_0)^2`
pub(super) const ENERGY_SQ: usize = 1;
/// `|m| - m_0`
pub(super) const ABS_M: usize = 2;
/// `(|m| - m_0)^2`
pub(super) const ABS_M_SQ: usize = 3;
/// `m^2`
pub(super) const M2: usize = 4;
/// `m^4`
pub(super) const M4: usize = 5;
/// How many primary quantities there are.
const PRIMARY_COUNT: usize = 6;

/// The primary quantities of one measurement, given the shifts `E_0` and `m_0`.
fn primaries(energy_shift: f64, abs_m_shift: f64, energy: f64, m: f64) -> [f64; PRIMARY_COUNT] {
    let de = energy - energy_shift;
    let dm = m.abs() - abs_m_shift;
    [de, de * de, dm, dm * dm, m * m, m.powi(4)]
}

/// Estimators at inverse temperature `beta` for `n_sites` spins, from `energies[r][t]` (total
/// energy of replica `r` at measurement `t`, field term included if any) and
/// `magnetisations[r][t]` (total magnetisation), consecutive groups of `unit.replicas` replicas
/// being one independent unit. A replica whose two series differ in length uses the shorter.
/// Without any measurement every estimate is NaN.
pub fn ising_estimates(
    beta: f64,
    n_sites: u64,
    energies: &[Vec<f64>],
    magnetisations: &[Vec<i64>],
    unit: UnitSize,
) -> IsingEstimates {
    let sites = n_sites as f64;
    let replicas: Vec<(&[f64], Vec<f64>)> = energies
        .iter()
        .zip(magnetisations)
        .map(|(e, m)| {
            let len = e.len().min(m.len());
            (
                &e[..len],
                m[..len].iter().map(|&m| m as f64 / sites).collect(),
            )
        })
        .collect();
    let samples = replicas.iter().map(|(e, _)| e.len()).sum();
    let energy_shift = replicas.iter().flat_map(|(e, _)| e.iter()).sum::<f64>() / samples as f64;
    let abs_m_shift = replicas
        .iter()
        .flat_map(|(_, m)| m.iter())
        .map(|m| m.abs())
        .sum::<f64>()
        / samples as f64;
    let series: Vec<Vec<Vec<f64>>> = replicas
        .iter()
        .map(|(e, m)| {
            let rows = e.iter().zip(m);
            columns(rows.map(|(&e, &m)| primaries(energy_shift, abs_m_shift, e, m)))
        })
        .collect();
    let units = unit_means(&series, unit.replicas);
    let blocks = block_means(&units, BLOCKS_PER_REPLICA);
    let mean_over_replicas = |tau: &dyn Fn(&[f64], &[f64]) -> f64| {
        replicas.iter().map(|(e, m)| tau(e, m)).sum::<f64>() / replicas.len() as f64
    };
    let (e, c, abs_m) = energy_and_abs_m(&blocks, beta, sites, (energy_shift, abs_m_shift));
    IsingEstimates {
        beta,
        e,
        c,
        abs_m,
        m2: jackknife(&blocks, |x| x[M2]),
        m4: jackknife(&blocks, |x| x[M4]),
        chi: jackknife(&blocks, |x| {
            beta * sites * (x[ABS_M_SQ] - x[ABS_M] * x[ABS_M])
        }),
        u4: jackknife(&blocks, |x| 1.0 - x[M4] / (3.0 * x[M2] * x[M2])),
        tau_e: mean_over_replicas(&|e, _| tau_int(e)),
        tau_abs_m: mean_over_replicas(&|_, m| {
            tau_int(&m.iter().map(|m| m.abs()).collect::<Vec<_>>())
        }),
        samples,
        units: units.len(),
    }
}

/// `e`, `c` and `|m|` from the block means of the primaries, shifted by `(E_0, m_0)`, of
/// `sites` spins at `beta`.
pub(super) fn energy_and_abs_m(
    blocks: &[Vec<f64>],
    beta: f64,
    sites: f64,
    (energy_shift, abs_m_shift): (f64, f64),
) -> (Estimate, Estimate, Estimate) {
    (
        jackknife(blocks, |x| (energy_shift + x[ENERGY]) / sites),
        jackknife(blocks, |x| {
            beta * beta * (x[ENERGY_SQ] - x[ENERGY] * x[ENERGY]) / sites
        }),
        jackknife(blocks, |x| abs_m_shift + x[ABS_M]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::test_rng::TestRng;

    const SITES: u64 = 1000;
    const BETA: f64 = 0.3;

    /// Magnetisations cycling through 3, -1, 1, -3 (times a scale), and energies alternating
    /// around a huge offset: per period of 4 the moments are exact and known by hand.
    struct Cyclic {
        offset: f64,
        half_spread: f64,
        m_unit: i64,
    }

    impl Cyclic {
        fn series(&self, replicas: usize, periods: usize) -> (Vec<Vec<f64>>, Vec<Vec<i64>>) {
            let e = (0..4 * periods).map(|t| {
                self.offset
                    + if t % 2 == 0 {
                        -self.half_spread
                    } else {
                        self.half_spread
                    }
            });
            let m = (0..4 * periods).map(|t| [3, -1, 1, -3][t % 4] * self.m_unit);
            (vec![e.collect(); replicas], vec![m.collect(); replicas])
        }
    }

    fn assert_estimate(what: &str, got: Estimate, want: f64, tol: f64) {
        assert!(
            (got.mean - want).abs() <= tol * want.abs(),
            "{what}: {} vs {want}",
            got.mean
        );
    }

    /// Every block holds whole periods, so the estimates are exact and the errors vanish.
    #[test]
    fn exact_moments_of_cyclic_data() {
        let data = Cyclic {
            offset: -1.9e12,
            half_spread: 3.0,
            m_unit: 100,
        };
        let (energies, magnetisations) = data.series(3, 64);
        let got = ising_estimates(BETA, SITES, &energies, &magnetisations, UnitSize::SYSTEM);
        let n = SITES as f64;
        let unit = 100.0 / n; // |m| is 3 or 1 units, equally often
        assert_estimate("e", got.e, -1.9e12 / n, 1e-15);
        // The variance, 9, is 1e-24 of <E^2>: without the shift it would be lost entirely.
        assert_estimate("c", got.c, BETA * BETA * 9.0 / n, 1e-9);
        assert_estimate("abs_m", got.abs_m, 2.0 * unit, 1e-14);
        assert_estimate("m2", got.m2, 5.0 * unit.powi(2), 1e-14);
        assert_estimate("m4", got.m4, 41.0 * unit.powi(4), 1e-14);
        assert_estimate("chi", got.chi, BETA * n * unit.powi(2), 1e-12);
        assert_estimate("u4", got.u4, 1.0 - 41.0 / 75.0, 1e-14);
        for (what, est) in [("e", got.e), ("c", got.c), ("m2", got.m2), ("u4", got.u4)] {
            assert!(
                est.err < 1e-12 * est.mean.abs().max(1e-300),
                "{what} err {}",
                est.err
            );
        }
        assert_eq!(got.samples, 3 * 256);
    }

    /// Independent Gaussian energies and magnetisations drawn from {3, -1, 1, -3} x 50: the
    /// estimates agree with the exact moments within their errors, and tau is 1/2.
    #[test]
    fn random_data_agree_within_errors() {
        let mut rng = TestRng::new(11);
        let (mean_e, sigma_e) = (-1500.0, 40.0);
        let energies: Vec<Vec<f64>> = (0..4)
            .map(|_| {
                (0..5000)
                    .map(|_| mean_e + sigma_e * rng.gaussian())
                    .collect()
            })
            .collect();
        let magnetisations: Vec<Vec<i64>> = (0..4)
            .map(|_| {
                (0..5000)
                    .map(|_| [3, -1, 1, -3][rng.below(4) as usize] * 50)
                    .collect()
            })
            .collect();
        let got = ising_estimates(BETA, SITES, &energies, &magnetisations, UnitSize::SYSTEM);
        let n = SITES as f64;
        let unit = 50.0 / n;
        let want = [
            ("e", got.e, mean_e / n),
            ("c", got.c, BETA * BETA * sigma_e * sigma_e / n),
            ("abs_m", got.abs_m, 2.0 * unit),
            ("m2", got.m2, 5.0 * unit.powi(2)),
            ("m4", got.m4, 41.0 * unit.powi(4)),
            ("chi", got.chi, BETA * n * unit.powi(2)),
            ("u4", got.u4, 1.0 - 41.0 / 75.0),
        ];
        for (what, est, truth) in want {
            assert!(
                est.err > 0.0 && (est.mean - truth).abs() < 4.0 * est.err,
                "{what}: {est:?} vs {truth}"
            );
        }
        assert!(
            (0.5..0.6).contains(&got.tau_e) && (0.5..0.6).contains(&got.tau_abs_m),
            "{got:?}"
        );
        assert_eq!(got.samples, 20_000);
    }

    /// Four copies of one replica (lanes that met under shared randoms) are one unit: as one
    /// unit their error is that replica's alone; counted as four replicas it halves.
    #[test]
    fn identical_replicas_in_one_unit_add_no_information() {
        let mut rng = TestRng::new(3);
        let energies: Vec<f64> = (0..4000).map(|_| -1500.0 + 40.0 * rng.gaussian()).collect();
        let magnetisations: Vec<i64> = (0..4000).map(|_| rng.below(100) - 50).collect();
        let alone = ising_estimates(
            BETA,
            SITES,
            std::slice::from_ref(&energies),
            std::slice::from_ref(&magnetisations),
            UnitSize::SYSTEM,
        );
        let (energies, magnetisations) = (vec![energies; 4], vec![magnetisations; 4]);
        let unit = UnitSize {
            replicas: 4,
            samples: 1,
        };
        let together = ising_estimates(BETA, SITES, &energies, &magnetisations, unit);
        let apart = ising_estimates(BETA, SITES, &energies, &magnetisations, UnitSize::SYSTEM);
        assert_eq!((together.units, apart.units), (1, 4));
        for (what, one, joined, split) in [
            ("e", alone.e, together.e, apart.e),
            ("c", alone.c, together.c, apart.c),
            ("u4", alone.u4, together.u4, apart.u4),
        ] {
            assert!(
                (joined.mean - one.mean).abs() <= 1e-12 * one.mean.abs(),
                "{what}"
            );
            assert!((joined.err - one.err).abs() <= 1e-9 * one.err, "{what}");
            let ratio = split.err / one.err;
            assert!((ratio - 0.5).abs() < 0.05, "{what}: {ratio}");
        }
    }

    #[test]
    fn replicas_use_their_common_length_and_empty_input_is_nan() {
        let got = ising_estimates(
            BETA,
            SITES,
            &[vec![1.0, 2.0, 3.0]],
            &[vec![4, 6]],
            UnitSize::SYSTEM,
        );
        assert_eq!(got.samples, 2);
        assert_estimate("e", got.e, 1.5 / SITES as f64, 1e-15);
        let none = ising_estimates(BETA, SITES, &[], &[], UnitSize::SYSTEM);
        assert!(none.e.mean.is_nan() && none.u4.err.is_nan() && none.tau_e.is_nan());
        assert_eq!(none.samples, 0);
    }
}

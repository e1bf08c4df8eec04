//! The logarithmic-binning equilibration check: averages over the measurements of sweeps
//! `2^k .. 2^(k+1)` (thermalisation included), which drift while the systems still relax and
//! agree once they are in equilibrium. A run passes when the last two bins agree for every
//! observable within 3 combined standard errors (errors from the spread over independent units:
//! disorder samples, or replicas of the ferromagnet).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Estimate;

/// Bins whose difference exceeds this many combined errors fail the check.
pub const TOLERANCE_SIGMAS: f64 = 3.0;

/// The averages of one bin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogBin {
    /// Sweeps counted from 1: the bin holds measurements after sweeps `first..=last`.
    pub first_sweep: u64,
    pub last_sweep: u64,
    pub measurements: usize,
    pub averages: BTreeMap<String, Estimate>,
}

/// The check of one temperature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EquilibrationCheck {
    pub beta: f64,
    pub bins: Vec<LogBin>,
    /// Whether the last two bins agree (false also when there are fewer than two bins or
    /// fewer than two units to estimate errors from).
    pub stable: bool,
    /// Which observables drifted, in words; empty when stable.
    pub drift: String,
}

/// One observable: its name and, per unit, its value at every measurement.
pub struct UnitSeries<'a> {
    pub name: &'static str,
    pub units: &'a [Vec<f64>],
}

/// The check at `beta` of `observables`, measured after sweeps `sweeps[m]` (counted from 1).
pub fn log_binning(beta: f64, sweeps: &[u64], observables: &[UnitSeries]) -> EquilibrationCheck {
    let bins: Vec<LogBin> = log_bins(sweeps)
        .into_iter()
        .map(|(first_sweep, last_sweep, range)| LogBin {
            first_sweep,
            last_sweep,
            measurements: range.len(),
            averages: observables
                .iter()
                .map(|o| (o.name.to_string(), unit_mean(o.units, range.clone())))
                .collect(),
        })
        .collect();
    let drifting: Vec<String> = match bins.as_slice() {
        [.., previous, last] => observables
            .iter()
            .filter_map(|o| {
                let (a, b) = (&previous.averages[o.name], &last.averages[o.name]);
                let sigmas = (b.mean - a.mean).abs() / a.err.hypot(b.err);
                (sigmas.is_nan() || sigmas > TOLERANCE_SIGMAS).then(|| {
                    format!(
                        "{}: {:.6} ± {:.6} (sweeps {}..{}) vs {:.6} ± {:.6} (sweeps {}..{})",
                        o.name,
                        a.mean,
                        a.err,
                        previous.first_sweep,
                        previous.last_sweep,
                        b.mean,
                        b.err,
                        last.first_sweep,
                        last.last_sweep
                    )
                })
            })
            .collect(),
        _ => vec!["fewer than two logarithmic bins of measurements".to_string()],
    };
    EquilibrationCheck {
        beta,
        bins,
        stable: drifting.is_empty(),
        drift: drifting.join("; "),
    }
}

/// Bins `[2^k, 2^(k+1))` of the measurement sweeps that hold measurements, as (first sweep,
/// last sweep, measurement indices).
fn log_bins(sweeps: &[u64]) -> Vec<(u64, u64, std::ops::Range<usize>)> {
    let mut bins = Vec::new();
    let mut start = 0;
    while start < sweeps.len() {
        let k = 63 - sweeps[start].max(1).leading_zeros();
        let end_sweep = 1u64 << (k + 1);
        let end = start
            + sweeps[start..]
                .iter()
                .take_while(|&&s| s < end_sweep)
                .count();
        bins.push((1 << k, end_sweep - 1, start..end));
        start = end;
    }
    bins
}

/// The mean over units of each unit's mean over `range`, with its standard error.
fn unit_mean(units: &[Vec<f64>], range: std::ops::Range<usize>) -> Estimate {
    let means: Vec<f64> = units
        .iter()
        .map(|series| series[range.clone()].iter().sum::<f64>() / range.len() as f64)
        .collect();
    let n = means.len() as f64;
    let mean = means.iter().sum::<f64>() / n;
    let variance = means.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Estimate {
        mean,
        err: (variance / n).sqrt(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_double_in_length() {
        let sweeps: Vec<u64> = (1..=40).map(|m| 3 * m).collect();
        let bins = log_bins(&sweeps);
        let edges: Vec<(u64, u64, usize)> =
            bins.iter().map(|(a, b, r)| (*a, *b, r.len())).collect();
        // 3 | 6 | 9 12 15 | 18 .. 30 | 33 .. 63 | 66 .. 120
        assert_eq!(
            edges,
            vec![
                (2, 3, 1),
                (4, 7, 1),
                (8, 15, 3),
                (16, 31, 5),
                (32, 63, 11),
                (64, 127, 19)
            ]
        );
    }

    /// A relaxing observable fails until its last two bins agree.
    #[test]
    fn drift_is_found_and_equilibrium_passes() {
        let sweeps: Vec<u64> = (1..=512).collect();
        let units = |relax: f64| -> Vec<Vec<f64>> {
            (0..8)
                .map(|u| {
                    sweeps
                        .iter()
                        .map(|&s| (-(s as f64) / relax).exp() + 0.01 * ((u * 7 + s) % 5) as f64)
                        .collect()
                })
                .collect()
        };
        let slow = units(200.0);
        let check = log_binning(
            0.5,
            &sweeps,
            &[UnitSeries {
                name: "e",
                units: &slow,
            }],
        );
        assert!(!check.stable);
        assert!(check.drift.starts_with("e: "), "{}", check.drift);
        let fast = units(2.0);
        let check = log_binning(
            0.5,
            &sweeps,
            &[UnitSeries {
                name: "e",
                units: &fast,
            }],
        );
        assert!(check.stable, "{}", check.drift);
        assert_eq!(check.bins.len(), 10);
    }
}

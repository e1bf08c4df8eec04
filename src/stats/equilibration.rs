//! The logarithmic-binning equilibration check: averages over the measurements of the last
//! half of the run's sweeps, the quarter before it, the eighth before that and so on
//! (thermalisation included), which drift while the systems still relax and agree once they are
//! in equilibrium. Errors come from the spread over independent units
//! (disorder samples, or replicas of the ferromagnet).
//!
//! The verdict of one temperature is one of three, so that a short run cannot pass:
//!
//! - *drifting*: the last two bins differ by more than 3 combined standard errors in some
//!   observable;
//! - *not enough data to judge*: fewer than two independent units (no spread to take errors
//!   from), fewer than [`MIN_BINS`] bins (too little of the relaxation to see), or jackknife
//!   blocks shorter than [`TAUS_PER_BLOCK`] autocorrelation times (the README's rule: the
//!   errors, and `tau_int` itself, are then underestimated, and so is any drift);
//! - *stable* otherwise.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Estimate;
use super::ising::BLOCKS_PER_REPLICA;
use crate::config::TemperatureScale;

/// Bins whose difference exceeds this many combined errors fail the check.
pub const TOLERANCE_SIGMAS: f64 = 3.0;

/// Fewer logarithmic bins than this are not enough to judge: with four, the last two hold the
/// last three quarters of the run and two earlier ones show where it came from.
pub const MIN_BINS: usize = 4;

/// Each jackknife block of the production must span at least this many integrated
/// autocorrelation times for its errors, and for `tau_int` itself, to be trusted.
pub const TAUS_PER_BLOCK: f64 = 20.0;

/// The verdict of one temperature (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Stable,
    Drifting,
    /// Also what a summary written before the verdict existed reads back as.
    #[default]
    NotEnoughData,
}

impl Verdict {
    /// The verdict in words, as the table prints it.
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Stable => "stable",
            Verdict::Drifting => "drifting",
            Verdict::NotEnoughData => "not enough data to judge",
        }
    }
}

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
    #[serde(default)]
    pub verdict: Verdict,
    /// Whether the verdict is [`Verdict::Stable`] (for readers of older summaries' field).
    pub stable: bool,
    /// Why the verdict is not stable, in words (which observables drifted, or what data is
    /// missing and how much a run would need); empty when stable.
    #[serde(alias = "drift")]
    pub reason: String,
}

/// One observable: its name and, per unit, its value at every measurement.
pub struct UnitSeries<'a> {
    pub name: &'static str,
    pub units: &'a [Vec<f64>],
}

/// What the verdict needs to know of the production measurements, beside the bins.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Production {
    /// Measurements after thermalisation, per unit.
    pub measurements: usize,
    /// Sweeps between measurements.
    pub every: u64,
    /// The largest integrated autocorrelation time of the observables, in measurements
    /// ([`largest_tau`]).
    pub tau: f64,
    /// The observable whose autocorrelation time `tau` is, as the reason names it.
    pub tau_of: &'static str,
}

/// The largest of the integrated autocorrelation times `taus` (observable, tau), those not
/// estimated (NaN: a glass's `q2` with one replica) aside, and whose it is; the first of equal
/// ones.
pub fn largest_tau(taus: &[(&'static str, f64)]) -> (&'static str, f64) {
    let estimated = taus.iter().copied().filter(|(_, tau)| !tau.is_nan());
    estimated
        .reduce(|largest, next| match next.1 > largest.1 {
            true => next,
            false => largest,
        })
        .unwrap_or(("no observable", f64::NAN))
}

impl Production {
    /// Measurements per jackknife block of a unit.
    fn block_length(&self) -> usize {
        self.measurements / BLOCKS_PER_REPLICA
    }

    /// Measurements of a production whose every block spans [`TAUS_PER_BLOCK`] times `tau`.
    fn measurements_needed(&self) -> u64 {
        (BLOCKS_PER_REPLICA as f64 * (TAUS_PER_BLOCK * self.tau).ceil()) as u64
    }
}

/// The verdict of a run's `checks` for its table: how many temperatures (shown in `scale`) are
/// stable, why each other one is not, then every one of its `warnings`.
pub fn verdict_lines(
    checks: &[EquilibrationCheck],
    warnings: &[String],
    scale: TemperatureScale,
) -> String {
    let count = |verdict: Verdict| checks.iter().filter(|c| c.verdict == verdict).count();
    let mut lines = format!(
        "equilibration (logarithmic bins): {} of {} temperatures stable",
        count(Verdict::Stable),
        checks.len()
    );
    for verdict in [Verdict::Drifting, Verdict::NotEnoughData] {
        if count(verdict) > 0 {
            lines += &format!(", {} {}", count(verdict), verdict.words());
        }
    }
    lines.push('\n');
    for check in checks.iter().filter(|c| c.verdict != Verdict::Stable) {
        lines += &format!(
            "  {}: {}: {}\n",
            scale.show(check.beta),
            check.verdict.words(),
            check.reason
        );
    }
    for warning in warnings {
        lines += &format!("warning: {warning}\n");
    }
    lines
}

/// The check at `beta` of `observables`, measured after sweeps `sweeps[m]` (counted from 1),
/// whose production (the measurements after thermalisation) is `production`.
pub fn log_binning(
    beta: f64,
    sweeps: &[u64],
    observables: &[UnitSeries],
    production: Production,
) -> EquilibrationCheck {
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
    let units = observables.iter().map(|o| o.units.len()).min().unwrap_or(0);
    let (verdict, reason) = judge(&bins, observables, units, production);
    EquilibrationCheck {
        beta,
        bins,
        verdict,
        stable: verdict == Verdict::Stable,
        reason,
    }
}

/// The verdict and its reason: a drift found is definite; otherwise missing data stops the
/// judgement before it can pass.
fn judge(
    bins: &[LogBin],
    observables: &[UnitSeries],
    units: usize,
    production: Production,
) -> (Verdict, String) {
    if units < 2 {
        let reason = format!(
            "{units} independent unit: no spread over units to take the bins' errors from \
             (run two or more replicas or samples)"
        );
        return (Verdict::NotEnoughData, reason);
    }
    let drifting = drifts(bins, observables);
    if !drifting.is_empty() {
        return (Verdict::Drifting, drifting.join("; "));
    }
    if bins.len() < MIN_BINS {
        let reason = format!(
            "{} logarithmic bins of measurements, at least {MIN_BINS} needed (measure over \
             more sweeps)",
            bins.len()
        );
        return (Verdict::NotEnoughData, reason);
    }
    if (production.block_length() as f64) < TAUS_PER_BLOCK * production.tau {
        let needed = production.measurements_needed();
        let reason = format!(
            "each of the {BLOCKS_PER_REPLICA} jackknife blocks holds {} measurements, fewer \
             than {TAUS_PER_BLOCK} tau = {:.1} (tau_int of {} {:.2} measurements): measure at \
             least {needed} times ({} sweeps with every: {})",
            production.block_length(),
            TAUS_PER_BLOCK * production.tau,
            production.tau_of,
            production.tau,
            needed * production.every,
            production.every
        );
        return (Verdict::NotEnoughData, reason);
    }
    (Verdict::Stable, String::new())
}

/// The observables whose last two bins differ by more than [`TOLERANCE_SIGMAS`] combined
/// errors, in words. Equal means agree even with zero errors (a frozen system).
fn drifts(bins: &[LogBin], observables: &[UnitSeries]) -> Vec<String> {
    let [.., previous, last] = bins else {
        return Vec::new();
    };
    observables
        .iter()
        .filter_map(|o| {
            let (a, b) = (&previous.averages[o.name], &last.averages[o.name]);
            let difference = (b.mean - a.mean).abs();
            (difference > TOLERANCE_SIGMAS * a.err.hypot(b.err)).then(|| {
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
        .collect()
}

/// Bins of the measurement sweeps anchored at the last one, `S`: sweeps `(S/2, S]`, then
/// `(S/4, S/2]` and so on (integer halving), those that hold measurements, in the order of the
/// sweeps, as (first sweep, last sweep, measurement indices). Anchoring at the end makes the
/// last two bins always the last half of the run and the quarter before it, never a sliver.
fn log_bins(sweeps: &[u64]) -> Vec<(u64, u64, std::ops::Range<usize>)> {
    let mut bins = Vec::new();
    let (mut upper, mut end) = (sweeps.last().copied().unwrap_or(0), sweeps.len());
    while end > 0 && upper > 0 {
        let lower = upper / 2;
        let start = sweeps[..end].partition_point(|&s| s <= lower);
        if start < end {
            bins.push((lower + 1, upper, start..end));
        }
        (upper, end) = (lower, start);
    }
    bins.reverse();
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
        // 3 | 6 | 9 12 15 | 18 .. 30 | 33 .. 60 | 63 .. 120
        assert_eq!(
            edges,
            vec![
                (2, 3, 1),
                (4, 7, 1),
                (8, 15, 3),
                (16, 30, 5),
                (31, 60, 10),
                (61, 120, 20)
            ]
        );
        assert_eq!(bins[5].2, 20..40);
    }

    /// A long production of uncorrelated measurements: blocks far beyond 20 tau.
    const LONG: Production = Production {
        measurements: 512,
        every: 1,
        tau: 0.5,
        tau_of: "e",
    };

    /// Per unit, `relaxation(sweep)` plus a small unit-dependent wobble.
    fn units(sweeps: &[u64], count: u64, relaxation: impl Fn(f64) -> f64) -> Vec<Vec<f64>> {
        (0..count)
            .map(|u| {
                sweeps
                    .iter()
                    .map(|&s| relaxation(s as f64) + 0.01 * ((u * 7 + s) % 5) as f64)
                    .collect()
            })
            .collect()
    }

    fn check_of(sweeps: &[u64], units: &[Vec<f64>], production: Production) -> EquilibrationCheck {
        log_binning(0.5, sweeps, &[UnitSeries { name: "e", units }], production)
    }

    /// A relaxing observable fails until its last two bins agree.
    #[test]
    fn drift_is_found_and_equilibrium_passes() {
        let sweeps: Vec<u64> = (1..=512).collect();
        let slow = units(&sweeps, 8, |s| (-s / 200.0).exp());
        let check = check_of(&sweeps, &slow, LONG);
        assert_eq!(check.verdict, Verdict::Drifting);
        assert!(!check.stable);
        assert!(check.reason.starts_with("e: "), "{}", check.reason);
        let fast = units(&sweeps, 8, |s| (-s / 2.0).exp());
        let check = check_of(&sweeps, &fast, LONG);
        assert_eq!(check.verdict, Verdict::Stable, "{}", check.reason);
        assert!(check.stable);
        assert_eq!(check.bins.len(), 10);
    }

    /// The same equilibrated data cannot pass when its blocks are shorter than 20 tau, when
    /// there are too few bins, or with one unit: each says what is missing.
    #[test]
    fn too_little_data_is_not_judged_stable() {
        let sweeps: Vec<u64> = (1..=512).collect();
        let flat = units(&sweeps, 8, |_| 1.0);
        let correlated = Production {
            tau: 2.0,
            tau_of: "|m|",
            ..LONG
        };
        let check = check_of(&sweeps, &flat, correlated);
        assert_eq!(check.verdict, Verdict::NotEnoughData);
        assert!(!check.stable);
        // 32 measurements a block against 20 tau = 40: 16 blocks of 40 are 640 measurements.
        assert!(
            check.reason.contains("holds 32 measurements")
                && check.reason.contains("(tau_int of |m| 2.00 measurements)")
                && check.reason.contains("640 times"),
            "{}",
            check.reason
        );
        let short: Vec<u64> = (1..=7).collect();
        let check = check_of(&short, &units(&short, 8, |_| 1.0), LONG);
        assert_eq!(check.verdict, Verdict::NotEnoughData);
        assert!(
            check.reason.starts_with("3 logarithmic bins"),
            "{}",
            check.reason
        );
        let check = check_of(&sweeps, &flat[..1], LONG);
        assert_eq!(check.verdict, Verdict::NotEnoughData);
        assert!(
            check.reason.contains("1 independent unit"),
            "{}",
            check.reason
        );
    }

    /// Systems frozen in one state have equal bins with zero errors: that is agreement.
    #[test]
    fn frozen_systems_are_stable() {
        let sweeps: Vec<u64> = (1..=512).collect();
        let frozen = vec![vec![-2.0; sweeps.len()]; 4];
        let check = check_of(&sweeps, &frozen, LONG);
        assert_eq!(check.verdict, Verdict::Stable, "{}", check.reason);
    }

    /// Older summaries named the reason `drift` and had no verdict.
    #[test]
    fn older_checks_read_back() {
        let old = r#"{"beta": 0.4, "bins": [], "stable": true, "drift": ""}"#;
        let check: EquilibrationCheck = serde_json::from_str(old).unwrap();
        assert_eq!(check.verdict, Verdict::NotEnoughData);
        assert!(check.reason.is_empty());
    }

    /// The largest estimated tau is named: NaN (not estimated) is passed over, ties keep the
    /// first.
    #[test]
    fn the_largest_tau_is_named() {
        assert_eq!(largest_tau(&[("e", 0.56), ("|m|", 19.13)]), ("|m|", 19.13));
        assert_eq!(largest_tau(&[("e", 3.0), ("q2", f64::NAN)]), ("e", 3.0));
        assert_eq!(largest_tau(&[("e", 2.0), ("|m|", 2.0)]), ("e", 2.0));
    }
}

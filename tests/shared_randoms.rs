//! Honest errors with `randoms: Shared`: the lanes of a multispin word share their random
//! numbers, so the 32 replicas of a word are one independent unit, not 32. Over independent
//! seeds the spread of the mean must agree with the error each run reports.

mod common;

use common::run_summary;
use spinflip::stats::Estimate;

/// Independent runs: the ratio (spread of the means over seeds) / (mean reported error) has a
/// sampling error of about `1 / sqrt(2 (SEEDS - 1))` = 0.11.
const SEEDS: u64 = 40;

/// 2D Ising, L = 16 near beta_c, 64 replicas in two AMSC words with shared randoms on the CPU
/// multispin engine (the same bits as the GPU engines), one run per seed.
fn shared_run(seed: u64) -> (Estimate, Estimate) {
    let summary = run_summary(&format!(
        r#"(
            model: Ising(dims: 2, size: 16, field: 0.0),
            temperatures: Betas([0.42]),
            replicas: 64,
            engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Shared),
            sweeps: (thermalize: 500, measure: 4000, every: 4),
            seed: {seed},
            backend: Cpu,
        )"#
    ));
    let estimates = &summary.runs[0].estimates;
    assert_eq!(
        estimates.units, 2,
        "64 replicas in shared words are 2 units"
    );
    (estimates.e, estimates.abs_m)
}

/// Standard deviation of the means over seeds divided by the mean reported error.
fn spread_over_error(estimates: &[Estimate]) -> f64 {
    let n = estimates.len() as f64;
    let mean = estimates.iter().map(|e| e.mean).sum::<f64>() / n;
    let variance = estimates
        .iter()
        .map(|e| (e.mean - mean).powi(2))
        .sum::<f64>()
        / (n - 1.0);
    let reported = estimates.iter().map(|e| e.err).sum::<f64>() / n;
    variance.sqrt() / reported
}

/// Before the lanes of a word were one unit, the reported errors treated the 64 replicas as
/// independent: the ratio was 5.90 for e and 5.79 for |m| (about sqrt(32): at L = 16 the lanes
/// of a word soon merge into one configuration); now it is 1.03 and 1.01. The bound is three
/// times the ratio's sampling error. About 30 s on two cores.
#[test]
fn spread_over_seeds_matches_the_reported_error() {
    let (energies, magnetisations): (Vec<Estimate>, Vec<Estimate>) =
        (1..=SEEDS).map(shared_run).unzip();
    let tolerance = 3.0 / (2.0 * (SEEDS as f64 - 1.0)).sqrt();
    for (what, estimates) in [("e", &energies), ("|m|", &magnetisations)] {
        let ratio = spread_over_error(estimates);
        eprintln!("{what}: spread over {SEEDS} seeds / reported error = {ratio:.3}");
        assert!(
            (ratio - 1.0).abs() < tolerance,
            "{what}: the spread over seeds is {ratio:.3} times the reported error \
             (allowed 1 +- {tolerance:.2})"
        );
    }
}

/// The spin glass with samples in shared lanes: 64 samples are 2 units of the disorder average.
#[test]
fn shared_sample_lanes_are_units_of_the_disorder_average() {
    let summary = run_summary(
        r#"(
            model: EdwardsAnderson(dims: 2, size: 4, field: 0.0),
            temperatures: Betas([0.5]),
            replicas: 2,
            samples: 64,
            engine: Multispin(layout: Amsc(lanes: Samples), randoms: Shared),
            sweeps: (thermalize: 10, measure: 100, every: 10),
            seed: 3,
            backend: Cpu,
        )"#,
    );
    assert_eq!(summary.spin_glass[0].units, 2);
    assert!(
        summary.independent_unit.starts_with("32 samples"),
        "{}",
        summary.independent_unit
    );
    assert!(summary.spin_glass[0].e.err > 0.0);
}

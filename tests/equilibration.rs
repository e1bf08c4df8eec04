//! The equilibration verdict of whole runs (CPU engine, fixed seeds): a run too short to show
//! equilibrium is not judged stable, and its estimates' distance from Kaufman's exact values is
//! warned about; a long run of the same system is stable with no warning.

mod common;

use common::run_summary;
use spinflip::metropolis::Summary;
use spinflip::stats::Verdict;

/// The 2D ferromagnet at L = 16 at beta_c, 32 replicas in a multispin word, with `sweeps`.
fn critical_run(sweeps: &str) -> Summary {
    run_summary(&format!(
        r#"(
            model: Ising(dims: 2, size: 16, field: 0.0),
            temperatures: Betas([0.4406868]),
            replicas: 32,
            engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact),
            sweeps: {sweeps},
            seed: 31,
            backend: Cpu,
        )"#
    ))
}

#[test]
fn a_short_run_is_not_judged_and_a_long_one_is_stable() {
    let short = critical_run("(thermalize: 0, measure: 64, every: 1)");
    let check = &short.equilibration[0];
    assert_eq!(check.verdict, Verdict::NotEnoughData, "{}", check.reason);
    assert!(!check.stable);
    assert!(
        check
            .reason
            .contains("each of the 16 jackknife blocks holds 4 measurements"),
        "{}",
        check.reason
    );
    let e = &short.runs[0].estimates.e;
    let exact = short.runs[0].exact.expect("Kaufman").e;
    eprintln!(
        "short: e = {} ± {} vs {exact}; {:?}",
        e.mean, e.err, short.warnings
    );
    assert!(
        short.warnings.iter().any(|w| w.contains(": e = ")),
        "a hot start 64 sweeps from beta_c is far from Kaufman's e: {:?}",
        short.warnings
    );

    let long = critical_run("(thermalize: 1000, measure: 32000, every: 4)");
    let check = &long.equilibration[0];
    assert_eq!(check.verdict, Verdict::Stable, "{}", check.reason);
    assert!(check.stable && check.reason.is_empty());
    assert!(long.warnings.is_empty(), "{:?}", long.warnings);
}

//! Parallel tempering physics (CPU engine; the GPU engines take the same decisions bit for bit,
//! see the equality tests): small 2D Edwards-Anderson samples against exact enumeration at low
//! temperatures, where plain Metropolis with the same sweeps stays out of equilibrium, and the
//! 2D ferromagnet against Kaufman's exact solution across a ladder; Houdayer's replica moves
//! inside tempering (the vector engine's two states) against the same enumeration.

mod common;

use common::{assert_within, config, run_summary};
use spinflip::config::Disorder;
use spinflip::exact::enumerate;
use spinflip::io::run_dir::RunOptions;
use spinflip::metropolis::Summary;
use spinflip::model::Lattice;
use spinflip::model::couplings::coupling_values;
use spinflip::run::{RunOutcome, run};
use spinflip::stats::Verdict;
use spinflip::vector::VectorSummary;

const SEED: u64 = 2718;
const SAMPLES: u32 = 32;

/// A 4x4 spin glass, 32 samples in the lanes, a ladder from beta 0.3 to 3, by `algorithm`.
fn spin_glass_run(algorithm: &str) -> Summary {
    run_summary(&format!(
        r#"(
            model: EdwardsAnderson(dims: 2, size: 4, field: 0.0),
            temperatures: LinearBeta(min: 0.3, max: 3.0, count: 10),
            replicas: 2,
            samples: {SAMPLES},
            engine: Multispin(layout: Amsc(lanes: Samples), randoms: Exact),
            sweeps: (thermalize: 400, measure: 4000, every: 4),
            algorithm: {algorithm},
            seed: {SEED},
            backend: Cpu,
        )"#
    ))
}

/// Mean over samples of (measured - exact) of `what` at temperature `t`, in units of its error
/// (the spread of the differences over samples, so disorder fluctuations cancel).
fn deviation(summary: &Summary, t: usize, what: &str) -> (f64, f64) {
    let temperature = &summary.spin_glass[t];
    let measured = |s: usize| {
        let sample = &temperature.per_sample[s];
        match what {
            "e" => sample.e,
            _ => sample.q2,
        }
    };
    exact_deviation(temperature.beta, what, measured)
}

/// Mean over samples `s` of `measured(s) - exact` of `what` ("e" or "q2") at `beta`, and its
/// error from the differences' spread.
fn exact_deviation(beta: f64, what: &str, measured: impl Fn(usize) -> f64) -> (f64, f64) {
    let lattice = Lattice::new(2, 4);
    let differences: Vec<f64> = (0..SAMPLES)
        .map(|s| {
            let couplings = coupling_values(Disorder::Bimodal, &lattice, SEED, s);
            let exact = enumerate(lattice, &couplings, 0.0, beta);
            let exact = match what {
                "e" => exact.e,
                _ => exact.q2,
            };
            measured(s as usize) - exact
        })
        .collect();
    let n = differences.len() as f64;
    let mean = differences.iter().sum::<f64>() / n;
    let var = differences.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

#[test]
fn tempering_equilibrates_a_spin_glass_where_metropolis_does_not() {
    let tempering = spin_glass_run("Tempering(every: 1)");
    let metropolis = spin_glass_run("Metropolis");
    let diagnostics = tempering.tempering.as_ref().expect("tempering diagnostics");
    eprintln!("{diagnostics:?}");
    for (run, name) in [(&tempering, "tempering"), (&metropolis, "metropolis")] {
        assert_eq!(
            run.equilibration.len(),
            10,
            "{name}: a check per temperature"
        );
        for check in &run.equilibration {
            assert!(
                check.bins.len() >= 8,
                "{name}: logarithmic bins up to 4400 sweeps"
            );
            eprintln!(
                "{name} beta {:.2}: stable {} {}",
                check.beta, check.stable, check.reason
            );
        }
    }
    assert_eq!(diagnostics.chain_sets_without_round_trip, 0);
    // The verdict flips with the algorithm: tempering's checks all pass, with no warning (the
    // estimates against enumeration of every sample, every chain's round trips); plain
    // Metropolis with the same sweeps cannot be judged stable at the lowest temperature.
    assert!(
        tempering
            .equilibration
            .iter()
            .all(|c| c.verdict == Verdict::Stable),
        "tempering: every temperature stable"
    );
    assert!(tempering.warnings.is_empty(), "{:?}", tempering.warnings);
    let coldest = metropolis.equilibration.last().unwrap();
    assert_ne!(coldest.verdict, Verdict::Stable, "metropolis at beta 3");
    let mut spread_ratio = 0.0;
    for t in 0..tempering.spin_glass.len() {
        let beta = tempering.spin_glass[t].beta;
        for what in ["e", "q2"] {
            let (d, err) = deviation(&tempering, t, what);
            let (md, merr) = deviation(&metropolis, t, what);
            eprintln!(
                "beta {beta:.2} {what}: tempering {d:+.5} ± {err:.5} ({:+.1} sigma), \
                 metropolis {md:+.5} ± {merr:.5} ({:+.1} sigma)",
                d / err,
                md / merr
            );
            assert!(err > 0.0 && err < 0.05, "beta {beta} {what}: error {err}");
            assert!(
                (d / err).abs() <= 4.0,
                "beta {beta} {what}: tempering is {:+.1} sigma from exact",
                d / err
            );
            if what == "q2" {
                spread_ratio = merr / err;
            }
        }
    }
    // At the lowest temperature plain Metropolis stays in the valleys it fell into: its
    // per-sample q^2 scatters around the exact values far beyond the thermal noise that the
    // equilibrated tempering run shows with the same sweeps.
    assert!(
        spread_ratio > 5.0,
        "plain Metropolis should fail at the lowest temperature with these sweeps (its q2 \
         scatter is only {spread_ratio:.1}x tempering's), or the test shows nothing about \
         tempering"
    );
}

#[test]
fn tempering_ferromagnet_matches_kaufman_across_the_ladder() {
    let summary = run_summary(
        r#"(
            model: Ising(dims: 2, size: 8, field: 0.0),
            temperatures: LinearBeta(min: 0.3, max: 0.6, count: 8),
            replicas: 4,
            sweeps: (thermalize: 500, measure: 16000, every: 2),
            algorithm: Tempering(every: 1),
            seed: 99,
            backend: Cpu,
        )"#,
    );
    let diagnostics = summary.tempering.as_ref().expect("tempering diagnostics");
    assert!(diagnostics.acceptance.iter().all(|&a| a > 0.2 && a < 1.0));
    assert!(diagnostics.round_trips > 0);
    for run in &summary.runs {
        let exact = run.exact.expect("2D zero field has Kaufman's values");
        let case = format!("2D Ising L=8 tempering beta={:.4}", run.estimates.beta);
        assert_within(&format!("{case} e"), run.estimates.e, exact.e, 0.0, 0.01);
        assert_within(&format!("{case} c"), run.estimates.c, exact.c, 0.0, 0.05);
    }
}

/// Tuning moves a ladder with a bottleneck towards equal swap acceptance, freezes it, and the
/// run on the tuned ladder still matches Kaufman's values at its temperatures.
#[test]
fn tuned_ladder_equalises_acceptance_and_stays_exact() {
    let run = |tune: bool| {
        run_summary(&format!(
            r#"(
                model: Ising(dims: 2, size: 8, field: 0.0),
                temperatures: GeometricT(min: 1.2, max: 4.0, count: 6),
                replicas: 4,
                sweeps: (thermalize: 4000, measure: 12000, every: 2),
                algorithm: Tempering(every: 1, tune: {tune}),
                seed: 5,
                backend: Cpu,
            )"#
        ))
    };
    let spread = |s: &spinflip::metropolis::Summary| {
        let a = &s.tempering.as_ref().unwrap().acceptance;
        let (low, high) = a
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        eprintln!("acceptance {a:?}");
        high - low
    };
    let (fixed, tuned) = (run(false), run(true));
    let diagnostics = tuned.tempering.as_ref().unwrap();
    assert_eq!(
        diagnostics.counted_from_sweep, 2000,
        "frozen after half the thermalisation"
    );
    let (betas, untuned) = (&diagnostics.betas, &fixed.tempering.as_ref().unwrap().betas);
    assert_eq!(
        (betas[0], betas[5]),
        (untuned[0], untuned[5]),
        "the ends stay"
    );
    assert_ne!(betas, untuned, "the inner rungs move");
    assert!(
        betas.windows(2).all(|w| w[1] < w[0]),
        "ascending in T: {betas:?}"
    );
    assert!(
        spread(&tuned) < 0.5 * spread(&fixed),
        "tuning should even out the acceptance"
    );
    for run in &tuned.runs {
        let exact = run.exact.expect("2D zero field");
        let case = format!("tuned ladder beta={:.4}", run.estimates.beta);
        assert_within(&format!("{case} e"), run.estimates.e, exact.e, 0.0, 0.01);
    }
}

/// The diagnostics files: every chain's round trips add up to the summary's, and the temperature
/// history holds every walker of every chain of sample 0 at every measurement.
#[test]
fn round_trip_and_history_files_agree_with_the_summary() {
    let config = common::config(
        r#"(
            model: EdwardsAnderson(dims: 2, size: 4, field: 0.0),
            temperatures: LinearBeta(min: 0.3, max: 1.0, count: 4),
            replicas: 2,
            samples: 32,
            engine: Multispin(layout: Amsc(lanes: Samples), randoms: Exact),
            sweeps: (thermalize: 100, measure: 400, every: 10),
            algorithm: Tempering(every: 1),
            seed: 3,
            backend: Cpu,
        )"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let options = spinflip::io::run_dir::RunOptions::new(dir.path());
    let summary = common::completed(spinflip::run::run(&config, &options).unwrap());
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let trips: u64 = read("round_trips.csv")
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse::<u64>().unwrap())
        .sum();
    let diagnostics = summary.tempering.as_ref().unwrap();
    assert!(trips > 0);
    assert_eq!(trips, diagnostics.round_trips);
    assert_eq!(read("round_trips.csv").lines().count(), 1 + 32 * 2);
    // 50 measurements (10 while thermalising), 2 chains of sample 0, 4 walkers each.
    let history = read("temperature_history.csv");
    assert_eq!(history.lines().count(), 1 + 50 * 2 * 4);
    // At every measurement each chain's walkers occupy every temperature once.
    let rows: Vec<Vec<u64>> = history
        .lines()
        .skip(1)
        .map(|l| l.split(',').take(5).map(|f| f.parse().unwrap()).collect())
        .collect();
    for at in rows.chunks(4) {
        let mut walkers: Vec<u64> = at.iter().map(|r| r[3]).collect();
        walkers.sort_unstable();
        assert_eq!(walkers, vec![0, 1, 2, 3]);
    }
}

/// Houdayer's moves inside tempering, on the vector engine's two states of the same samples:
/// every sample's q^2 against enumeration, and the samples' mean energy against theirs, at
/// every temperature of the ladder down to T = 1/3.
#[test]
fn houdayer_moves_inside_tempering_keep_every_sample_exact() {
    let text = format!(
        r#"(
                model: EdwardsAnderson(dims: 2, size: 4, field: 0.0),
                temperatures: LinearBeta(min: 0.3, max: 3.0, count: 10),
                replicas: 2,
                samples: {SAMPLES},
                sweeps: (thermalize: 400, measure: 2000, every: 4),
                algorithm: Tempering(every: 1, moves: Houdayer()),
                seed: {SEED},
                backend: Cpu,
            )"#
    );
    let dir = tempfile::tempdir().unwrap();
    let moved: VectorSummary = match run(&config(&text), &RunOptions::new(dir.path())).unwrap() {
        RunOutcome::Vector(summary) => *summary,
        other => panic!("not a finished vector run: {other:?}"),
    };
    assert!(moved.updates.contains("Houdayer"), "{}", moved.updates);
    // Every temperature's moves swap clusters: nearly always at high T, where half the sites
    // disagree, less often near the ground states, where the replicas mostly agree.
    assert_eq!(moved.replica_moves.len(), 10);
    for m in &moved.replica_moves {
        eprintln!(
            "beta {:.2}: {:.3} swapped, |C|/N {:.3}",
            m.beta, m.acceptance, m.cluster_fraction
        );
        assert!(m.acceptance > 0.05 && m.acceptance <= 1.0, "{m:?}");
        assert!(
            m.cluster_fraction > 1.0 / 16.0 && m.cluster_fraction <= 1.0,
            "{m:?}"
        );
    }
    for (t, glass) in moved.spin_glass.iter().enumerate() {
        let (d, err) = exact_deviation(glass.beta, "q2", |s| glass.per_sample[s].q2);
        eprintln!("beta {:.2} q2: {d:+.5} ± {err:.5}", glass.beta);
        assert!(
            err > 0.0 && err < 0.05,
            "beta {} q2: error {err}",
            glass.beta
        );
        assert!(
            (d / err).abs() <= 4.0,
            "beta {} q2: {:+.1} sigma",
            glass.beta,
            d / err
        );
        let lattice = Lattice::new(2, 4);
        let exact_e = (0..SAMPLES)
            .map(|s| {
                let couplings = coupling_values(Disorder::Bimodal, &lattice, SEED, s);
                enumerate(lattice, &couplings, 0.0, glass.beta).e
            })
            .sum::<f64>()
            / f64::from(SAMPLES);
        assert_within(
            &format!("beta {:.2} e", glass.beta),
            moved.runs[t].e,
            exact_e,
            0.0,
            0.05,
        );
    }
}

//! Physics of the multispin engine on the GPU (lavapipe in CI), fixed seeds, bounds in units of
//! the estimated error: a 4x4 Edwards-Anderson sample enumerated exactly (2^16 states) against
//! an AMSC run with temperatures in lanes (e, |m|, q^2 and the link overlap q_l from two replica
//! sets); SMSC 2D Ising against Kaufman's exact e and c; both with exact and with packed
//! randoms; the multispin and simple engines agree in distribution.

mod common;

use common::{assert_within, run_summary};
use spinflip::config::Disorder;
use spinflip::exact::enumerate;
use spinflip::model::Lattice;
use spinflip::model::couplings::coupling_values;

fn edwards_anderson_4x4_against_enumeration(field: f64, betas: &[f64], randoms: &str) {
    let seed = 424242;
    let summary = run_summary(&format!(
        r#"(
            model: EdwardsAnderson(dims: 2, size: 4, field: {field:?}),
            temperatures: Betas({betas:?}),
            replicas: 8,
            samples: 1,
            engine: Multispin(layout: Amsc(lanes: Temperatures), randoms: {randoms}),
            sweeps: (thermalize: 500, measure: 20000, every: 2),
            seed: {seed},
            backend: Wgpu,
        )"#
    ));
    assert_eq!(summary.spin_glass.len(), betas.len());
    let lattice = Lattice::new(2, 4);
    let couplings = coupling_values(Disorder::Bimodal, &lattice, seed, 0);
    assert!(couplings.iter().any(|&j| j < 0) && couplings.iter().any(|&j| j > 0));
    for t in &summary.spin_glass {
        let exact = enumerate(lattice, &couplings, field, t.beta);
        let case = format!("EA 4x4 h={field} beta={} {randoms}", t.beta);
        assert_within(&format!("{case} e"), t.e, exact.e, 0.0, 0.02);
        assert_within(&format!("{case} |m|"), t.abs_m, exact.abs_m, 0.0, 0.02);
        assert_within(&format!("{case} q2"), t.overlaps.q2, exact.q2, 0.0, 0.02);
        assert_within(&format!("{case} ql"), t.overlaps.ql, exact.ql, 0.0, 0.02);
    }
}

#[test]
fn edwards_anderson_sample_matches_exact_enumeration() {
    edwards_anderson_4x4_against_enumeration(0.0, &[0.25, 0.5, 0.8, 1.2], "Exact");
}

#[test]
fn edwards_anderson_in_a_field_matches_exact_enumeration() {
    edwards_anderson_4x4_against_enumeration(0.35, &[0.4, 0.9], "Exact");
}

/// Shared randoms correlate the lanes of a word, but every lane on its own is still a correct
/// Metropolis chain: its averages are right.
#[test]
fn shared_randoms_keep_each_lane_exact() {
    edwards_anderson_4x4_against_enumeration(0.0, &[0.5, 1.0], "Shared");
}

/// Packed randoms draw a word's tail from a stream it shares with the other words of its run:
/// every lane's uniform is still its own, so the averages are exact.
#[test]
fn packed_randoms_match_exact_enumeration() {
    edwards_anderson_4x4_against_enumeration(0.0, &[0.5, 1.0], "Packed");
}

#[test]
fn smsc_2d_ising_matches_kaufman() {
    smsc_2d_ising_against_kaufman(64, 8, 16000, "Exact");
}

/// L = 256: four words of a row per thread, whose undecided lanes share one packed tail.
#[test]
fn smsc_2d_ising_with_packed_randoms_matches_kaufman() {
    smsc_2d_ising_against_kaufman(256, 2, 6000, "Packed");
}

fn smsc_2d_ising_against_kaufman(size: u32, replicas: u32, measure: u32, randoms: &str) {
    let summary = run_summary(&format!(
        r#"(
            model: Ising(dims: 2, size: {size}, field: 0.0),
            temperatures: Betas([0.40, 0.43]),
            replicas: {replicas},
            engine: Multispin(layout: Smsc, randoms: {randoms}),
            sweeps: (thermalize: 2000, measure: {measure}, every: 4),
            seed: 99,
            backend: Wgpu,
        )"#
    ));
    assert!(
        summary.run.engine.contains("SMSC"),
        "{}",
        summary.run.engine
    );
    for t in &summary.runs {
        let exact = t.exact.expect("2D zero field has exact values");
        let beta = t.estimates.beta;
        assert_within(
            &format!("SMSC L={size} {randoms} e(beta={beta})"),
            t.estimates.e,
            exact.e,
            0.0,
            0.005,
        );
        assert_within(
            &format!("SMSC L={size} {randoms} c(beta={beta})"),
            t.estimates.c,
            exact.c,
            0.0,
            0.1,
        );
    }
}

/// The same 3D Ising systems through the simple engine (CPU) and the multispin engine with 32
/// replicas per word (GPU): different random streams, the same distribution.
#[test]
fn multispin_and_simple_engines_agree_in_distribution() {
    let config = |engine: &str, backend: &str| {
        format!(
            r#"(
                model: Ising(dims: 3, size: 8, field: 0.1),
                temperatures: Betas([0.2, 0.2216546]),
                replicas: 32,
                engine: {engine},
                sweeps: (thermalize: 1000, measure: 4000, every: 4),
                seed: 5,
                backend: {backend},
            )"#
        )
    };
    let simple = run_summary(&config("Simple", "Cpu"));
    let multispin = run_summary(&config("Multispin(layout: Amsc(lanes: Replicas))", "Wgpu"));
    for (s, m) in simple.runs.iter().zip(&multispin.runs) {
        let (s, m) = (&s.estimates, &m.estimates);
        let beta = s.beta;
        assert_within(&format!("e(beta={beta})"), m.e, s.e.mean, s.e.err, 0.01);
        assert_within(&format!("c(beta={beta})"), m.c, s.c.mean, s.c.err, 0.2);
        assert_within(
            &format!("|m|(beta={beta})"),
            m.abs_m,
            s.abs_m.mean,
            s.abs_m.err,
            0.05,
        );
        assert_within(&format!("U4(beta={beta})"), m.u4, s.u4.mean, s.u4.err, 0.1);
    }
}

//! The vector models against exact limits on tiny lattices (fixed seeds, errors by the
//! jackknife): free spins in a field, the high-temperature series of the energy, and the
//! updates' agreement with one another (over-relaxation, cones, the double checkerboard's
//! multi-hit).

use super::record::measurement;
use crate::engine::cpu::CpuVectorEngine;
use crate::engine::vector::{UNIFORM, VectorEngine, VectorSweeps};
use crate::model::Lattice;
use crate::model::vector::VectorSystems;
use crate::model::vector::fixed::ONE;
use crate::stats::{Estimate, VectorEstimates, VectorMeasurement, vector_estimates};

/// The estimates of the single temperature of `systems` after `thermalize` sweeps and
/// `measure` more, measured after each, with proposal `width`.
fn simulate(
    systems: &VectorSystems,
    updates: VectorSweeps,
    width: i32,
    (thermalize, measure): (u32, u32),
) -> VectorEstimates {
    let mut engine = CpuVectorEngine::new(systems.clone(), updates);
    engine.hot_start().unwrap();
    engine.sweeps(0..thermalize, &[width]).unwrap();
    let mut series: Vec<Vec<VectorMeasurement>> = vec![Vec::new(); systems.replicas as usize];
    for sweep in thermalize..thermalize + measure {
        engine.sweeps(sweep..sweep + 1, &[width]).unwrap();
        for (r, o) in engine.observe().unwrap().iter().enumerate() {
            series[r].push(measurement(systems, o));
        }
    }
    let lattice = systems.lattice;
    let shape = (systems.components, lattice.size, lattice.sites());
    vector_estimates(systems.betas[0], shape, &series, systems.components == 2)
}

const METROPOLIS: VectorSweeps = VectorSweeps {
    hits: 1,
    tile: None,
    overrelaxation: 0,
};

/// `estimate` within `sigmas` errors (and `slack`) of `exact`, its error below `largest_error`
/// (so that the comparison can fail).
fn assert_near(
    what: &str,
    estimate: Estimate,
    exact: f64,
    (sigmas, slack): (f64, f64),
    largest_error: f64,
) {
    assert!(
        estimate.err > 0.0 && estimate.err < largest_error,
        "{what}: error {} not in (0, {largest_error})",
        estimate.err
    );
    assert!(
        (estimate.mean - exact).abs() < sigmas * estimate.err + slack,
        "{what}: {} +- {} against {exact}",
        estimate.mean,
        estimate.err
    );
}

/// `I_nu(x)` by its power series.
fn bessel_i(nu: i32, x: f64) -> f64 {
    let mut term = (x / 2.0).powi(nu) / (1..=nu).map(f64::from).product::<f64>();
    let mut sum = 0.0;
    for k in 1..60 {
        sum += term;
        term *= (x / 2.0).powi(2) / (f64::from(k) * f64::from(k + nu));
    }
    sum
}

#[test]
fn free_spins_in_a_field_follow_the_langevin_function_and_the_bessel_ratio() {
    let (beta, field) = (1.0f64, 2.0);
    let x = beta * field;
    for (n, exact) in [
        (3, 1.0 / x.tanh() - 1.0 / x),
        (2, bessel_i(1, x) / bessel_i(0, x)),
    ] {
        let lattice = Lattice::new(2, 4);
        let systems = VectorSystems::uniform(lattice, n, (0, field), vec![beta], 4, 11);
        let estimates = simulate(&systems, METROPOLIS, UNIFORM, (100, 2000));
        assert_near(
            &format!("n = {n}: <m_x>"),
            estimates.m_field,
            exact,
            (4.0, 0.0),
            5e-3,
        );
    }
}

#[test]
fn the_energy_at_small_beta_follows_the_high_temperature_series() {
    // Per bond <s_i . s_j> = beta/n + beta^3 (2 (d - 1)/n^3 - 1/(n^2 (n + 2))) + O(beta^5):
    // the single bond's I_{n/2}/I_{n/2-1}, and the plaquettes through the bond.
    let (beta, d) = (0.1f64, 2.0);
    for n in [2u32, 3] {
        let nf = f64::from(n);
        let third = 2.0 * (d - 1.0) / nf.powi(3) - 1.0 / (nf * nf * (nf + 2.0));
        let exact = -d * (beta / nf + beta.powi(3) * third);
        let systems = VectorSystems::uniform(Lattice::new(2, 8), n, (1, 0.0), vec![beta], 4, 5);
        let estimates = simulate(&systems, METROPOLIS, UNIFORM, (50, 1000));
        // O(beta^5) terms are below 1e-4 at beta = 0.1.
        assert_near(
            &format!("n = {n}: e"),
            estimates.e,
            exact,
            (4.0, 1e-4),
            3e-3,
        );
    }
}

#[test]
fn over_relaxation_and_cones_give_the_energy_of_plain_metropolis() {
    let systems = VectorSystems::uniform(Lattice::new(2, 8), 3, (1, 0.0), vec![0.7], 4, 3);
    let plain = simulate(&systems, METROPOLIS, UNIFORM, (100, 1500));
    let mixed = VectorSweeps {
        overrelaxation: 2,
        ..METROPOLIS
    };
    let cone = simulate(&systems, mixed, ONE / 2, (100, 1500));
    let (a, b) = (plain.e, cone.e);
    let err = (a.err.powi(2) + b.err.powi(2)).sqrt();
    assert!(err > 0.0 && err < 0.012, "error {err}");
    assert!((a.mean - b.mean).abs() < 4.0 * err, "{a:?} against {b:?}");
    assert!(
        a.mean < -0.3,
        "ordered enough to tell the updates apart: {a:?}"
    );
}

#[test]
fn multi_hit_tiles_give_the_energy_of_plain_metropolis() {
    // Two tiles of 4^2 per side, three hits per site each sweep, against the plain
    // checkerboard, for n = 2 and 3 in a small field, away from any transition (runs 13 times
    // as long agree within 2 errors, for two seeds).
    for n in [2u32, 3] {
        let systems = VectorSystems::uniform(Lattice::new(2, 8), n, (1, 0.1), vec![0.7], 4, 9);
        let plain = simulate(&systems, METROPOLIS, UNIFORM, (100, 1500));
        let tiles = VectorSweeps {
            hits: 3,
            tile: Some(4),
            ..METROPOLIS
        };
        let tiled = simulate(&systems, tiles, UNIFORM, (100, 1500));
        let (a, b) = (plain.e, tiled.e);
        let err = (a.err.powi(2) + b.err.powi(2)).sqrt();
        assert!(err > 0.0 && err < 0.012, "n = {n}: error {err}");
        assert!(
            (a.mean - b.mean).abs() < 4.0 * err,
            "n = {n}: {a:?} against {b:?}"
        );
    }
}

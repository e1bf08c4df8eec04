//! The vector models against exact limits on tiny lattices (fixed seeds, errors by the
//! jackknife): free spins in a field, the high-temperature series of the energy, and the
//! updates' agreement with one another (over-relaxation, cones, the double checkerboard's
//! multi-hit); clock models against the row transfer matrix; the spin glass's overlap
//! estimators for independent and for ordered replicas. The discrete states' limits are in
//! [`states`], the other lattices' in [`lattices`].

mod lattices;
mod states;

use super::record::{
    cluster_m2, cluster_sites, extras, measurement, overlap_measurement, pair_sums, system_sums,
};
use crate::config::Disorder;
use crate::engine::cpu::CpuVectorEngine;
use crate::engine::vector::{HEAT_BATH, UNIFORM, VectorSweeps, sweeps_plan};
use crate::engine::{Engine, Lattices, Proposals};
use crate::model::Lattice;
use crate::model::vector::VectorSystems;
use crate::model::vector::fixed::ONE;
use crate::stats::{
    Estimate, TensorGlassEstimates, TensorOverlapSeries, UnitSize, VectorEstimates,
    VectorMeasurement, tensor_glass_estimates, vector_estimates,
};

/// The estimates of the single temperature of `systems` after `thermalize` sweeps and
/// `measure` more, measured after each, with proposal `width`.
fn simulate(
    systems: &VectorSystems,
    updates: VectorSweeps,
    width: i32,
    (thermalize, measure): (u32, u32),
) -> VectorEstimates {
    let series = simulated_series(systems, updates, width, (thermalize, measure));
    let lattice = systems.lattice;
    let shape = (systems.components, lattice.size, lattice.spins());
    vector_estimates(systems.betas[0], shape, &series, extras(systems))
}

/// The measurements of each replica that [`simulate`] estimates from, the clusters' estimator
/// among them where `updates` has a cluster step.
fn simulated_series(
    systems: &VectorSystems,
    updates: VectorSweeps,
    width: i32,
    (thermalize, measure): (u32, u32),
) -> Vec<Vec<VectorMeasurement>> {
    let updates = VectorSweeps {
        heat_bath: width == HEAT_BATH,
        ..updates
    };
    let mut engine = CpuVectorEngine::new(systems.clone(), updates).unwrap();
    engine.hot_start().unwrap();
    engine.set_widths(&[width]).unwrap();
    engine.execute(&sweeps_plan(0..thermalize, false)).unwrap();
    let mut series: Vec<Vec<VectorMeasurement>> = vec![Vec::new(); systems.replicas as usize];
    for sweep in thermalize..thermalize + measure {
        let measured = engine
            .execute(&sweeps_plan(sweep..sweep + 1, true))
            .unwrap();
        for (r, o) in measured.vector_observations.iter().enumerate() {
            let sums = system_sums(systems, &measured.vector_states, r);
            let mut m = measurement(systems, o, sums);
            let recorded = updates.clusters.filter(|_| systems.clusters_record_sizes());
            if let Some(options) = recorded {
                let sites = cluster_sites(systems, r);
                m.cluster_m2 = cluster_m2(options, measured.cluster_sizes[r], sites);
            }
            series[r].push(m);
        }
    }
    series
}

/// Sweeps of one cluster update of kind `update` each, no Metropolis sweep.
fn clusters_only(update: crate::config::ClusterUpdate) -> VectorSweeps {
    let clusters = Some(crate::config::ClusterOptions {
        update,
        clusters: 1,
        metropolis: 0,
    });
    VectorSweeps {
        clusters,
        ..VectorSweeps::METROPOLIS
    }
}

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
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (100, 2000));
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
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (50, 1000));
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
    let plain = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (100, 1500));
    let mixed = VectorSweeps {
        overrelaxation: 2,
        ..VectorSweeps::METROPOLIS
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

/// Heisenberg spins: the antiferromagnet on the 4^3 cube (periodic: bipartite) is the ferromagnet
/// with one sublattice's spins reversed, so its energy and staggered moments are the
/// ferromagnet's energy and uniform moments (within their errors); a ferromagnet reports no
/// staggered magnetisation.
#[test]
fn the_antiferromagnets_staggered_moments_are_the_ferromagnets_moments() {
    let systems = |j: i32| VectorSystems::uniform(Lattice::new(3, 4), 3, (j, 0.0), vec![0.8], 4, 7);
    let ferromagnet = simulate(&systems(1), VectorSweeps::METROPOLIS, UNIFORM, (100, 1500));
    let antiferromagnet = simulate(&systems(-1), VectorSweeps::METROPOLIS, UNIFORM, (100, 1500));
    assert!(ferromagnet.staggered.is_none());
    let staggered = antiferromagnet.staggered.expect("staggered estimates");
    for (what, a, b) in [
        ("e", ferromagnet.e, antiferromagnet.e),
        ("m2", ferromagnet.m2, staggered.m2),
        ("m4", ferromagnet.m4, staggered.m4),
        ("U4", ferromagnet.u4, staggered.u4),
    ] {
        let err = (a.err.powi(2) + b.err.powi(2)).sqrt();
        assert!(err > 0.0 && err < 0.02, "{what}: error {err}");
        assert!(
            (a.mean - b.mean).abs() < 4.0 * err,
            "{what}: {a:?} against {b:?}"
        );
    }
    assert!(staggered.m2.mean > 0.3, "ordered: {staggered:?}");
    assert!(antiferromagnet.m2.mean < 0.05, "{:?}", antiferromagnet.m2);
}

/// Unit vectors on the kagome lattice, its empty quarter zero vectors that no update moves and no
/// sum counts: the 2-state clock (spins `+-x`, Ising spins) in a field, the ferromagnet by
/// uniform proposals and the antiferromagnet by the heat bath, against the Ising model's two
/// discrete states on the same 27 sites (whose kagome lattice `states`' lattice test checks
/// against enumeration): `e`, `c`, `m2` and `m4` within 4 combined errors.
#[test]
fn the_two_state_clock_on_the_kagome_lattice_is_the_ising_model() {
    use crate::engine::vector::HEAT_BATH;
    use crate::model::Shape;
    use crate::model::vector::states::States;
    let lattice = Lattice::shaped(Shape::Kagome, 2, 6);
    for (j, field, beta, width) in [(1, 0.2, 0.4, UNIFORM), (-1, 0.3, 0.8, HEAT_BATH)] {
        let clock = VectorSystems::uniform(lattice, 2, (j, field), vec![beta], 4, 29)
            .with_clock(2)
            .with_missing(None);
        let ising = VectorSystems::uniform(lattice, 1, (j, 0.0), vec![beta], 4, 31)
            .with_states(States::ising(field))
            .with_missing(None);
        let [clock, ising] = [clock, ising]
            .map(|systems| simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000)));
        for (what, a, b) in [
            ("e", clock.e, ising.e),
            ("c", clock.c, ising.c),
            ("m2", clock.m2, ising.m2),
            ("m4", clock.m4, ising.m4),
        ] {
            let what = format!("J = {j}, h = {field}: {what}");
            let err = (a.err.powi(2) + b.err.powi(2)).sqrt();
            assert!(err > 0.0 && err < 0.05, "{what}: error {err}");
            assert!(
                (a.mean - b.mean).abs() < 4.0 * err,
                "{what}: clock {a:?} against Ising {b:?}"
            );
        }
    }
}

/// Clock models against the row transfer matrix's exact energy and specific heat: on a 4^2
/// lattice 3 states in a field, and 4 states (two Ising models, so Kaufman's too) near the
/// 4-state clock's transition on the infinite lattice (`beta_c = 2 x 0.4407`), by uniform
/// proposals and by the heat bath; 8 states in a field on a 2^2 lattice (two bonds between
/// each pair of neighbours) by the heat bath, cold.
#[test]
fn clock_models_give_the_transfer_matrixs_energy_and_heat() {
    use crate::engine::vector::HEAT_BATH;
    use crate::exact::{DiscreteSpins, energy_and_heat};
    let cases = [
        (3, 0.5, 0.6, 4, UNIFORM),
        (4, 0.0, 0.85, 4, UNIFORM),
        (3, 0.5, 0.6, 4, HEAT_BATH),
        (4, 0.0, 0.85, 4, HEAT_BATH),
        (8, 0.2, 2.5, 2, HEAT_BATH),
    ];
    for (q, field, beta, size, width) in cases {
        let lattice = Lattice::new(2, size);
        let systems =
            VectorSystems::uniform(lattice, 2, (1, field), vec![beta], 4, 17).with_clock(q);
        let estimates = simulate(&systems, VectorSweeps::METROPOLIS, width, (200, 6000));
        let spins = DiscreteSpins::clock(q, 1.0, field);
        let (e, c) = energy_and_heat(&spins, (size, size), beta);
        let what = format!("q = {q}, width {width}");
        assert_near(&format!("{what}: e"), estimates.e, e, (4.0, 0.0), 0.02);
        assert_near(&format!("{what}: c"), estimates.c, c, (4.0, 0.0), 0.1);
    }
}

/// Wolff's embedding alone (no Metropolis sweep) samples the clock models: on periodic lattices
/// 3 states by Swendsen-Wang and 4 by Wolff on 4^2 (the latter near the transition on the
/// infinite lattice), 6 by both on 2^2 (two bonds join each pair of neighbours) in the critical
/// phase's range of `beta`, against the row transfer matrix's `e` and `c`; the
/// 2-state clock (the Ising model, whose half of the mirrors lie on its states and move
/// nothing) on 4^2 with an open x axis and an antiperiodic y axis, by both updates, against
/// exact enumeration of `e`, `c`, `m2` and `m4`.
#[test]
fn clock_cluster_updates_give_the_exact_energy_and_moments() {
    use crate::config::Boundary::{Antiperiodic, Open};
    use crate::config::ClusterUpdate::{SwendsenWang, Wolff};
    use crate::config::{Boundaries, ClusterUpdate};
    use crate::exact::{DiscreteSpins, energy_and_heat, enumerate_states};
    use crate::model::vector::states::States;
    use states::{assert_moments_near, edge_couplings};
    let alone = |update: ClusterUpdate, (q, size): (u32, u32), beta: f64, boundaries| {
        let lattice = Lattice::new(2, size);
        let systems = VectorSystems::uniform(lattice, 2, (1, 0.0), vec![beta], 4, 37)
            .with_clock(q)
            .with_boundaries(boundaries);
        simulate(&systems, clusters_only(update), UNIFORM, (100, 6000))
    };
    let periodic = [
        (3, 4, 0.6, SwendsenWang),
        (4, 4, 0.85, Wolff),
        (6, 2, 1.2, SwendsenWang),
        (6, 2, 1.2, Wolff),
    ];
    for (q, size, beta, update) in periodic {
        let estimates = alone(update, (q, size), beta, Boundaries::PERIODIC);
        let spins = DiscreteSpins::clock(q, 1.0, 0.0);
        let (e, c) = energy_and_heat(&spins, (size, size), beta);
        let what = format!("q = {q} {update:?} {size}^2");
        assert_near(&format!("{what}: e"), estimates.e, e, (4.0, 0.0), 0.03);
        assert_near(&format!("{what}: c"), estimates.c, c, (4.0, 0.0), 0.15);
    }
    let boundaries = Boundaries::new(&[Open, Antiperiodic]);
    let lattice = Lattice::new(2, 4);
    let bonds = edge_couplings(lattice, boundaries);
    let beta = 0.5;
    let exact = enumerate_states(&States::ising(0.0), lattice, (Some(&bonds), &[]), beta);
    for update in [SwendsenWang, Wolff] {
        let estimates = alone(update, (2, 4), beta, boundaries);
        assert_moments_near(
            &format!("q = 2 {update:?}, open x, antiperiodic y"),
            &estimates,
            &exact,
        );
    }
}

#[test]
fn multi_hit_tiles_give_the_energy_of_plain_metropolis() {
    // Two tiles of 4^2 per side, three hits per site each sweep, against the plain
    // checkerboard, for n = 2 and 3 in a small field, away from any transition (runs 13 times
    // as long agree within 2 errors, for two seeds).
    for n in [2u32, 3] {
        let systems = VectorSystems::uniform(Lattice::new(2, 8), n, (1, 0.1), vec![0.7], 4, 9);
        let plain = simulate(&systems, VectorSweeps::METROPOLIS, UNIFORM, (100, 1500));
        let tiles = VectorSweeps {
            hits: 3,
            tile: Some(4),
            ..VectorSweeps::METROPOLIS
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

/// The overlap estimators of the single temperature of the glass `systems` after
/// `thermalize` sweeps of `updates` and `measure` more, measured after each (uniform
/// proposals).
fn glass_overlaps(
    systems: &VectorSystems,
    updates: VectorSweeps,
    (thermalize, measure): (u32, u32),
) -> TensorGlassEstimates {
    let mut engine = CpuVectorEngine::new(systems.clone(), updates).unwrap();
    engine.hot_start().unwrap();
    engine.execute(&sweeps_plan(0..thermalize, false)).unwrap();
    let pairs = systems.overlap_pairs() as usize;
    let mut samples = vec![TensorOverlapSeries::default(); systems.samples as usize];
    for sample in &mut samples {
        sample.q2 = vec![Vec::new(); pairs];
        sample.q2_kmin = vec![Vec::new(); pairs];
    }
    for sweep in thermalize..thermalize + measure {
        let measured = engine
            .execute(&sweeps_plan(sweep..sweep + 1, true))
            .unwrap();
        for (k, o) in measured.vector_overlaps.iter().enumerate() {
            let x = overlap_measurement(
                systems,
                o,
                pair_sums(systems, &measured.vector_pair_states, k),
            );
            let sample = &mut samples[k / pairs];
            sample.q2[k % pairs].push(x.q2);
            sample.q2_kmin[k % pairs].push(x.q2_kmin);
        }
    }
    let lattice = systems.lattice;
    let shape = (lattice.sites(), lattice.size, systems.spin_components());
    tensor_glass_estimates(systems.betas[0], shape, &samples, UnitSize::SYSTEM)
}

/// A +-J glass of `n`-vectors on `L^dims` sites, at `beta`, `samples` samples of `replicas`.
fn glass(
    n: u32,
    (dims, size): (u32, u32),
    beta: f64,
    (samples, replicas): (u32, u32),
) -> VectorSystems {
    let lattice = Lattice::new(dims, size);
    VectorSystems::uniform(lattice, n, (1, 0.0), vec![beta], replicas, 21)
        .with_disorder(Disorder::Bimodal, samples)
}

#[test]
fn independent_replicas_have_a_binder_ratio_of_zero_and_chi_sg_of_one() {
    // At beta = 0 every sweep draws independent uniform spins: the tensor overlap's n^2 entries
    // have variance 1/(N n^2) each, so chi_SG = N [<q2>] = 1, and they are Gaussian up to
    // O(1/N), so g = 0 (the fourth cumulant of s_mu s_nu adds below 0.01 at N = 64).
    for n in [2u32, 3] {
        let systems = glass(n, (3, 4), 0.0, (8, 4));
        let estimates = glass_overlaps(&systems, VectorSweeps::METROPOLIS, (2, 400));
        assert_eq!((estimates.samples, estimates.units), (8, 8));
        assert_near(&format!("n = {n}: g"), estimates.g, 0.0, (4.0, 0.01), 0.05);
        assert_near(
            &format!("n = {n}: chi_SG"),
            estimates.chi_sg,
            1.0,
            (4.0, 0.0),
            0.05,
        );
    }
}

#[test]
fn ordered_replicas_along_any_two_directions_have_a_binder_ratio_of_one() {
    // Replica a along u, replica b along v: q_{mu nu} = u_mu v_nu, so q2 = |u|^2 |v|^2 = 1
    // whatever the angle between them (the tensor overlap sees through a global rotation), and
    // g = ((n^2 + 2) - n^2)/2 = 1; the spins are uniform, so q2(k_min) = 0.
    let systems = glass(3, (2, 4), 1.0, (2, 2));
    let sites = systems.lattice.sites() as usize;
    let directions: [[i32; 3]; 4] = [
        [ONE / 3, 2 * ONE / 3, 2 * ONE / 3],
        [0, ONE, 0],
        [-3 * ONE / 5, 0, 4 * ONE / 5],
        [ONE, 0, 0],
    ];
    let spins: Vec<i32> = directions
        .iter()
        .flat_map(|u| u.iter().flat_map(|&c| vec![c; sites]))
        .collect();
    let mut engine = CpuVectorEngine::new(systems.clone(), VectorSweeps::METROPOLIS).unwrap();
    engine.set_spins(&Lattices::Vector(spins)).unwrap();
    let measured = engine.execute(&sweeps_plan(0..0, true)).unwrap();
    let samples: Vec<TensorOverlapSeries> = (measured.vector_overlaps.iter().enumerate())
        .map(|(k, o)| {
            let x = overlap_measurement(
                &systems,
                o,
                pair_sums(&systems, &measured.vector_pair_states, k),
            );
            assert!((x.q2 - 1.0).abs() < 1e-7 && x.q2_kmin < 1e-14, "{x:?}");
            TensorOverlapSeries {
                q2: vec![vec![x.q2; 32]],
                q2_kmin: vec![vec![x.q2_kmin; 32]],
            }
        })
        .collect();
    let shape = (sites as u64, 4, 3);
    let estimates = tensor_glass_estimates(1.0, shape, &samples, UnitSize::SYSTEM);
    assert!((estimates.g.mean - 1.0).abs() < 1e-6, "{:?}", estimates.g);
    assert!((estimates.chi_sg.mean - sites as f64).abs() < 1e-4);
}

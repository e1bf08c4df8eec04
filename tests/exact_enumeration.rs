//! The field term and the 3D geometry against exact enumeration of tiny lattices: every one of
//! the 2^N states of a 4x4 (2D) or 2x2x2 (3D) periodic lattice in a field, on the GPU (lavapipe
//! in CI). Kaufman's solution only covers h = 0; this checks the sign and size of the field.
//! The cluster updates (Swendsen-Wang, Wolff) against the same enumeration at zero field,
//! their improved estimator of `<m^2>` included; the honeycomb lattice on the multispin engine.

mod common;

use spinflip::config::TemperatureScale;
use spinflip::exact::EnumeratedAverages;
use spinflip::io::output::{temperature_file, temperature_tags};
use spinflip::io::run_dir::RunOptions;
use spinflip::metropolis::Summary;
use spinflip::model::Lattice;
use spinflip::model::lattices::is_link;
use spinflip::run::run;
use spinflip::stats::Estimate;

/// Exact <E>/N, <M>/N and c = beta^2 (<E^2> - <E>^2) / N, enumerated with its own geometry.
fn enumerate(dims: u32, size: u32, field: f64, beta: f64) -> (f64, f64, f64) {
    let n = size.pow(dims) as usize;
    let coords = |i: usize| {
        [
            i % size as usize,
            (i / size as usize) % size as usize,
            i / (size * size) as usize,
        ]
    };
    let index = |c: [usize; 3]| {
        let l = size as usize;
        ((c[2] % l) * l + c[1] % l) * l + c[0] % l
    };
    let (mut z, mut e1, mut e2, mut m1) = (0.0, 0.0, 0.0, 0.0);
    for state in 0u32..(1 << n) {
        let spin = |i: usize| if state >> i & 1 == 1 { 1.0 } else { -1.0 };
        let (mut bonds, mut magnetisation) = (0.0, 0.0);
        for i in 0..n {
            let c = coords(i);
            magnetisation += spin(i);
            for d in 0..dims as usize {
                let mut forward = c;
                forward[d] += 1;
                bonds += spin(i) * spin(index(forward));
            }
        }
        let energy = -bonds - field * magnetisation;
        let weight = (-beta * energy).exp();
        z += weight;
        e1 += weight * energy;
        e2 += weight * energy * energy;
        m1 += weight * magnetisation;
    }
    let (e, e_sq, m) = (e1 / z, e2 / z, m1 / z);
    (
        e / n as f64,
        m / n as f64,
        beta * beta * (e_sq - e * e) / n as f64,
    )
}

/// `got` within 4 of its errors of `exact`, its error positive and below `largest_error` (so
/// that the comparison can fail); the deviation printed either way.
fn assert_within_4_errors(case: &str, what: &str, got: Estimate, exact: f64, largest_error: f64) {
    let sigmas = (got.mean - exact) / got.err;
    eprintln!("{case}: {what} = {got:?}, exact {exact:.6}: {sigmas:+.2} sigma");
    assert!(
        got.err > 0.0 && got.err < largest_error,
        "{case}: {what} error {}",
        got.err
    );
    assert!(
        sigmas.abs() <= 4.0,
        "{case}: {what} is {sigmas:+.2} sigma from {exact}"
    );
}

fn check(dims: u32, size: u32, field: f64, beta: f64) {
    let config = common::config(&format!(
        r#"(
            model: Ising(dims: {dims}, size: {size}, field: {field:?}),
            temperatures: Betas([{beta:?}]),
            replicas: 16,
            sweeps: (thermalize: 200, measure: 6000, every: 1),
            seed: 31337,
            backend: Wgpu,
        )"#
    ));
    let dir = tempfile::tempdir().unwrap();
    let summary = common::completed(run(&config, &RunOptions::new(dir.path())).unwrap());
    let measured = &summary.runs[0].estimates;
    let (e, m, c) = enumerate(dims, size, field, beta);
    // Mean magnetisation from the per-replica CSV series (the summary holds |m|, m^2, m^4).
    let tag = &temperature_tags(&[beta], TemperatureScale::Beta)[0];
    let csv = std::fs::read_to_string(dir.path().join(temperature_file("timeseries", tag, "csv")))
        .unwrap();
    let ms: Vec<f64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(6).unwrap().parse().unwrap())
        .collect();
    let replicas = 16;
    let per_replica: Vec<f64> = (0..replicas)
        .map(|r| ms.iter().skip(r).step_by(replicas).sum::<f64>() / (ms.len() / replicas) as f64)
        .collect();
    let m_mean = per_replica.iter().sum::<f64>() / replicas as f64;
    let m_err = (per_replica
        .iter()
        .map(|x| (x - m_mean).powi(2))
        .sum::<f64>()
        / (replicas * (replicas - 1)) as f64)
        .sqrt();
    let case = format!("{dims}D L={size} h={field} beta={beta}");
    let measured_m = Estimate {
        mean: m_mean,
        err: m_err,
    };
    for (what, got, exact) in [
        ("e", measured.e, e),
        ("c", measured.c, c),
        ("m", measured_m, m),
    ] {
        assert_within_4_errors(&case, what, got, exact, 0.02);
    }
}

#[test]
fn ising_2d_4x4_in_a_field_matches_exact_enumeration() {
    check(2, 4, 0.3, 0.4);
    check(2, 4, -0.2, 0.5);
}

#[test]
fn ising_3d_2x2x2_in_a_field_matches_exact_enumeration() {
    check(3, 2, 0.25, 0.15);
}

/// Swendsen-Wang alone and Wolff mixed with Metropolis sweeps sample the exact distribution:
/// `e`, `c`, `<m^2>` and the improved `<m^2>` from the cluster sizes within 4 sigma of the
/// enumeration (fixed seeds), on the GPU.
#[test]
fn cluster_updates_match_exact_enumeration() {
    for (dims, size, beta, algorithm) in [
        (2, 4, 0.44, "Clusters(update: SwendsenWang)"),
        (
            3,
            2,
            0.3,
            "Clusters(update: Wolff, clusters: 2, metropolis: 1)",
        ),
    ] {
        let config = common::config(&format!(
            r#"(
                model: Ising(dims: {dims}, size: {size}, field: 0.0),
                temperatures: Betas([{beta:?}]),
                replicas: 8,
                sweeps: (thermalize: 100, measure: 4000, every: 1),
                algorithm: {algorithm},
                seed: 4242,
                backend: Wgpu,
            )"#
        ));
        let dir = tempfile::tempdir().unwrap();
        let summary = common::completed(run(&config, &RunOptions::new(dir.path())).unwrap());
        let run = &summary.runs[0];
        let (measured, clusters) = (&run.estimates, run.clusters.as_ref().unwrap());
        let lattice = Lattice::new(dims, size);
        let ferromagnetic = vec![1; (lattice.sites() * u64::from(dims)) as usize];
        let exact = spinflip::exact::enumerate(lattice, &ferromagnetic, 0.0, beta);
        let case = format!("{algorithm} {dims}D L={size} beta={beta}");
        for (what, got, want) in [
            ("e", measured.e, exact.e),
            ("c", measured.c, exact.c),
            ("m2", measured.m2, exact.m2),
            ("improved m2", clusters.m2, exact.m2),
        ] {
            assert_within_4_errors(&case, what, got, want, 0.02);
        }
    }
}

/// Run `config` (one temperature, on the GPU) and check that it ran on the multispin engine,
/// that its summary's exact values are the enumeration's of `lattice` on `couplings` in `field`
/// at `beta`, and that its e and c lie within 4 errors of them; the enumeration and the summary.
fn check_multispin_run(
    case: &str,
    config: &str,
    (lattice, couplings): (Lattice, &[i8]),
    field: f64,
    beta: f64,
) -> (EnumeratedAverages, Summary) {
    let config = common::config(config);
    let dir = tempfile::tempdir().unwrap();
    let summary = common::completed(run(&config, &RunOptions::new(dir.path())).unwrap());
    assert!(
        summary.run.engine.contains("multispin"),
        "{case}: {}",
        summary.run.engine
    );
    let exact = spinflip::exact::enumerate(lattice, couplings, field, beta);
    let run = &summary.runs[0];
    let reported = run.exact.as_ref().expect("the summary's exact values");
    assert!((reported.e - exact.e).abs() < 1e-12, "{case}: {reported:?}");
    assert!((reported.c - exact.c).abs() < 1e-10, "{case}: {reported:?}");
    for (what, got, want) in [
        ("e", run.estimates.e, exact.e),
        ("c", run.estimates.c, exact.c),
    ] {
        assert_within_4_errors(case, what, got, want, 0.05);
    }
    (exact, summary)
}

/// Tori twisted by an antiperiodic axis on the multispin engine (the bonds across the edge
/// reversed in its coupling words), on the GPU: the 2D 4x4 ferromagnet at zero field against
/// Kaufman's twisted terms and the 3D 2x2x2 one in a field against enumeration on the reversed
/// bonds; the summary's exact values are these, and e and c lie within 4 errors of them.
#[test]
fn twisted_tori_on_the_multispin_engine_match_their_exact_values() {
    for (dims, boundaries, twisted_axis, field, beta) in [
        (2, "(Antiperiodic, Periodic)", 0, 0.0, 0.44),
        (3, "(Periodic, Periodic, Antiperiodic)", 2, 0.3, 0.3),
    ] {
        let size = if dims == 2 { 4 } else { 2 };
        let config = format!(
            r#"(
                model: Ising(dims: {dims}, size: {size}, field: {field:?}, boundaries: {boundaries}),
                temperatures: Betas([{beta:?}]),
                replicas: 32,
                engine: Multispin(layout: Amsc(lanes: Replicas)),
                sweeps: (thermalize: 200, measure: 4000, every: 1),
                seed: 2718,
                backend: Wgpu,
            )"#
        );
        let lattice = Lattice::new(dims, size);
        let reversed: Vec<i8> = (0..lattice.bonds())
            .map(|bond| {
                let (site, axis) = (bond / u64::from(dims), bond % u64::from(dims));
                let on_edge = lattice.coords(site)[axis as usize] == size - 1;
                if axis == twisted_axis && on_edge {
                    -1
                } else {
                    1
                }
            })
            .collect();
        let case = format!("{dims}D {boundaries}");
        let (exact, _) = check_multispin_run(&case, &config, (lattice, &reversed), field, beta);
        if dims == 2 {
            let twisted = spinflip::exact::kaufman_twisted(size, beta, 1).unwrap();
            assert!((twisted.e - exact.e).abs() < 1e-12 && (twisted.c - exact.c).abs() < 1e-11);
        }
    }
}

/// The Ising ferromagnet on the honeycomb lattice (the square lattice's brick wall: no bond from
/// `(x, y)` to `(x, y + 1)` where `x + y` is odd) in a field, which `engine: Auto` puts on the
/// multispin engine, on the GPU, periodic and twisted along y (the bonds from the top row to
/// the bottom one reversed, in the coupling words): the summary's exact values are the
/// enumeration's on the brick wall's bonds, and e and c lie within 4 errors of them (the square
/// lattice's would not: three bonds a site instead of four).
#[test]
fn the_honeycomb_on_the_multispin_engine_matches_exact_enumeration() {
    let (size, field, beta) = (4, 0.2, 0.6);
    for (boundaries, twisted) in [
        ("(Periodic, Periodic)", false),
        ("(Periodic, Antiperiodic)", true),
    ] {
        let config = format!(
            r#"(
                model: Ising(dims: 2, size: {size}, field: {field:?}, lattice: Honeycomb, boundaries: {boundaries}),
                temperatures: Betas([{beta:?}]),
                replicas: 32,
                sweeps: (thermalize: 200, measure: 4000, every: 1),
                seed: 1618,
                backend: Wgpu,
            )"#
        );
        let lattice = Lattice::new(2, size);
        let brick_wall: Vec<i8> = (0..lattice.bonds())
            .map(|bond| {
                let [x, y, _] = lattice.coords(bond / 2);
                let present = bond % 2 == 0 || (x + y) % 2 == 0;
                let across_the_twist = twisted && bond % 2 == 1 && y == size - 1;
                match (present, across_the_twist) {
                    (false, _) => 0,
                    (true, true) => -1,
                    (true, false) => 1,
                }
            })
            .collect();
        let case = format!("honeycomb 4x4 {boundaries}");
        check_multispin_run(&case, &config, (lattice, &brick_wall), field, beta);
    }
}

/// The Ising antiferromagnet on the bipartite lattices at zero field, which `engine: Auto` puts
/// on the multispin engine (every bond reversed in its coupling words, the up spins counted by
/// sublattice), on the GPU: the 4x4 square torus, the 2x2x2 cube and the 4x4 honeycomb brick
/// wall. The summary says its magnetisation is the staggered one; e and c lie within 4 errors
/// of enumeration on the reversed bonds (the square torus's: Kaufman's, of the ferromagnet of
/// the spins `(-1)^(x+y) s`), and `|m_s|` and `m_s^2` within 4 errors of the ferromagnet's
/// `|m|` and `m^2` on the same bonds unreversed.
#[test]
fn bipartite_antiferromagnets_on_the_multispin_engine_match_their_exact_values() {
    let beta = 0.5;
    for (dims, size, lattice_kind) in [(2, 4, "Square"), (3, 2, "Cubic"), (2, 4, "Honeycomb")] {
        let config = format!(
            r#"(
                model: Ising(dims: {dims}, size: {size}, field: 0.0, lattice: {lattice_kind}, antiferromagnet: true),
                temperatures: Betas([{beta:?}]),
                replicas: 32,
                sweeps: (thermalize: 200, measure: 4000, every: 1),
                seed: 1414,
                backend: Wgpu,
            )"#
        );
        let lattice = Lattice::new(dims, size);
        let honeycomb = lattice_kind == "Honeycomb";
        let ferromagnet: Vec<i8> = (0..lattice.bonds())
            .map(|bond| {
                let [x, y, _] = lattice.coords(bond / u64::from(dims));
                let gap = honeycomb && bond % 2 == 1 && (x + y) % 2 == 1;
                if gap { 0 } else { 1 }
            })
            .collect();
        let reversed: Vec<i8> = ferromagnet.iter().map(|j| -j).collect();
        let case = format!("{dims}D {lattice_kind} antiferromagnet");
        let (_, summary) = check_multispin_run(&case, &config, (lattice, &reversed), 0.0, beta);
        assert!(summary.staggered, "{case}: the staggered magnetisation");
        let ordered = spinflip::exact::enumerate(lattice, &ferromagnet, 0.0, beta);
        let estimates = &summary.runs[0].estimates;
        assert_within_4_errors(&case, "|m_s|", estimates.abs_m, ordered.abs_m, 0.05);
        assert_within_4_errors(&case, "m_s^2", estimates.m2, ordered.m2, 0.05);
    }
}

/// Open edges on the multispin engine, where `engine: Auto` puts them (the bonds across an open
/// edge left out of the updates and the measurements), on the GPU: the 4x4 ferromagnet open
/// along both axes in a field (corners of two bonds), the 2x2x2 glass open along x and z
/// beside a periodic y (samples in lanes, overlaps measured), the 4x4 antiferromagnet open along
/// y (its staggered magnetisation), the 4x4 honeycomb open both ways in a field (its one y bond
/// up or down across the y edge). The summary's exact values are enumeration's on the bonds
/// with those across the open edges 0, and e and c lie within 4 errors of them; the glass's
/// e lies within 4 errors of the mean over its samples of enumeration's, and the summary warns
/// of no sample's e, `q^2` or `q_l` far from enumeration.
#[test]
fn open_edges_on_the_multispin_engine_match_exact_enumeration() {
    let beta = 0.5;
    for (model, field, systems) in [
        (
            "Ising(dims: 2, size: 4, field: 0.3, boundaries: (Open, Open))",
            0.3,
            "replicas: 32",
        ),
        (
            "EdwardsAnderson(dims: 3, size: 2, field: 0.0, boundaries: (Open, Periodic, Open))",
            0.0,
            "samples: 32, replicas: 2",
        ),
        (
            "Ising(dims: 2, size: 4, field: 0.0, antiferromagnet: true, boundaries: (Periodic, Open))",
            0.0,
            "replicas: 32",
        ),
        (
            "Ising(dims: 2, size: 4, field: 0.2, lattice: Honeycomb, boundaries: (Open, Open))",
            0.2,
            "replicas: 32",
        ),
    ] {
        let config = format!(
            r#"(
                model: {model},
                temperatures: Betas([{beta:?}]),
                {systems},
                sweeps: (thermalize: 200, measure: 4000, every: 1),
                seed: 1732,
                backend: Wgpu,
            )"#
        );
        let parsed = common::config(&config);
        let systems = spinflip::model::ising::ising_systems(&parsed);
        let couplings = systems.coupling_signs(0);
        let lattice = systems.lattice;
        let open_bonds = (0..lattice.bonds())
            .filter(|&b| is_link(&lattice, b) && couplings[b as usize] == 0)
            .count() as u64;
        assert_eq!(
            open_bonds,
            systems.lattice.links() - systems.links(),
            "{model}"
        );
        if model.starts_with("Edwards") {
            let dir = tempfile::tempdir().unwrap();
            let summary = common::completed(run(&parsed, &RunOptions::new(dir.path())).unwrap());
            assert!(summary.run.engine.contains("multispin"), "{model}");
            assert!(
                summary.warnings.is_empty(),
                "{model}: {:?}",
                summary.warnings
            );
            let exact_e = (0..systems.samples)
                .map(|s| {
                    spinflip::exact::enumerate(
                        systems.lattice,
                        &systems.coupling_signs(s),
                        0.0,
                        beta,
                    )
                    .e
                })
                .sum::<f64>()
                / f64::from(systems.samples);
            assert_within_4_errors(model, "e", summary.spin_glass[0].e, exact_e, 0.05);
            continue;
        }
        check_multispin_run(model, &config, (systems.lattice, &couplings), field, beta);
    }
}

/// Cluster updates across an antiperiodic edge, whose bonds join opposite spins: the 2D Ising
/// ferromagnet on the 4x4 torus twisted along y, by Swendsen-Wang and by Wolff on the GPU (the
/// vector engine's two states, a cluster across the edge holding both), against Kaufman's
/// twisted terms (`e`, `c`), which the summary reports beside the estimates, and enumeration on
/// the reversed bonds (`m2`, and the improved `m2` from the clusters' magnetisations:
/// Swendsen-Wang's `sum_C M_C^2`, Wolff's `s_seed M_C`).
#[test]
fn cluster_updates_across_an_antiperiodic_edge_match_the_twisted_torus() {
    let beta = 0.44;
    let lattice = spinflip::model::Lattice::new(2, 4);
    let reversed: Vec<i8> = (0..lattice.bonds())
        .map(|bond| match (bond % 2, lattice.coords(bond / 2)[1]) {
            (1, 3) => -1,
            _ => 1,
        })
        .collect();
    let exact = spinflip::exact::enumerate(lattice, &reversed, 0.0, beta);
    let twisted = spinflip::exact::kaufman_twisted(4, beta, 1).unwrap();
    for update in ["SwendsenWang", "Wolff"] {
        let config = common::config(&format!(
            r#"(
                model: Ising(dims: 2, size: 4, field: 0.0, boundaries: (Periodic, Antiperiodic)),
                temperatures: Betas([{beta:?}]),
                replicas: 8,
                sweeps: (thermalize: 100, measure: 4000, every: 1),
                algorithm: Clusters(update: {update}),
                seed: 4243,
                backend: Wgpu,
            )"#
        ));
        let dir = tempfile::tempdir().unwrap();
        let summary = match run(&config, &RunOptions::new(dir.path())).unwrap() {
            spinflip::run::RunOutcome::Vector(summary) => summary,
            other => panic!("{update}: not a run of states: {other:?}"),
        };
        let improved = summary.clusters[0].m2;
        let case = format!("{update} across the antiperiodic y edge");
        assert_within_4_errors(&case, "improved m2", improved, exact.m2, 0.05);
        assert_eq!(
            summary.exact,
            [Some(twisted)],
            "{update}: the summary's exact values"
        );
        assert!(summary.warnings.is_empty(), "{:?}", summary.warnings);
        let table =
            spinflip::vector::vector_table(&summary, spinflip::config::Disorder::Ferromagnet);
        assert!(table.contains(&format!("{:.8}", twisted.c)), "{table}");
        let figure = std::fs::read_to_string(dir.path().join("plot_e.svg")).unwrap();
        assert!(
            figure.contains("exact (Kaufman, L = 4)"),
            "{update}: no exact curve"
        );
        let measured = &summary.runs[0];
        let case = format!("{update} across the antiperiodic y edge");
        for (what, got, want) in [
            ("e", measured.e, twisted.e),
            ("c", measured.c, twisted.c),
            ("m2", measured.m2, exact.m2),
        ] {
            assert_within_4_errors(&case, what, got, want, 0.05);
        }
    }
}

/// The summary of the vector run of `ron` (a Potts model on the CPU).
fn states_summary(ron: &str) -> spinflip::vector::VectorSummary {
    let dir = tempfile::tempdir().unwrap();
    match run(&common::config(ron), &RunOptions::new(dir.path())).unwrap() {
        spinflip::run::RunOutcome::Vector(summary) => *summary,
        other => panic!("not a run of states: {other:?}"),
    }
}

/// Discrete states in bit planes (`storage: BitPlanes`): the 2-state Potts model at L = 64
/// against Kaufman through the Ising mapping (`e = -1 + e_I(beta/2)/2`, `c = c_I(beta/2)`),
/// below and near its critical point `beta_c = 2 K_c = 0.8814`; and the 3- and 8-state Potts
/// models and the Blume-Capel model at D = 1 against the same runs on one state a word (other
/// proposals, the same Boltzmann distribution): `e`, `<m^2>` and Blume-Capel's density of
/// zeros within 4 combined errors.
#[test]
fn discrete_states_in_bit_planes_sample_the_boltzmann_distribution() {
    let config = |model: &str, betas: &str, storage: &str| {
        format!(
            "(model: {model}, temperatures: Betas([{betas}]), \
             replicas: 4, sweeps: (thermalize: 1000, measure: 4000, every: 2), \
             updates: (storage: {storage}), seed: 64, backend: Cpu, plots: false)"
        )
    };
    let potts = |q: u32| format!("Potts(q: {q}, dims: 2, size: 64)");
    let planes = states_summary(&config(&potts(2), "0.6, 0.85", "BitPlanes"));
    assert!(planes.updates.contains("bit planes"), "{}", planes.updates);
    for (measured, exact) in planes.runs.iter().zip(&planes.exact) {
        let exact = exact.expect("the 2-state Potts model's Kaufman values");
        let ising = spinflip::exact::kaufman(64, measured.beta / 2.0);
        assert_eq!((exact.e, exact.c), (-1.0 + ising.e / 2.0, ising.c));
        let case = format!("2-state Potts in bit planes at beta {}", measured.beta);
        assert_within_4_errors(&case, "e", measured.e, exact.e, 0.01);
        assert_within_4_errors(&case, "c", measured.c, exact.c, 0.5);
    }
    let blume_capel = "BlumeCapel(dims: 2, size: 64, crystal_field: 1.0)".to_string();
    for (model, beta) in [(potts(3), "0.9"), (potts(8), "1.2"), (blume_capel, "0.6")] {
        let planes = states_summary(&config(&model, beta, "BitPlanes"));
        let words = states_summary(&config(&model, beta, "Words"));
        let (p, w) = (&planes.runs[0], &words.runs[0]);
        let zeros = p.zeros.zip(w.zeros).map(|(a, b)| ("zeros", a, b));
        for (what, a, b) in [("e", p.e, w.e), ("m2", p.m2, w.m2)]
            .into_iter()
            .chain(zeros)
        {
            let sigma = (a.err.powi(2) + b.err.powi(2)).sqrt();
            let deviation = (a.mean - b.mean) / sigma;
            eprintln!("{model}: {what} {a:?} in planes, {b:?} in words: {deviation:+.2}");
            assert!(sigma > 0.0 && sigma < 0.02, "{model}: {what} error {sigma}");
            assert!(
                deviation.abs() <= 4.0,
                "{model}: {what} {deviation:+.2} sigma"
            );
        }
    }
}

//! Population annealing on the CPU: bad configs refused before anything runs, the engines'
//! copies, two copies in one multispin word diverging, and the estimates against exact values
//! (Kaufman's 2D Ising solution, enumeration of a small Edwards-Anderson sample; the vector
//! engine's discrete states and clock angles against the Ising mappings and enumeration).

mod common;

use spinflip::annealing::AnnealingSummary;
use spinflip::config::{Config, Disorder, Lanes, Layout, MultispinOptions, Randoms};
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::{Engine, Populations, SpinBits, populations_of};
use spinflip::engine::{Plan, Step};
use spinflip::exact::enumerate;
use spinflip::io::run_dir::RunOptions;
use spinflip::model::Lattice;
use spinflip::model::couplings::coupling_values;
use spinflip::model::ising::IsingSystems;
use spinflip::run::RunOutcome;
use spinflip::run::run;

/// An annealing config of the 2D ferromagnet with `algorithm` and `replicas` substituted.
fn config_text(replicas: &str, algorithm: &str) -> String {
    format!(
        "(model: Ising(dims: 2, size: 8, field: 0.0), replicas: {replicas}, engine: Simple, \
         algorithm: {algorithm}, seed: 3, backend: Cpu)"
    )
}

fn refusal(text: &str) -> String {
    let config = Config::from_ron_str(text).expect("parses");
    config.validate().expect_err("must be refused").to_string()
}

const LINEAR: &str = "Annealing(theta: 2, schedule: Linear(beta_max: 0.5, count: 4))";

#[test]
fn bad_annealing_configs_are_refused_with_a_reason() {
    let cases = [
        (config_text("1", LINEAR), "at least 2 are needed, got 1"),
        (
            config_text(
                "64",
                "Annealing(theta: 0, schedule: Linear(beta_max: 0.5, count: 4))",
            ),
            "theta >= 1",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Adaptive(overlap: 1.0, beta_max: 1))",
            ),
            "must lie in (0, 1), got 1",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Adaptive(overlap: 0, beta_max: 1))",
            ),
            "must lie in (0, 1), got 0",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Adaptive(overlap: NaN, beta_max: 1))",
            ),
            "must lie in (0, 1), got NaN",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Betas([0.1, 0.3, 0.2]))",
            ),
            "beta #3 = 0.2 is not above #2 = 0.3",
        ),
        (
            config_text("64", "Annealing(theta: 1, schedule: Betas([0.1, 0.1]))"),
            "must increase",
        ),
        (
            config_text("64", "Annealing(theta: 1, schedule: Betas([0.1, NaN]))"),
            "beta #2 must be finite and > 0, got NaN",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 0))",
            ),
            "count >= 1",
        ),
        (
            config_text("64", LINEAR).replace("seed: 3", "seed: 3, temperatures: Betas([0.4])"),
            "leave out temperatures and sweeps",
        ),
        (
            config_text("2000000000", LINEAR).replace("size: 8", "size: 64"),
            "the largest population that fits is replicas: ",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 4), runs: 2, \
                 overlaps: true)",
            ),
            "needs model: EdwardsAnderson",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 4), runs: 3, \
                 overlaps: true)",
            )
            .replace("Ising(", "EdwardsAnderson("),
            "runs must be even, got 3",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 4), \
                 reweighting: Some(0))",
            ),
            "points >= 1, got 0",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 4), \
                 reweighting: Some(10))",
            )
            .replace("field: 0.0", "field: 0.5"),
            "needs integer energies, field 0",
        ),
        (
            config_text("64", LINEAR).replace("dims: 2, size: 8", "dims: 2, size: 65536"),
            "satisfied-bond count, kept in 32 bits",
        ),
        (
            config_text("64", LINEAR)
                .replace(
                    "Ising(dims: 2, size: 8, field: 0.0)",
                    "XY(dims: 2, size: 8)",
                )
                .replace("engine: Simple, ", ""),
            "XY 2D spins take every direction",
        ),
        (
            config_text("64", LINEAR)
                .replace(
                    "Ising(dims: 2, size: 8, field: 0.0)",
                    "Clock(q: 6, dims: 2, size: 8)",
                )
                .replace(
                    "engine: Simple,",
                    "updates: (proposal: Cone(acceptance: 0.5)),",
                ),
            "proposal: Cone tunes its width at each temperature",
        ),
        (
            // The bipartite antiferromagnet in a field runs as two discrete states.
            config_text("64", LINEAR)
                .replace(
                    "size: 8, field: 0.0)",
                    "size: 64, field: 0.5, antiferromagnet: true)",
                )
                .replace("engine: Simple,", "engine: Multispin(layout: Smsc),"),
            "population annealing of Ising antiferromagnet 2D runs on the vector engine",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 4), \
                 reweighting: Some(10))",
            )
            .replace(
                "Ising(dims: 2, size: 8, field: 0.0)",
                "Clock(q: 5, dims: 2, size: 8, field: 0.5)",
            )
            .replace("engine: Simple, ", ""),
            "reweighting needs integer energies, field 0",
        ),
        (
            config_text(
                "64",
                "Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 4), runs: 2, \
                 overlaps: true)",
            )
            .replace(
                "Ising(dims: 2, size: 8, field: 0.0)",
                "Potts(q: 3, dims: 2, size: 8, disorder: Bimodal)",
            )
            .replace("engine: Simple, ", ""),
            "measures the overlap of Ising spins",
        ),
    ];
    for (text, expected) in cases {
        let error = refusal(&text);
        assert!(
            error.contains(expected),
            "{text}\n gave: {error}\n wanted: {expected}"
        );
    }
}

/// Every backend takes population annealing: a CUDA config passes validation (the engine then
/// fails clearly where there is no driver or device; `tests/equality/`'s `annealing::cuda::`
/// runs it).
#[test]
fn annealing_configs_validate_for_every_backend() {
    for backend in ["Cpu", "Wgpu", "Cuda", "Auto"] {
        let text =
            config_text("64", LINEAR).replace("backend: Cpu", &format!("backend: {backend}"));
        let config = Config::from_ron_str(&text).expect("parses");
        config
            .validate()
            .unwrap_or_else(|e| panic!("backend {backend}: {e}"));
    }
}

/// The GPU validation configs (`assets/validation/annealing/`, run by docs/VALIDATION.md's
/// commands) parse and validate, with the schedule and population they say.
#[test]
fn annealing_validation_configs_validate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/validation/annealing");
    let configs = [32, 64, 128].map(|size| (format!("ising2d_L{size}.ron"), size));
    let interfaces = [32, 64].map(|size| (format!("interface_L{size}.ron"), size));
    let open = [("open_L64.ron".to_string(), 64)];
    for (name, size) in configs.into_iter().chain(interfaces).chain(open) {
        let path = dir.join(name);
        let config = Config::from_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        config
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(config.model.size(), size);
        let annealing = config.algorithm.annealing().expect("an annealing config");
        assert_eq!(annealing.runs, 8);
    }
}

/// Random lattices in every system of `systems`, and the gather `sources` applied to them.
fn copied(systems: &IsingSystems, sources: &[u32]) -> (SpinBits, SpinBits) {
    let spins = initial_spins(systems);
    let n = systems.lattice.sites();
    let mut expected = SpinBits::for_systems(systems);
    for (b, &source) in sources.iter().enumerate() {
        for site in 0..n {
            expected.set(b as u32, site, spins.up(source, site));
        }
    }
    (spins, expected)
}

/// A copy map that moves systems around, copies some several times and keeps others.
fn shuffled_sources(count: u32) -> Vec<u32> {
    (0..count)
        .map(|b| match b % 5 {
            0 => b,
            1 => (b * 7 + 3) % count,
            _ => count - 1 - b / 2,
        })
        .collect()
}

fn check_copies(engine: &mut dyn Engine, systems: &IsingSystems, what: &str) {
    let sources = shuffled_sources(systems.systems());
    let (spins, expected) = copied(systems, &sources);
    engine.set_spins(&spins.clone().into()).unwrap();
    populations_of(engine)
        .unwrap()
        .copy_systems(&sources)
        .unwrap();
    assert!(
        engine.spins().unwrap().into_bits().unwrap() == expected,
        "{what}: copies differ from the gather"
    );
    let error = populations_of(engine)
        .unwrap()
        .copy_systems(&[0])
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("a source for each of the"),
        "{what}: {error}"
    );
}

#[test]
fn engines_copy_systems_as_the_map_says() {
    let lattice = Lattice::new(2, 8);
    let ferromagnet = IsingSystems::ferromagnet(lattice, 0.0, vec![0.4], 64, 5);
    check_copies(
        &mut CpuEngine::new(ferromagnet.clone()),
        &ferromagnet,
        "simple",
    );
    let glass = IsingSystems::spin_glass(lattice, 0.0, vec![0.4], 32, 4, 5);
    let big = IsingSystems::ferromagnet(Lattice::new(2, 64), 0.0, vec![0.4], 3, 5);
    let cases = [
        (
            ferromagnet,
            Layout::Amsc {
                lanes: Lanes::Replicas,
            },
        ),
        (
            glass,
            Layout::Amsc {
                lanes: Lanes::Samples,
            },
        ),
        (big, Layout::Smsc),
    ];
    for (systems, layout) in cases {
        let options = MultispinOptions {
            layout,
            randoms: Randoms::Exact,
        };
        let mut engine = CpuMultispinEngine::new(MultispinLayout::new(systems.clone(), options));
        check_copies(&mut engine, &systems, &format!("{layout:?}"));
    }
}

/// Copies of one lattice in every lane of a word after `sweeps` sweeps at beta 0.44: how many
/// lanes still equal lane 0.
fn lanes_equal_after(randoms: Randoms, sweeps: u32) -> usize {
    let systems = IsingSystems::ferromagnet(Lattice::new(2, 8), 0.0, vec![0.0], 32, 11);
    let options = MultispinOptions {
        layout: Layout::Amsc {
            lanes: Lanes::Replicas,
        },
        randoms,
    };
    let mut engine = CpuMultispinEngine::new(MultispinLayout::new(systems.clone(), options));
    engine.set_spins(&initial_spins(&systems).into()).unwrap();
    engine.copy_systems(&[0; 32]).unwrap();
    engine.set_betas(&[0.44]).unwrap();
    let plan = Plan {
        steps: (0..sweeps).map(|sweep| Step::Sweep { sweep }).collect(),
        slots: 0,
    };
    engine.execute(&plan).unwrap();
    let spins = engine.spins().unwrap().into_bits().unwrap();
    (0..32)
        .filter(|&r| spins.system_signs(r) == spins.system_signs(0))
        .count()
}

#[test]
fn copies_in_one_word_diverge_with_exact_randoms() {
    // Every lane draws its own uniforms: after a few sweeps only lane 0 equals itself.
    assert_eq!(lanes_equal_after(Randoms::Exact, 3), 1);
    // With one uniform per word (Weigel 2012; Lulli et al. 2015) the copies stay identical for
    // ever: the correlation Barash et al. 2017 had to shuffle replicas against.
    assert_eq!(lanes_equal_after(Randoms::Shared, 3), 32);
}

fn anneal(text: &str, name: &str) -> AnnealingSummary {
    let config = Config::from_ron_str(text).expect("parses");
    let out =
        std::env::temp_dir().join(format!("spinflip-annealing-{name}-{}", std::process::id()));
    let options = RunOptions {
        overwrite: true,
        ..RunOptions::new(&out)
    };
    let outcome = run(&config, &options).expect("runs");
    for file in [
        "annealing.json",
        "annealing.csv",
        "annealing_populations.csv",
        "config.ron",
    ] {
        assert!(out.join(file).exists(), "{file} missing");
    }
    let _ = std::fs::remove_dir_all(&out);
    match outcome {
        RunOutcome::Annealed(summary) => *summary,
        other => panic!("not an annealing outcome: {other:?}"),
    }
}

/// `|measured - exact| <= bound` errors over runs, the error being positive and finite.
fn assert_within(what: &str, measured: spinflip::stats::Estimate, exact: f64, bound: f64) {
    assert!(
        measured.err > 0.0 && measured.err.is_finite(),
        "{what}: error {}",
        measured.err
    );
    let sigmas = (measured.mean - exact).abs() / measured.err;
    assert!(
        sigmas <= bound,
        "{what}: {} +- {} is {sigmas:.1} errors from the exact {exact}",
        measured.mean,
        measured.err
    );
}

/// The multi-histogram estimates of `summary` within 4 errors of its exact values (e, c, f).
fn assert_reweighted_within_the_exact_values(summary: &AnnealingSummary) {
    for (point, exact) in summary.reweighted.iter().zip(&summary.reweighted_exact) {
        let at = |q: &str| format!("reweighted {q} at beta {}", point.beta);
        assert_within(&at("e"), point.e, exact.e, 4.0);
        assert_within(&at("c"), point.c, exact.c, 4.0);
        assert_within(&at("f"), point.f, exact.f, 4.0);
    }
}

/// The plain and the free-energy-weighted averages over runs at every step, and the
/// multi-histogram estimates at 45 betas (two in three between the steps), all within their
/// errors of Kaufman's values.
#[test]
fn ising_8x8_matches_kaufman() {
    let text = config_text(
        "256",
        "Annealing(theta: 5, schedule: Linear(beta_max: 0.6, count: 15), runs: 8, \
         reweighting: Some(45))",
    )
    .replace("seed: 3", "seed: 21, plots: false");
    let summary = anneal(&text, "kaufman");
    assert_eq!(summary.steps.len(), 15);
    assert_eq!(summary.exact.len(), 15);
    assert_eq!(summary.weighted.len(), 15);
    for ((step, weighted), exact) in summary
        .steps
        .iter()
        .zip(&summary.weighted)
        .zip(&summary.exact)
        .skip(2)
    {
        let at = |q: &str| format!("{q} at beta {}", step.beta);
        assert_within(&at("e"), step.e, exact.e, 4.0);
        assert_within(&at("c"), step.c, exact.c, 4.0);
        assert_within(&at("f"), step.f, exact.f, 4.0);
        assert_within(&at("weighted e"), weighted.e, exact.e, 4.0);
        assert_within(&at("weighted c"), weighted.c, exact.c, 4.0);
        assert_within(&at("weighted f"), weighted.f, exact.f, 4.0);
    }
    assert_eq!(summary.reweighted.len(), 45);
    assert_eq!(summary.reweighted_exact.len(), 45);
    let between = summary.reweighted.iter().filter(|r| {
        let k = r.beta / 0.04;
        (k - k.round()).abs() > 0.1
    });
    assert_eq!(between.count(), 30);
    assert_reweighted_within_the_exact_values(&summary);
}

/// The 4 x 4 Ising antiferromagnet annealed on multispin words (`engine: Auto`, the replicas in
/// the lanes), its up count the staggered one: ln Z, e and the staggered `|m_s|`, `m_s^2` at
/// every step within 4 errors of the ferromagnet's enumeration (the torus is bipartite: the
/// spins `(-1)^(x+y) s_i` map one onto the other), the uniform moments not measured (NaN).
#[test]
fn bipartite_antiferromagnet_anneals_on_words_match_enumeration() {
    let text = "(model: Ising(dims: 2, size: 4, field: 0.0, antiferromagnet: true), \
                replicas: 320, algorithm: Annealing(theta: 4, schedule: Linear(beta_max: 1.0, \
                count: 6), runs: 8), seed: 23, backend: Cpu, plots: false)";
    let summary = anneal(text, "antiferromagnet");
    assert!(
        summary.run.engine.contains("multispin"),
        "{}",
        summary.run.engine
    );
    let lattice = Lattice::new(2, 4);
    let ferromagnet = vec![1i8; lattice.bonds() as usize];
    for step in &summary.steps {
        let exact = spinflip::exact::enumerate(lattice, &ferromagnet, 0.0, step.beta);
        let at = |q: &str| format!("{q} at beta {}", step.beta);
        let ln_z = exact.ln_z / lattice.sites() as f64;
        assert_within(&at("ln Z / N"), step.ln_z, ln_z, 4.0);
        assert_within(&at("e"), step.e, exact.e, 4.0);
        let staggered = step.staggered.expect("the staggered moments");
        assert_within(&at("|m_s|"), staggered.abs_m, exact.abs_m, 4.0);
        assert_within(&at("m_s^2"), staggered.m2, exact.m2, 4.0);
        assert!(step.m2.mean.is_nan(), "{}: {:?}", at("m2"), step.m2);
    }
}

/// One +-J sample on the 4 x 4 torus and on the torus twisted along y (its bonds across the y
/// edge reversed): ln Z and e at the steps against enumeration on each one's bonds, and the
/// sample's domain-wall free energy `ln Z_P - ln Z_AP` at the last beta against theirs.
#[test]
fn edwards_anderson_sample_matches_enumeration() {
    let periodic = "(model: EdwardsAnderson(dims: 2, size: 4, field: 0.0), replicas: 200, \
                engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact), \
                algorithm: Annealing(theta: 5, schedule: Adaptive(overlap: 0.8, beta_max: 1.5), \
                resampling: Multinomial, runs: 8), seed: 8, backend: Cpu, plots: false)";
    let twisted = periodic.replace(
        "field: 0.0)",
        "field: 0.0, boundaries: (Periodic, Antiperiodic))",
    );
    let lattice = Lattice::new(2, 4);
    let drawn = coupling_values(Disorder::Bimodal, &lattice, 8, 0);
    let reversed: Vec<i8> = (drawn.iter().enumerate())
        .map(|(bond, &j)| {
            let (site, axis) = (bond as u64 / 2, bond % 2);
            let across = axis == 1 && lattice.coords(site)[1] == 3;
            if across { -j } else { j }
        })
        .collect();
    let mut last_ln_z = Vec::new();
    for (text, couplings, name) in [
        (periodic, &drawn, "glass"),
        (twisted.as_str(), &reversed, "twisted-glass"),
    ] {
        let summary = anneal(text, name);
        let last = summary.steps.last().unwrap();
        assert_eq!(last.beta, 1.5);
        assert!(
            summary.steps.len() >= 4,
            "adaptive steps: {:?}",
            summary.schedule
        );
        for step in summary.steps.iter().step_by(2).chain([last]) {
            let exact = enumerate(lattice, couplings, 0.0, step.beta);
            let at = |q: &str| format!("{name}: {q} at beta {}", step.beta);
            assert_within(&at("ln Z"), step.ln_z, exact.ln_z / 16.0, 4.0);
            assert_within(&at("e"), step.e, exact.e, 4.0);
        }
        last_ln_z.push((last.ln_z, enumerate(lattice, couplings, 0.0, 1.5).ln_z));
    }
    let [(p, exact_p), (ap, exact_ap)] = [last_ln_z[0], last_ln_z[1]];
    let wall = spinflip::stats::Estimate {
        mean: 16.0 * (p.mean - ap.mean),
        err: 16.0 * p.err.hypot(ap.err),
    };
    assert_within("the domain-wall free energy", wall, exact_p - exact_ap, 4.0);
}

/// The overlap of slot j of run k with slot j of run k + runs/2: `[<q^2>]` against the
/// enumeration of two independent replicas, over 16 run pairs of one sample (errors from 16
/// units: 4 of them leave little room for chance over 20 comparisons).
#[test]
fn edwards_anderson_overlap_matches_enumeration() {
    let text = "(model: EdwardsAnderson(dims: 2, size: 4, field: 0.0), replicas: 200, \
                engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact), \
                algorithm: Annealing(theta: 5, schedule: Linear(beta_max: 2.0, count: 10), \
                runs: 32, overlaps: true), seed: 12, backend: Cpu, plots: false)";
    let summary = anneal(text, "overlap");
    let lattice = Lattice::new(2, 4);
    let couplings = coupling_values(Disorder::Bimodal, &lattice, 12, 0);
    assert_eq!(summary.overlaps.len(), 10);
    for step in &summary.overlaps {
        assert_eq!(step.units, 16);
        let exact = enumerate(lattice, &couplings, 0.0, step.beta);
        let at = |q: &str| format!("{q} at beta {}", step.beta);
        assert_within(&at("q2"), step.overlaps.q2, exact.q2, 4.0);
        assert_within(&at("ql"), step.overlaps.ql, exact.ql, 4.0);
        assert!(step.overlaps.q4.mean <= step.overlaps.q2.mean);
        assert!(step.overlaps.g.mean.is_finite(), "{step:?}");
    }
    // Cold enough for the overlap to be far from its beta-0 value 1/N.
    assert!(summary.overlaps.last().unwrap().overlaps.q2.mean > 0.3);
}

#[test]
fn annealing_runs_from_a_ron_file_on_the_command_line() {
    let dir = std::env::temp_dir().join(format!("spinflip-annealing-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("anneal.ron");
    let reweighted = LINEAR.replace("count: 4)", "count: 4), reweighting: Some(8)");
    std::fs::write(&path, config_text("16", &reweighted)).unwrap();
    let out = dir.join("out");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_spinflip"))
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("exact e"), "{stdout}");
    let svg = std::fs::read_to_string(out.join("annealing.svg")).unwrap();
    assert!(
        svg.contains("multi-histogram reweighting"),
        "no reweighted curve"
    );
    assert!(out.join("annealing_reweighted.csv").exists());
    // Resuming a finished anneal from its last checkpoint writes the same results again.
    let csv = std::fs::read(out.join("annealing.csv")).unwrap();
    std::fs::remove_file(out.join("annealing.csv")).unwrap();
    let resumed = std::process::Command::new(env!("CARGO_BIN_EXE_spinflip"))
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .arg("--resume")
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert_eq!(std::fs::read(out.join("annealing.csv")).unwrap(), csv);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A population anneal of the spin glass writes `couplings.npy` (its instance), the same file
/// as a run of Metropolis sweeps of the same model, samples and seed: one instance for both.
#[test]
fn a_spin_glass_anneal_writes_the_couplings_of_its_instance() {
    let model = "model: EdwardsAnderson(dims: 2, size: 4, field: 0.0), samples: 2, seed: 31, \
                 replicas: 64, engine: Multispin(layout: Amsc(lanes: Replicas)), backend: Cpu, \
                 plots: false";
    let anneal = format!(
        "({model}, algorithm: Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 2)))"
    );
    let sweeps = format!(
        "({model}, temperatures: Betas([0.5]), sweeps: (thermalize: 2, measure: 2, every: 1))"
    );
    let [annealed, swept] = [anneal, sweeps].map(|text| {
        let dir = tempfile::tempdir().unwrap();
        run(&common::config(&text), &RunOptions::new(dir.path())).expect("runs");
        std::fs::read(dir.path().join("couplings.npy")).expect("couplings.npy written")
    });
    assert_eq!(annealed, swept);
    let (shape, offset) = spinflip::io::output::npy_i8_header(&annealed).unwrap();
    assert_eq!(shape, vec![2, 4, 4, 2]);
    assert_eq!(annealed.len() - offset, 2 * 4 * 4 * 2);
}

/// The 2-state Potts model on the vector engine is the Ising model at half the coupling,
/// shifted by one bond energy a site in 2D (`delta(s, s') = (1 + s s')/2`): `e(beta) = -1 +
/// e_I(beta/2)/2`, `f(beta) = -1 + f_I(beta/2)/2`, `c(beta) = c_I(beta/2)`, Kaufman's on 4 x 4,
/// at the steps and reweighted between them (histograms of energies in units of `2^-24`). The
/// anneal starts from `ln Z = N ln 2` at beta 0.
#[test]
fn potts_2_state_anneal_matches_kaufman_through_the_ising_mapping() {
    let text = "(model: Potts(q: 2, dims: 2, size: 4), replicas: 400, \
                algorithm: Annealing(theta: 4, schedule: Linear(beta_max: 1.6, count: 8), \
                runs: 8, reweighting: Some(12)), seed: 17, backend: Cpu, plots: false)";
    let summary = anneal(text, "potts2");
    assert_eq!(summary.steps.len(), 8);
    assert_eq!(summary.exact.len(), 8, "the summary's exact values");
    for (step, reported) in summary.steps.iter().zip(&summary.exact) {
        let ising = spinflip::exact::kaufman(4, step.beta / 2.0);
        let (e, c, f) = (-1.0 + ising.e / 2.0, ising.c, -1.0 + ising.f / 2.0);
        assert_eq!((reported.e, reported.c, reported.f), (e, c, f));
        let at = |q: &str| format!("{q} at beta {}", step.beta);
        assert_within(&at("e"), step.e, e, 4.0);
        assert_within(&at("c"), step.c, c, 4.0);
        assert_within(&at("f"), step.f, f, 4.0);
    }
    assert_eq!(summary.reweighted.len(), 12);
    assert_reweighted_within_the_exact_values(&summary);
}

/// The diluted 3-state Potts model (3D, L = 2, one site in four empty), the Blume-Capel model
/// in a field (2D, L = 2), the 3-state Potts model with two open axes (3D, L = 2), the Ising
/// antiferromagnet on the 3^2 triangular torus and the diluted one on the kagome lattice of 6^2
/// cells (its 27 sites less about a third; per kagome site), the Ising antiferromagnet in a
/// field on the 4^2 honeycomb torus and the 3-state Potts antiferromagnet (3D, L = 2): `ln Z /
/// N`, `e` and `<m^2>` against the enumeration of every configuration of each sample's occupied
/// sites on its bonds, from `ln Z = N_occupied ln q` at beta 0, and on the bipartite lattices
/// the staggered magnetisation's `<|m_s|>` and `<m_s^2>`, which the others do not report; and
/// the Blume-Capel anneal's `ln Z / N` and `e` reweighted between its steps.
#[test]
fn discrete_state_anneals_match_enumeration() {
    use spinflip::exact::enumerate_states;
    use spinflip::model::vector::states::States;
    use spinflip::model::vector::{SampleBonds, vector_systems};
    let cases = [
        "(model: Potts(q: 3, dims: 3, size: 2, dilution: 0.25), replicas: 300, \
         algorithm: Annealing(theta: 4, schedule: Linear(beta_max: 1.2, count: 6), runs: 8), \
         seed: 5, backend: Cpu, plots: false)",
        "(model: BlumeCapel(dims: 2, size: 2, crystal_field: 0.5, field: 0.2), replicas: 300, \
         updates: (proposal: HeatBath), algorithm: Annealing(theta: 4, \
         schedule: Linear(beta_max: 1.5, count: 6), resampling: Multinomial, runs: 8, \
         reweighting: Some(9)), seed: 6, backend: Cpu, plots: false)",
        "(model: Potts(q: 3, dims: 3, size: 2, boundaries: (Open, Periodic, Open)), \
         replicas: 300, algorithm: Annealing(theta: 4, schedule: Linear(beta_max: 1.5, \
         count: 6), runs: 8), seed: 7, backend: Cpu, plots: false)",
        "(model: Ising(dims: 2, size: 3, lattice: Triangular, antiferromagnet: true), \
         replicas: 300, algorithm: Annealing(theta: 4, schedule: Linear(beta_max: 2.0, \
         count: 6), runs: 8), seed: 8, backend: Cpu, plots: false)",
        "(model: Ising(dims: 2, size: 6, lattice: Kagome, antiferromagnet: true, \
         dilution: 0.3), replicas: 300, algorithm: Annealing(theta: 4, \
         schedule: Linear(beta_max: 2.0, count: 6), runs: 8), seed: 9, backend: Cpu, \
         plots: false)",
        "(model: Ising(dims: 2, size: 4, lattice: Honeycomb, antiferromagnet: true, \
         field: 0.5), replicas: 300, algorithm: Annealing(theta: 4, \
         schedule: Linear(beta_max: 1.5, count: 6), runs: 8), seed: 10, backend: Cpu, \
         plots: false)",
        "(model: Potts(q: 3, dims: 3, size: 2, antiferromagnet: true), replicas: 300, \
         algorithm: Annealing(theta: 4, schedule: Linear(beta_max: 1.5, count: 6), runs: 8), \
         seed: 11, backend: Cpu, plots: false)",
    ];
    for (k, text) in cases.iter().enumerate() {
        let config = Config::from_ron_str(text).unwrap();
        let states = States::of(&config).unwrap();
        let systems = vector_systems(&config, None, None);
        let empty = systems
            .vacancies
            .as_ref()
            .map_or(Vec::new(), |v| v.sample(0).to_vec());
        let bonds: Vec<f64> = match systems.bonds(0) {
            SampleBonds::PerBond(bonds) => bonds.iter().map(|&j| f64::from(j)).collect(),
            SampleBonds::Uniform(j) => vec![f64::from(j); systems.lattice.bonds() as usize],
            SampleBonds::Words(_) => panic!("no Gaussian glass here"),
        };
        let couplings = (Some(bonds.as_slice()), empty.as_slice());
        let summary = anneal(text, &format!("states{k}"));
        assert_eq!(summary.steps.len(), 6);
        let bipartite = systems.is_bipartite_antiferromagnet();
        assert_eq!(bipartite, k >= 5, "{text}");
        for step in &summary.steps {
            let exact = enumerate_states(&states, systems.lattice, couplings, step.beta);
            let at = |q: &str| format!("{text}: {q} at beta {}", step.beta);
            assert_within(&at("ln Z"), step.ln_z, exact.ln_z, 4.0);
            assert_within(&at("e"), step.e, exact.e, 4.0);
            assert_within(&at("m2"), step.m2, exact.m2, 4.0);
            assert_eq!(step.staggered.is_some(), bipartite, "{}", at("|m_s|"));
            if let Some(staggered) = step.staggered {
                let [abs_ms, ms2, _] = exact.staggered;
                assert_within(&at("|m_s|"), staggered.abs_m, abs_ms, 4.0);
                assert_within(&at("m_s^2"), staggered.m2, ms2, 4.0);
            }
        }
        for point in &summary.reweighted {
            let exact = enumerate_states(&states, systems.lattice, couplings, point.beta);
            let at = |q: &str| format!("{text}: reweighted {q} at beta {}", point.beta);
            assert_within(&at("ln Z"), point.ln_z, exact.ln_z, 4.0);
            assert_within(&at("e"), point.e, exact.e, 4.0);
        }
        assert_eq!(summary.reweighted.len(), [0, 9, 0, 0, 0, 0, 0][k]);
    }
}

/// The 2D Ising model on a 4 x 4 torus with an antiperiodic axis, which `engine: Auto` puts on
/// the multispin engine (the reversed bonds in its coupling words): `e`, `c` and `f` at the
/// steps and reweighted between them against Kaufman's terms with the twist's signs, which the
/// summary reports as its exact values. (The vector engine's twist: the clock's test below.)
#[test]
fn antiperiodic_ising_anneal_matches_the_twisted_torus() {
    let text = "(model: Ising(dims: 2, size: 4, boundaries: (Periodic, Antiperiodic)), \
                replicas: 416, algorithm: Annealing(theta: 4, schedule: Linear(beta_max: 0.8, \
                count: 8), runs: 16, reweighting: Some(12)), seed: 23, backend: Cpu, \
                plots: false)";
    let summary = anneal(text, "antiperiodic");
    assert!(
        summary.run.engine.starts_with("multispin"),
        "{}",
        summary.run.engine
    );
    check_twisted_anneal(&summary);
}

/// The Ising ferromagnet and antiferromagnet on the 6 x 6 triangular torus in a field, and on
/// the kagome lattice drawn on it (27 spins), which `engine: Auto` puts on the multispin engine
/// (the diagonal bonds joining sites of one colour, updated in four passes; the kagome
/// lattice's holes never updated or counted; the antiferromagnet's reversed bonds in its
/// coupling words): `e`, `c` and `f` per spin at the steps against the row transfer matrices of
/// the triangular and kagome lattices.
#[test]
fn triangular_and_kagome_multispin_anneals_match_the_transfer_matrix() {
    use spinflip::exact::{
        DiscreteSpins, kagome_ln_partition_function, triangular_ln_partition_function,
    };
    // The ferromagnets' steps end where their energy still fluctuates.
    let cases = [
        ("Triangular", 1.0, 0.4, 24),
        ("Triangular", -1.0, 1.2, 25),
        ("Kagome", 1.0, 0.6, 26),
        ("Kagome", -1.0, 1.2, 27),
    ];
    for (lattice, j, beta_max, seed) in cases {
        let antiferromagnet = j < 0.0;
        let text = format!(
            "(model: Ising(dims: 2, size: 6, lattice: {lattice}, field: 0.3, \
             antiferromagnet: {antiferromagnet}), replicas: 416, algorithm: Annealing(theta: 4, \
             schedule: Linear(beta_max: {beta_max}, count: 8), runs: 16), seed: {seed}, \
             backend: Cpu, plots: false)"
        );
        let summary = anneal(&text, &format!("{lattice}-{antiferromagnet}"));
        assert!(
            summary.run.engine.starts_with("multispin"),
            "{}",
            summary.run.engine
        );
        assert_eq!(summary.steps.len(), 8);
        let spins = DiscreteSpins::clock(2, j, 0.3);
        let n = if lattice == "Kagome" { 27.0 } else { 36.0 };
        for step in &summary.steps {
            let ln_z = match lattice {
                "Kagome" => kagome_ln_partition_function(&spins, (6, 6), step.beta),
                _ => triangular_ln_partition_function(&spins, (6, 6), step.beta),
            };
            let (e, c, f) = (
                -ln_z.d1 / n,
                step.beta * step.beta * ln_z.d2 / n,
                -ln_z.v / (n * step.beta),
            );
            let at = |q: &str| format!("{lattice} J = {j}: {q} at beta {}", step.beta);
            assert_within(&at("e"), step.e, e, 4.0);
            assert_within(&at("c"), step.c, c, 4.0);
            assert_within(&at("f"), step.f, f, 4.0);
        }
    }
}

/// The steps' and the reweighted estimates of an anneal of the twisted 4 x 4 torus against
/// Kaufman's twisted terms.
fn check_twisted_anneal(summary: &AnnealingSummary) {
    assert_eq!(summary.exact.len(), 8, "the summary's exact values");
    for (step, reported) in summary.steps.iter().zip(&summary.exact) {
        let twisted = spinflip::exact::kaufman_twisted(4, step.beta, 1).unwrap();
        assert_eq!(
            (reported.e, reported.c, reported.f),
            (twisted.e, twisted.c, twisted.f)
        );
        let at = |q: &str| format!("{q} at beta {}", step.beta);
        assert_within(&at("e"), step.e, twisted.e, 4.0);
        assert_within(&at("c"), step.c, twisted.c, 4.0);
        assert_within(&at("f"), step.f, twisted.f, 4.0);
    }
    assert_eq!(summary.reweighted_exact.len(), 12);
    assert_reweighted_within_the_exact_values(summary);
}

/// The 4-state clock model is two Ising models at half the coupling (`cos(theta_i - theta_j)
/// = (s_i s_j + t_i t_j)/2` for `theta = (s, t)` on the diagonals): `ln Z = 2 ln Z_I(beta/2)`,
/// so `e = e_I`, `f = f_I` and `c = 2 c_I` of Kaufman's 4 x 4 at `beta/2`, at the steps and
/// reweighted between them (histograms of the fixed-point bond sums); on the torus and on the
/// torus twisted along y (the clock's twist reverses both Ising spins: Kaufman's twisted terms).
#[test]
fn clock_4_state_anneal_matches_two_ising_models() {
    let torus = "(model: Clock(q: 4, dims: 2, size: 4), replicas: 400, \
                 algorithm: Annealing(theta: 4, schedule: Linear(beta_max: 1.6, count: 8), \
                 runs: 8, reweighting: Some(12)), seed: 19, backend: Cpu, plots: false)";
    let twisted = torus.replace("size: 4)", "size: 4, boundaries: (Periodic, Antiperiodic))");
    let cases = [
        (torus, "clock4", false),
        (twisted.as_str(), "clock4-twisted", true),
    ];
    for (text, name, twisted) in cases {
        let ising = |beta: f64| match twisted {
            true => spinflip::exact::kaufman_twisted(4, beta / 2.0, 1).unwrap(),
            false => spinflip::exact::kaufman(4, beta / 2.0),
        };
        let summary = anneal(text, name);
        assert_eq!(summary.reweighted.len(), 12);
        let steps = (summary.steps.iter()).map(|s| ("", s.beta, [s.e, s.c, s.f]));
        let reweighted =
            (summary.reweighted.iter()).map(|r| ("reweighted ", r.beta, [r.e, r.c, r.f]));
        for (kind, beta, [e, c, f]) in steps.chain(reweighted) {
            let exact = ising(beta);
            let at = |q: &str| format!("{name}: {kind}{q} at beta {beta}");
            assert_within(&at("e"), e, exact.e, 4.0);
            assert_within(&at("c"), c, 2.0 * exact.c, 4.0);
            assert_within(&at("f"), f, exact.f, 4.0);
        }
    }
}

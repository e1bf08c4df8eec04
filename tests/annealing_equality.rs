//! Population annealing on the wgpu engines equals the CPU bit for bit: the engines' copies
//! (random maps, permutations, one source copied to many destinations) and new temperatures
//! in every layout, and whole anneals run from a config: per-beta records, populations,
//! resampling (population sizes, families) and the annealing.csv/json contents.

mod common;

use spinflip::config::{Layout, MultispinOptions, PhiloxPath, Randoms};
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::gpu::{MultispinGpuEngine, SimpleGpuEngine};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::{Engine, Plan, SpinBits};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;
use spinflip::sim::{AnnealingSummary, RunOptions, initial_spins, run};

use common::{AMSC_REPLICAS, AMSC_SAMPLES, AMSC_TEMPERATURES};

/// A CPU engine and a wgpu engine of `systems`, simple or multispin laid out as `layout`,
/// both holding the hot start.
fn engines(systems: &IsingSystems, layout: Option<Layout>) -> [Box<dyn Engine>; 2] {
    let ctx = common::gpu(PhiloxPath::Auto);
    let mut engines: [Box<dyn Engine>; 2] = match layout {
        None => [
            Box::new(CpuEngine::new(systems.clone())),
            Box::new(SimpleGpuEngine::new(ctx, systems.clone(), 64).unwrap()),
        ],
        Some(layout) => {
            let options = MultispinOptions {
                layout,
                randoms: Randoms::Exact,
            };
            let layout = MultispinLayout::new(systems.clone(), options);
            [
                Box::new(CpuMultispinEngine::new(layout.clone())),
                Box::new(MultispinGpuEngine::new(ctx, layout, 64).unwrap()),
            ]
        }
    };
    let spins = initial_spins(systems);
    for engine in &mut engines {
        engine.set_spins(&spins).unwrap();
    }
    engines
}

/// The engine cases: the simple engine with two temperatures and a field, and every multispin
/// lane meaning (lanes holding temperatures leave lanes idle) and SMSC.
fn cases() -> Vec<(IsingSystems, Option<Layout>)> {
    let small = Lattice::new(2, 6);
    let glass = |samples, replicas, betas: usize| {
        let betas = (0..betas).map(|k| 0.3 + 0.1 * k as f64).collect();
        IsingSystems::spin_glass(small, 0.0, betas, samples, replicas, 5)
    };
    vec![
        (
            IsingSystems::ferromagnet(small, 0.1, vec![0.3, 0.5], 8, 5),
            None,
        ),
        (glass(2, 64, 1), Some(AMSC_REPLICAS)),
        (glass(32, 2, 1), Some(AMSC_SAMPLES)),
        (glass(2, 2, 3), Some(AMSC_TEMPERATURES)),
        (
            IsingSystems::ferromagnet(Lattice::new(2, 64), 0.0, vec![0.4], 4, 5),
            Some(Layout::Smsc),
        ),
    ]
}

/// xorshift64: the test's own reproducible randoms.
fn randoms(seed: u64) -> impl FnMut(u32) -> u32 {
    let mut state = seed;
    move |below| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % u64::from(below)) as u32
    }
}

/// Copy maps over `count` systems: random sources (repeats included), a random permutation,
/// and the last system copied into every even system.
fn copy_maps(count: u32, seed: u64) -> [Vec<u32>; 3] {
    let mut random = randoms(seed);
    let repeats = (0..count).map(|_| random(count)).collect();
    let mut permutation: Vec<u32> = (0..count).collect();
    for i in (1..count as usize).rev() {
        permutation.swap(i, random(i as u32 + 1) as usize);
    }
    let broadcast = (0..count)
        .map(|b| if b % 2 == 0 { count - 1 } else { b })
        .collect();
    [repeats, permutation, broadcast]
}

/// Both engines' spins, equal.
fn equal_spins(engines: &mut [Box<dyn Engine>; 2], case: &str) -> SpinBits {
    let cpu = engines[0].spins().unwrap();
    let gpu = engines[1].spins().unwrap();
    assert!(
        cpu == gpu,
        "{case}: the wgpu engine's spins differ from the CPU's"
    );
    cpu
}

#[test]
fn copy_systems_on_wgpu_equal_the_cpu_engines() {
    for (systems, layout) in cases() {
        let mut engines = engines(&systems, layout);
        for (k, sources) in copy_maps(systems.systems(), 11).iter().enumerate() {
            let before = equal_spins(&mut engines, "before");
            for engine in &mut engines {
                engine.copy_systems(sources).unwrap();
            }
            let case = format!("{layout:?} map {k}");
            let after = equal_spins(&mut engines, &case);
            assert_ne!(after, before, "{case}: nothing was copied");
        }
        let error = engines[1].copy_systems(&[0]).unwrap_err().to_string();
        assert!(error.contains("a source for each of the"), "{error}");
    }
}

/// Annealing steps at the engine level: copies, new betas, sweeps numbered on, a measurement;
/// measurements and spins equal after every step.
#[test]
fn annealing_steps_on_wgpu_equal_the_cpu_engines() {
    for (systems, layout) in cases() {
        let mut engines = engines(&systems, layout);
        let mut sweep = 0;
        for (step, sources) in copy_maps(systems.systems(), 29).iter().enumerate() {
            let betas: Vec<f64> = systems
                .betas
                .iter()
                .map(|beta| beta + 0.2 * step as f64)
                .collect();
            let mut plan = Plan::default();
            for _ in 0..2 {
                plan.sweep(sweep);
                sweep += 1;
            }
            plan.measure();
            let [cpu, gpu] = engines.each_mut().map(|engine| {
                engine.copy_systems(sources).unwrap();
                engine.set_betas(&betas).unwrap();
                engine.execute(&plan).unwrap()
            });
            let case = format!("{layout:?} step {step}");
            assert_eq!(cpu, gpu, "{case}: measurements differ");
            equal_spins(&mut engines, &case);
        }
        let error = engines[1].set_betas(&[]).unwrap_err().to_string();
        assert!(error.contains("inverse temperatures"), "{error}");
    }
}

/// What an anneal writes that does not depend on the backend: annealing.csv,
/// annealing_populations.csv, and annealing.json without the backend, adapter and timing.
fn anneal_outputs(text: &str, backend: &str) -> [String; 3] {
    let config = common::config(&format!("{text}, backend: {backend}, plots: false)"));
    let dir = tempfile::tempdir().unwrap();
    run(&config, &RunOptions::new(dir.path())).expect("anneals");
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let mut summary: AnnealingSummary = serde_json::from_str(&read("annealing.json")).unwrap();
    assert_eq!(summary.run.backend, backend.to_lowercase());
    assert!(summary.steps.len() >= 3, "{text}: {:?}", summary.schedule);
    (
        summary.run.backend,
        summary.run.adapter,
        summary.ps_per_flip,
    ) = (String::new(), String::new(), 0.0);
    [
        read("annealing.csv"),
        read("annealing_populations.csv"),
        serde_json::to_string_pretty(&summary).unwrap(),
    ]
}

/// An anneal of `text` (a config without its closing parenthesis) on the CPU and on wgpu.
fn assert_anneals_equal(text: &str) {
    let cpu = anneal_outputs(text, "Cpu");
    let gpu = anneal_outputs(text, "Wgpu");
    for (file, (cpu, gpu)) in [
        "annealing.csv",
        "annealing_populations.csv",
        "annealing.json",
    ]
    .iter()
    .zip(cpu.iter().zip(&gpu))
    {
        assert!(cpu == gpu, "{text}\n{file} differs:\n{cpu}\nvs\n{gpu}");
    }
    // Fewer families than replicas: resampling copied replicas, so the copies were tested.
    let copied = cpu[1].lines().skip(1).any(|line| {
        let columns: Vec<&str> = line.split(',').collect();
        columns[15].parse::<u32>().unwrap() < columns[3].parse().unwrap()
    });
    assert!(copied, "{text}: no replica was ever copied");
}

#[test]
fn simple_anneal_on_wgpu_equals_the_cpu_bit_for_bit() {
    let model =
        "(model: Ising(dims: 2, size: 8, field: 0.0), replicas: 40, engine: Simple, seed: 4";
    assert_anneals_equal(&format!(
        "{model}, algorithm: Annealing(theta: 2, schedule: Linear(beta_max: 0.6, count: 4), \
         runs: 2)"
    ));
    assert_anneals_equal(&format!(
        "{model}, algorithm: Annealing(theta: 1, schedule: Adaptive(overlap: 0.6, \
         beta_max: 0.5), resampling: Multinomial, runs: 2)"
    ));
}

#[test]
fn amsc_anneal_on_wgpu_equals_the_cpu_bit_for_bit() {
    assert_anneals_equal(
        "(model: EdwardsAnderson(dims: 2, size: 4, field: 0.0), replicas: 100, \
         engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact), \
         algorithm: Annealing(theta: 2, schedule: Adaptive(overlap: 0.7, beta_max: 1.0), \
         runs: 2), seed: 8",
    );
    assert_anneals_equal(
        "(model: EdwardsAnderson(dims: 2, size: 4, field: 0.0), samples: 32, replicas: 8, \
         engine: Multispin(layout: Amsc(lanes: Samples), randoms: Exact), \
         algorithm: Annealing(theta: 1, schedule: Betas([0.3, 0.6, 0.9])), seed: 9",
    );
}

#[test]
fn smsc_anneal_on_wgpu_equals_the_cpu_bit_for_bit() {
    assert_anneals_equal(
        "(model: Ising(dims: 2, size: 64, field: 0.0), replicas: 8, \
         engine: Multispin(layout: Smsc, randoms: Exact), \
         algorithm: Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 3)), seed: 10",
    );
}

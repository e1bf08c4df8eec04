//! Population annealing's bit-equality cases and comparisons, shared by the wgpu and CUDA
//! instances of `tests/equality/annealing.rs`: the engines'
//! copies (random maps, permutations, one source copied to many destinations) and new
//! temperatures in every layout, and whole anneals run from a config, compared through their
//! per-beta records, populations, resampling (population sizes, families) and the
//! annealing.csv/json contents.

use spinflip::annealing::AnnealingSummary;
use spinflip::config::{Layout, MultispinOptions, Randoms};
use spinflip::engine::annealing::ResamplingTable;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::{Engine, Plan, SpinBits, populations_of};
use spinflip::io::run_dir::RunOptions;
use spinflip::model::ising::IsingSystems;
use spinflip::model::{Lattice, Shape};
use spinflip::run::run;

use super::{AMSC_REPLICAS, AMSC_SAMPLES, AMSC_TEMPERATURES};

/// The engine cases: the simple engine with two temperatures and a field, and every multispin
/// lane meaning (lanes holding temperatures leave lanes idle) and SMSC, and the honeycomb's
/// brick wall (its resampling bins counted over its `3 N / 2` bonds).
pub fn cases() -> Vec<(IsingSystems, Option<Layout>)> {
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
        (
            IsingSystems::ferromagnet(
                Lattice::shaped(Shape::Honeycomb, 2, 6),
                0.0,
                vec![0.6],
                64,
                5,
            ),
            Some(AMSC_REPLICAS),
        ),
    ]
}

/// The multispin layout of `systems` laid out as `layout`, with exact randoms (as annealing
/// runs them).
pub fn multispin_layout(systems: &IsingSystems, layout: Layout) -> MultispinLayout {
    let options = MultispinOptions {
        layout,
        randoms: Randoms::Exact,
    };
    MultispinLayout::new(systems.clone(), options)
}

/// The CPU engine of `systems` (simple, or multispin laid out as `layout`) and `other`, built
/// for the same case, both holding the hot start.
pub fn with_cpu(
    systems: &IsingSystems,
    layout: Option<Layout>,
    other: Box<dyn Engine>,
) -> [Box<dyn Engine>; 2] {
    let cpu: Box<dyn Engine> = match layout {
        None => Box::new(CpuEngine::new(systems.clone())),
        Some(layout) => Box::new(CpuMultispinEngine::new(multispin_layout(systems, layout))),
    };
    let mut engines = [cpu, other];
    let spins = initial_spins(systems);
    for engine in &mut engines {
        engine.set_spins(&spins.clone().into()).unwrap();
    }
    engines
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
/// the last system copied into every even system, and each run of 32 systems stretched over the
/// 94 from its first (in order, as resampling lays out a population: with lanes holding
/// replicas, a word's lanes then come from three consecutive words).
pub fn copy_maps(count: u32, seed: u64) -> [Vec<u32>; 4] {
    let mut random = randoms(seed);
    let repeats = (0..count).map(|_| random(count)).collect();
    let mut permutation: Vec<u32> = (0..count).collect();
    for i in (1..count as usize).rev() {
        permutation.swap(i, random(i as u32 + 1) as usize);
    }
    let broadcast = (0..count)
        .map(|b| if b % 2 == 0 { count - 1 } else { b })
        .collect();
    let stretched = (0..count)
        .map(|b| (b / 32 * 32 + 3 * (b % 32)).min(count - 1))
        .collect();
    [repeats, permutation, broadcast, stretched]
}

/// Both engines' spins, equal.
fn equal_spins(engines: &mut [Box<dyn Engine>; 2], case: &str) -> SpinBits {
    let cpu = engines[0].spins().unwrap().into_bits().unwrap();
    let other = engines[1].spins().unwrap().into_bits().unwrap();
    assert!(cpu == other, "{case}: the spins differ from the CPU's");
    cpu
}

/// Copies by the maps of [`copy_maps`] leave both engines (the CPU's first) with the same
/// spins, and change them; a map of the wrong length is refused.
pub fn compare_copies(engines: &mut [Box<dyn Engine>; 2], systems: &IsingSystems, case: &str) {
    for (k, sources) in copy_maps(systems.systems(), 11).iter().enumerate() {
        let before = equal_spins(engines, "before");
        for engine in engines.iter_mut() {
            populations_of(engine.as_mut())
                .unwrap()
                .copy_systems(sources)
                .unwrap();
        }
        let case = format!("{case} map {k}");
        let after = equal_spins(engines, &case);
        assert_ne!(after, before, "{case}: nothing was copied");
    }
    let error = populations_of(engines[1].as_mut())
        .unwrap()
        .copy_systems(&[0])
        .unwrap_err()
        .to_string();
    assert!(error.contains("a source for each of the"), "{error}");
}

/// Resampling steps every engine refuses, each with the same words: a population that outgrows
/// its block (two copies of every replica) or dies out (none), before any lattice moves, a
/// step without a table, and a step without a measurement since the last. `systems` holds whole blocks of 64 slots.
pub fn check_resampling_refusals(engines: &mut [Box<dyn Engine>; 2], systems: &IsingSystems) {
    let blocks = systems.systems() / 64;
    let mut measure = Plan::default();
    measure.measure();
    let mut resample = Plan::default();
    resample.resample(1).unwrap();
    for engine in engines.iter_mut() {
        for (copies, expected) in [(2, "beyond its 64 slots"), (0, "died out")] {
            let before = engine.spins().unwrap().into_bits().unwrap();
            engine.execute(&measure).unwrap();
            let mut table = ResamplingTable::identity(64, blocks);
            table.entries.fill([copies, 0]);
            populations_of(engine.as_mut())
                .unwrap()
                .set_resampling(&table)
                .unwrap();
            let error = engine.execute(&resample).unwrap_err().to_string();
            assert!(
                error.contains(expected),
                "{}: {error}",
                engine.info().backend
            );
            assert_eq!(
                engine.spins().unwrap().into_bits().unwrap(),
                before,
                "a refused step moved lattices"
            );
        }
        engine.execute(&measure).unwrap();
        let error = engine.execute(&resample).unwrap_err().to_string();
        assert!(error.contains("without a resampling table"), "{error}");
        // A step moves the lattices, so the next needs a new measurement.
        engine.execute(&measure).unwrap();
        let identity = ResamplingTable::identity(64, blocks);
        populations_of(engine.as_mut())
            .unwrap()
            .set_resampling(&identity)
            .unwrap();
        engine.execute(&resample).unwrap();
        populations_of(engine.as_mut())
            .unwrap()
            .set_resampling(&identity)
            .unwrap();
        let error = engine.execute(&resample).unwrap_err().to_string();
        assert!(error.contains("needs a measurement"), "{error}");
    }
    let mut late = Plan::default();
    late.measure();
    assert!(
        late.resample(2).is_err(),
        "a resampling step after a measurement"
    );
}

/// Annealing steps at the engine level: copies, new betas, sweeps numbered on, a measurement;
/// measurements and spins of both engines (the CPU's first) equal after every step. A beta
/// list of the wrong length is refused.
pub fn compare_annealing_steps(
    engines: &mut [Box<dyn Engine>; 2],
    systems: &IsingSystems,
    case: &str,
) {
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
        let [cpu, other] = engines.each_mut().map(|engine| {
            populations_of(engine.as_mut())
                .unwrap()
                .copy_systems(sources)
                .unwrap();
            populations_of(engine.as_mut())
                .unwrap()
                .set_betas(&betas)
                .unwrap();
            engine.execute(&plan).unwrap()
        });
        let case = format!("{case} step {step}");
        assert_eq!(cpu, other, "{case}: measurements differ");
        equal_spins(engines, &case);
    }
    let error = populations_of(engines[1].as_mut())
        .unwrap()
        .set_betas(&[])
        .unwrap_err()
        .to_string();
    assert!(error.contains("inverse temperatures"), "{error}");
}

/// Whole anneals (configs without their closing parenthesis) of the simple engine: a linear
/// schedule, and an adaptive one with multinomial resampling.
pub const SIMPLE_ANNEALS: [&str; 2] = [
    "(model: Ising(dims: 2, size: 8, field: 0.0), replicas: 40, engine: Simple, seed: 4, \
     algorithm: Annealing(theta: 2, schedule: Linear(beta_max: 0.6, count: 4), runs: 2)",
    "(model: Ising(dims: 2, size: 8, field: 0.0), replicas: 40, engine: Simple, seed: 4, \
     algorithm: Annealing(theta: 1, schedule: Adaptive(overlap: 0.6, beta_max: 0.5), \
     resampling: Multinomial, runs: 2)",
];

/// Whole anneals of AMSC engines: lanes holding replicas (adaptive schedule) and samples (a
/// list of betas), resampled from tables keyed by bond level; and in a field (tables keyed by
/// replica) with nearest-integer and multinomial resampling; the glass with open edges, its
/// overlaps over two runs; the bipartite antiferromagnet, its levels of the staggered count.
pub const AMSC_ANNEALS: [&str; 6] = [
    "(model: EdwardsAnderson(dims: 2, size: 4, field: 0.0), replicas: 100, \
     engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact), \
     algorithm: Annealing(theta: 2, schedule: Adaptive(overlap: 0.7, beta_max: 1.0), \
     runs: 2), seed: 8",
    "(model: EdwardsAnderson(dims: 2, size: 4, field: 0.0), samples: 32, replicas: 8, \
     engine: Multispin(layout: Amsc(lanes: Samples), randoms: Exact), \
     algorithm: Annealing(theta: 1, schedule: Betas([0.3, 0.6, 0.9])), seed: 9",
    "(model: Ising(dims: 2, size: 4, field: 0.25), replicas: 150, \
     engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact), \
     algorithm: Annealing(theta: 1, schedule: Linear(beta_max: 0.4, count: 4), \
     resampling: Nearest, runs: 2), seed: 11",
    "(model: Ising(dims: 2, size: 4, field: 0.25), replicas: 150, \
     engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact), \
     algorithm: Annealing(theta: 1, schedule: Linear(beta_max: 0.4, count: 4), \
     resampling: Multinomial, runs: 2), seed: 12",
    "(model: EdwardsAnderson(dims: 3, size: 4, field: 0.0, boundaries: (Open, Periodic, Open)), \
     samples: 32, replicas: 8, engine: Multispin(layout: Amsc(lanes: Samples), randoms: Exact), \
     algorithm: Annealing(theta: 1, schedule: Betas([0.3, 0.6, 0.9]), runs: 2), seed: 17",
    "(model: Ising(dims: 2, size: 4, field: 0.0, antiferromagnet: true), replicas: 100, \
     engine: Multispin(layout: Amsc(lanes: Replicas), randoms: Exact), \
     algorithm: Annealing(theta: 1, schedule: Linear(beta_max: 0.6, count: 4), runs: 2), \
     seed: 19",
];

/// A whole anneal of the SMSC engine.
pub const SMSC_ANNEALS: [&str; 1] = [
    "(model: Ising(dims: 2, size: 64, field: 0.0), replicas: 8, \
     engine: Multispin(layout: Smsc, randoms: Exact), \
     algorithm: Annealing(theta: 1, schedule: Linear(beta_max: 0.5, count: 3)), seed: 10",
];

/// Whole anneals of the vector engine: the diluted 3-state Potts model (Metropolis,
/// floor-ceil resampling, reweighted), the Blume-Capel model in a field (heat bath, multinomial) and the
/// 6-state clock model (adaptive schedule), every replica its own table entry; and the 3-state
/// Potts model in a population of more systems than a GPU grid's layers.
pub const STATE_ANNEALS: [&str; 4] = [
    "(model: Potts(q: 3, dims: 2, size: 8, dilution: 0.1), samples: 2, replicas: 40, \
     algorithm: Annealing(theta: 2, schedule: Linear(beta_max: 1.2, count: 4), runs: 2, \
     reweighting: Some(6)), seed: 13",
    "(model: BlumeCapel(dims: 2, size: 8, crystal_field: 0.5, field: 0.2), replicas: 40, \
     updates: (proposal: HeatBath), algorithm: Annealing(theta: 1, \
     schedule: Linear(beta_max: 1.0, count: 4), resampling: Multinomial, runs: 2), seed: 14",
    "(model: Clock(q: 6, dims: 2, size: 8), replicas: 40, \
     algorithm: Annealing(theta: 2, schedule: Adaptive(overlap: 0.6, beta_max: 1.0), \
     runs: 2), seed: 15",
    // More systems than a GPU grid holds along z (65535): the engines launch in pieces.
    "(model: Potts(q: 3, dims: 2, size: 4), replicas: 70000, \
     algorithm: Annealing(theta: 1, schedule: Linear(beta_max: 1.0, count: 3), runs: 1), \
     seed: 16",
];

/// What an anneal writes that does not depend on the backend: annealing.csv,
/// annealing_populations.csv, and annealing.json without the backend, adapter, timing and
/// provenance.
fn anneal_outputs(text: &str, backend: &str) -> [String; 3] {
    let config = super::config(&format!("{text}, backend: {backend}, plots: false)"));
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
        summary.origin.provenance,
    ) = (String::new(), String::new(), 0.0, None);
    [
        read("annealing.csv"),
        read("annealing_populations.csv"),
        serde_json::to_string_pretty(&summary).unwrap(),
    ]
}

/// An anneal of `text` (a config without its closing parenthesis) on the CPU and on `backend`
/// (`Wgpu`, `Cuda`): the same files, byte for byte, and replicas were copied.
pub fn assert_anneals_equal(text: &str, backend: &str) {
    let cpu = anneal_outputs(text, "Cpu");
    let other = anneal_outputs(text, backend);
    for (file, (cpu, other)) in [
        "annealing.csv",
        "annealing_populations.csv",
        "annealing.json",
    ]
    .iter()
    .zip(cpu.iter().zip(&other))
    {
        assert!(
            cpu == other,
            "{text}\n{file} differs on {backend}:\n{cpu}\nvs\n{other}"
        );
    }
    // Fewer families than replicas: resampling copied replicas, so the copies were tested.
    let copied = cpu[1].lines().skip(1).any(|line| {
        let columns: Vec<&str> = line.split(',').collect();
        columns[15].parse::<u32>().unwrap() < columns[3].parse().unwrap()
    });
    assert!(copied, "{text}: no replica was ever copied");
}

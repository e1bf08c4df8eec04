//! The simple CUDA engine produces the same lattices and observations as the CPU engine and the
//! simple wgpu engine, bit for bit, for 2D and 3D lattices with and without a field; its Philox
//! reproduces the known-answer vectors. The multispin CUDA engine produces the same spin words,
//! per-lane observations and overlap planes as the CPU and wgpu multispin engines: 2D and 3D,
//! AMSC (lanes as samples, temperatures, replicas) and SMSC, ferromagnet and Edwards-Anderson,
//! with a field, exact and shared randoms. Parallel tempering and population annealing (copies,
//! new betas, whole anneals' outputs) take the CPU's decisions bit for bit; whole tempering runs
//! write the CPU's files and resume to the uninterrupted run's.
//!
//! These tests SKIP, printing a notice, where the machine has no CUDA driver (`libcuda.so`) or no
//! CUDA device. This is the one place spinflip's tests may skip: CI has no NVIDIA GPU, and
//! `cargo test --features cuda` must still pass there. Anything else that goes wrong on a machine
//! with a device (no NVRTC, a compile error, a kernel fault) fails the test.
#![cfg(feature = "cuda")]

mod common;

use common::{AMSC_REPLICAS, AMSC_SAMPLES, AMSC_TEMPERATURES};
use spinflip::config::{Disorder, Layout, MultispinOptions, PhiloxPath, Randoms};
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::cuda::philox_kat::philox_blocks;
use spinflip::engine::cuda::{
    CONSTANT_TABLE_WORDS, CudaDevice, MultispinCudaEngine, SimpleCudaEngine, device_count,
    driver_loadable,
};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::wgpu::{MultispinWgpuEngine, SimpleWgpuEngine};
use spinflip::engine::{Betas, Engine, Measurements, Observation, Plan, SpinBits};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;
use spinflip::rng::{PHILOX_KNOWN_ANSWERS, philox4x32_10};

/// Whether this machine has a CUDA driver and device; where not, prints that `test` is skipped.
fn cuda_present(test: &str) -> bool {
    match device_count() {
        Ok(0) => eprintln!("SKIPPED {test}: the CUDA driver found no device"),
        Err(error) if !driver_loadable() => eprintln!("SKIPPED {test}: {error}"),
        Err(error) => panic!("{test}: {error}"),
        Ok(_) => return true,
    }
    false
}

/// Device 0, which [`cuda_present`] said exists.
fn device() -> CudaDevice {
    CudaDevice::open(None).unwrap_or_else(|e| panic!("opening CUDA device 0: {e}"))
}

fn systems(dims: u32, size: u32, field: f64) -> IsingSystems {
    IsingSystems::ferromagnet(
        Lattice::new(dims, size),
        field,
        vec![0.2, 0.44, 0.9],
        2,
        0xdead_beef_0000_0001,
    )
}

/// Lattices and observations of `engine` after each of two rounds of `plan`.
fn rounds(engine: &mut dyn Engine, plan: &Plan) -> Vec<(SpinBits, Vec<Observation>)> {
    (0..2)
        .map(|_| {
            let observations = engine.execute(plan).unwrap().observations;
            (engine.spins().unwrap(), observations)
        })
        .collect()
}

/// The engine CUDA is compared with.
#[derive(Debug, Clone, Copy)]
enum Reference {
    Cpu,
    Wgpu,
}

impl Reference {
    fn engine(self, systems: &IsingSystems) -> Box<dyn Engine> {
        match self {
            Reference::Cpu => Box::new(CpuEngine::new(systems.clone())),
            Reference::Wgpu => {
                let ctx = common::gpu(PhiloxPath::Auto);
                Box::new(SimpleWgpuEngine::new(ctx, systems.clone(), 64).unwrap())
            }
        }
    }
}

/// CUDA against `reference` for `sweeps` sweeps (two rounds) of a `size^dims` lattice.
fn compare(reference: Reference, dims: u32, size: u32, field: f64, sweeps: u32) {
    let systems = systems(dims, size, field);
    let spins = initial_spins(&systems);
    let plan = common::sweep_plan(3, sweeps, 4);
    let mut cuda = SimpleCudaEngine::new(device(), systems.clone(), 64).unwrap();
    let mut other = reference.engine(&systems);
    cuda.set_spins(&spins).unwrap();
    other.set_spins(&spins).unwrap();
    let expected = rounds(other.as_mut(), &plan);
    let got = rounds(&mut cuda, &plan);
    for (round, (expected, got)) in expected.iter().zip(&got).enumerate() {
        let case = format!("{dims}D L={size} h={field} round {round}: {reference:?} vs CUDA");
        if let Some(diff) = common::first_difference(&systems.lattice, &expected.0, &got.0) {
            panic!("{case}: lattices differ at {diff}");
        }
        assert_ne!(got.0, spins, "{case}: nothing moved");
        assert_eq!(expected.1, got.1, "{case}: observations differ");
        assert_eq!(
            got.1.len(),
            plan.slots as usize * systems.systems() as usize
        );
    }
}

/// 2D and 3D sizes, odd multiples of the colour half-width included, with and without a field.
const CASES: [(u32, u32, f64); 12] = [
    (2, 2, 0.0),
    (2, 6, 0.0),
    (2, 8, 0.0),
    (2, 32, 0.0),
    (2, 16, 0.3),
    (2, 256, -0.1),
    (3, 2, 0.0),
    (3, 4, 0.0),
    (3, 6, 0.0),
    (3, 10, 0.0),
    (3, 8, -0.7),
    (3, 32, 0.2),
];

#[test]
fn cuda_matches_cpu_bit_for_bit() {
    if !cuda_present("cuda_matches_cpu") {
        return;
    }
    for (dims, size, field) in CASES {
        compare(Reference::Cpu, dims, size, field, 20);
    }
}

#[test]
fn cuda_matches_wgpu_bit_for_bit() {
    if !cuda_present("cuda_matches_wgpu") {
        return;
    }
    for (dims, size, field) in CASES {
        compare(Reference::Wgpu, dims, size, field, 20);
    }
}

/// 600 sweeps are 1200 launches: more than one synchronisation batch.
#[test]
fn cuda_long_plan_matches_cpu_bit_for_bit() {
    if !cuda_present("cuda_long_plan") {
        return;
    }
    compare(Reference::Cpu, 2, 8, 0.1, 600);
}

/// A multispin plan of several batches (2 x 700 sweep launches and 234 measurements, at most
/// 1024 launches a batch), whose measurements are read back batch by batch while the device
/// runs the next.
#[test]
fn cuda_multispin_plans_of_several_batches_match_cpu_bit_for_bit() {
    if !cuda_present("cuda_multispin_plans_of_several_batches") {
        return;
    }
    let case = MultispinCase::new(2, 6, AMSC_SAMPLES, Disorder::Bimodal);
    assert!(
        case.layout().systems.overlaps() > 0,
        "overlaps read back too"
    );
    compare_multispin_plan(Reference::Cpu, &case, &common::sweep_plan(5, 700, 3));
}

#[test]
fn cuda_block_size_does_not_change_results() {
    if !cuda_present("cuda_block_size") {
        return;
    }
    let systems = systems(2, 18, 0.0);
    let spins = initial_spins(&systems);
    let mut results = Vec::new();
    for block_size in [32, 64, 256, 1024] {
        let mut cuda = SimpleCudaEngine::new(device(), systems.clone(), block_size).unwrap();
        cuda.set_spins(&spins).unwrap();
        results.push(rounds(&mut cuda, &common::sweep_plan(3, 20, 4)));
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn cuda_philox_matches_vectors_and_cpu() {
    if !cuda_present("cuda_philox") {
        return;
    }
    let mut device = device();
    let inputs: Vec<_> = PHILOX_KNOWN_ANSWERS
        .iter()
        .map(|&(c, k, _)| (c, k))
        .collect();
    let out = philox_blocks(&mut device, &inputs).unwrap();
    for ((ctr, key, expected), got) in PHILOX_KNOWN_ANSWERS.iter().zip(&out) {
        assert_eq!(got, expected, "ctr {ctr:08x?} key {key:08x?}");
    }
    let mut x = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 32) as u32
    };
    let inputs: Vec<_> = (0..4096)
        .map(|_| ([next(), next(), next(), next()], [next(), next()]))
        .collect();
    let out = philox_blocks(&mut device, &inputs).unwrap();
    for ((ctr, key), got) in inputs.iter().zip(&out) {
        assert_eq!(
            *got,
            philox4x32_10(*ctr, *key),
            "ctr {ctr:08x?} key {key:08x?}"
        );
    }
}

/// A multispin case: geometry, word layout, model and randoms, with system counts that fill
/// the words of its layout.
struct MultispinCase {
    dims: u32,
    size: u32,
    layout: Layout,
    disorder: Disorder,
    field: f64,
    randoms: Randoms,
    /// Samples and temperatures instead of the layout's usual counts.
    samples: Option<u32>,
    temperatures: Option<usize>,
}

impl MultispinCase {
    fn new(dims: u32, size: u32, layout: Layout, disorder: Disorder) -> Self {
        MultispinCase {
            dims,
            size,
            layout,
            disorder,
            field: 0.0,
            randoms: Randoms::Exact,
            samples: None,
            temperatures: None,
        }
    }

    fn layout(&self) -> MultispinLayout {
        let (samples, replicas, temperatures) =
            common::full_word_systems(self.layout, self.disorder);
        let samples = self.samples.unwrap_or(samples);
        let temperatures = self.temperatures.unwrap_or(temperatures);
        let systems = IsingSystems {
            lattice: Lattice::new(self.dims, self.size),
            field: self.field,
            betas: (0..temperatures)
                .map(|t| 0.15 + 0.12 * (t % 8) as f64)
                .collect(),
            disorder: self.disorder,
            samples,
            replicas,
            seed: 0x0123_4567_89ab_cdef,
            first_sample: 0,
            all_samples: samples,
            slab: None,
        };
        let options = MultispinOptions {
            layout: self.layout,
            randoms: self.randoms,
        };
        MultispinLayout::new(systems, options)
    }

    fn name(&self) -> String {
        let layout = self.layout();
        format!(
            "{}D L={} {} {:?} h={}",
            self.dims,
            self.size,
            layout.describe(),
            self.disorder,
            self.field
        )
    }
}

impl Reference {
    fn multispin_engine(self, layout: &MultispinLayout) -> Box<dyn Engine> {
        match self {
            Reference::Cpu => Box::new(CpuMultispinEngine::new(layout.clone())),
            Reference::Wgpu => {
                let ctx = common::gpu(PhiloxPath::Auto);
                Box::new(MultispinWgpuEngine::new(ctx, layout.clone(), 64, Betas::Fixed).unwrap())
            }
        }
    }
}

/// Lattices and measurements of `engine` after each of two rounds of `plan`.
fn multispin_rounds(engine: &mut dyn Engine, plan: &Plan) -> Vec<(SpinBits, Measurements)> {
    (0..2)
        .map(|_| {
            let measured = engine.execute(plan).unwrap();
            (engine.spins().unwrap(), measured)
        })
        .collect()
}

/// The multispin CUDA engine against `reference` for two rounds of the multispin plan.
fn compare_multispin(reference: Reference, case: &MultispinCase) {
    compare_multispin_plan(reference, case, &common::sweep_plan(5, 12, 3));
}

/// The multispin CUDA engine against `reference` for two rounds of `plan`.
fn compare_multispin_plan(reference: Reference, case: &MultispinCase, plan: &Plan) {
    let layout = case.layout();
    let spins = initial_spins(&layout.systems);
    let mut cuda = MultispinCudaEngine::new(device(), layout.clone(), 64).unwrap();
    let mut other = reference.multispin_engine(&layout);
    cuda.set_spins(&spins).unwrap();
    other.set_spins(&spins).unwrap();
    let expected = multispin_rounds(other.as_mut(), plan);
    let got = multispin_rounds(&mut cuda, plan);
    let overlaps = layout.systems.overlaps() as usize * case.size as usize;
    for (round, (expected, got)) in expected.iter().zip(&got).enumerate() {
        let name = format!("{} round {round}: {reference:?} vs CUDA", case.name());
        if let Some(diff) = common::first_difference(&layout.lattice(), &expected.0, &got.0) {
            panic!("{name}: lattices differ at {diff}");
        }
        assert_ne!(got.0, spins, "{name}: nothing moved");
        assert_eq!(expected.1.observations, got.1.observations, "{name}");
        assert_eq!(expected.1.overlap_planes, got.1.overlap_planes, "{name}");
        assert_eq!(expected.1.link_overlaps, got.1.link_overlaps, "{name}");
        let systems = layout.systems.systems() as usize;
        assert_eq!(got.1.observations.len(), plan.slots as usize * systems);
        assert_eq!(got.1.overlap_planes.len(), plan.slots as usize * overlaps);
        let links = plan.slots * layout.systems.overlaps();
        assert_eq!(got.1.link_overlaps.len(), links as usize);
    }
}

/// 2D and 3D, AMSC lanes as samples, temperatures and replicas, and SMSC; ferromagnet and
/// Edwards-Anderson; with a field; exact, packed and shared randoms.
fn multispin_cases() -> Vec<MultispinCase> {
    use Disorder::{Bimodal, Ferromagnet};
    let shared = |case: MultispinCase| MultispinCase {
        randoms: Randoms::Shared,
        ..case
    };
    let packed = |case: MultispinCase| MultispinCase {
        randoms: Randoms::Packed,
        ..case
    };
    let field = |field: f64, case: MultispinCase| MultispinCase { field, ..case };
    vec![
        MultispinCase::new(2, 6, AMSC_SAMPLES, Bimodal),
        MultispinCase::new(2, 8, AMSC_TEMPERATURES, Bimodal),
        MultispinCase::new(2, 4, AMSC_REPLICAS, Ferromagnet),
        field(0.4, MultispinCase::new(2, 10, AMSC_REPLICAS, Bimodal)),
        shared(MultispinCase::new(2, 6, AMSC_TEMPERATURES, Ferromagnet)),
        MultispinCase::new(3, 4, AMSC_SAMPLES, Bimodal),
        field(-0.7, MultispinCase::new(3, 6, AMSC_TEMPERATURES, Bimodal)),
        MultispinCase::new(3, 2, AMSC_REPLICAS, Ferromagnet),
        shared(MultispinCase::new(3, 4, AMSC_SAMPLES, Bimodal)),
        MultispinCase::new(2, 64, Layout::Smsc, Ferromagnet),
        field(0.25, MultispinCase::new(2, 128, Layout::Smsc, Bimodal)),
        MultispinCase::new(3, 64, Layout::Smsc, Bimodal),
        shared(MultispinCase::new(2, 64, Layout::Smsc, Bimodal)),
        packed(MultispinCase::new(2, 256, Layout::Smsc, Ferromagnet)),
        packed(field(
            0.25,
            MultispinCase::new(2, 128, Layout::Smsc, Bimodal),
        )),
        packed(MultispinCase::new(3, 8, AMSC_SAMPLES, Bimodal)),
        packed(MultispinCase::new(3, 6, AMSC_SAMPLES, Bimodal)),
        packed(field(
            -0.7,
            MultispinCase::new(3, 8, AMSC_TEMPERATURES, Bimodal),
        )),
    ]
}

#[test]
fn cuda_multispin_matches_cpu_bit_for_bit() {
    if !cuda_present("cuda_multispin_matches_cpu") {
        return;
    }
    for case in multispin_cases() {
        compare_multispin(Reference::Cpu, &case);
    }
}

#[test]
fn cuda_multispin_matches_wgpu_bit_for_bit() {
    if !cuda_present("cuda_multispin_matches_wgpu") {
        return;
    }
    for case in multispin_cases() {
        compare_multispin(Reference::Wgpu, &case);
    }
}

/// Threshold tables too large for constant memory are read from global memory, with the same
/// bits.
#[test]
fn cuda_multispin_large_threshold_tables_match_cpu_bit_for_bit() {
    if !cuda_present("cuda_multispin_large_threshold_tables") {
        return;
    }
    let case = MultispinCase {
        temperatures: Some(300),
        ..MultispinCase::new(2, 64, Layout::Smsc, Disorder::Ferromagnet)
    };
    let tables = case.layout().threshold_tables().len();
    assert!(
        tables > CONSTANT_TABLE_WORDS,
        "{tables} words fit constant memory"
    );
    compare_multispin(Reference::Cpu, &case);
}

/// Many word systems of a 3D spin glass go group by group, each group's sweeps kept in L2 (on
/// devices with at least 48 MiB of it, such as the H100's 50), with the same bits.
#[test]
fn cuda_multispin_word_system_groups_match_cpu_bit_for_bit() {
    if !cuda_present("cuda_multispin_word_system_groups") {
        return;
    }
    let case = MultispinCase {
        samples: Some(320),
        temperatures: Some(1),
        ..MultispinCase::new(3, 64, AMSC_SAMPLES, Disorder::Bimodal)
    };
    let layout = case.layout();
    assert_eq!(layout.word_systems(), 20);
    let device = device();
    let large_l2 = device.l2_bytes >= 48 << 20;
    let groups = MultispinCudaEngine::new(device, layout, 64)
        .unwrap()
        .sweep_groups();
    eprintln!("{}: {groups} groups of word systems", case.name());
    assert!(!large_l2 || groups > 2, "{groups} groups, one a stream");
    compare_multispin(Reference::Cpu, &case);
}

#[test]
fn cuda_multispin_block_size_does_not_change_results() {
    if !cuda_present("cuda_multispin_block_size") {
        return;
    }
    for case in [
        MultispinCase::new(3, 4, AMSC_TEMPERATURES, Disorder::Bimodal),
        MultispinCase::new(2, 128, Layout::Smsc, Disorder::Bimodal),
    ] {
        let layout = case.layout();
        let spins = initial_spins(&layout.systems);
        let mut results = Vec::new();
        for block_size in [32, 64, 256, 1024] {
            let mut cuda = MultispinCudaEngine::new(device(), layout.clone(), block_size).unwrap();
            cuda.set_spins(&spins).unwrap();
            results.push(multispin_rounds(&mut cuda, &common::sweep_plan(5, 12, 3)));
        }
        assert!(results.windows(2).all(|w| w[0] == w[1]), "{}", case.name());
    }
}

/// Parallel tempering on the CUDA engines takes the CPU's decisions bit for bit: lattices,
/// observations, temperature history and tempering state, for the simple engine and every
/// multispin exchange kind.
#[test]
fn cuda_tempering_matches_cpu_bit_for_bit() {
    use common::tempering::{compare_tempering, tempering_cases, tempering_systems};
    if !cuda_present("cuda_tempering_matches_cpu_bit_for_bit") {
        return;
    }
    for field in [0.0, 0.2] {
        let systems = tempering_systems(2, 6, Disorder::Ferromagnet, field, (1, 3, 4));
        let mut cpu = CpuEngine::new(systems.clone());
        let mut cuda = SimpleCudaEngine::new(device(), systems.clone(), 64).unwrap();
        compare_tempering(
            &format!("CUDA simple h={field}"),
            &systems,
            &mut cpu,
            &mut cuda,
        );
    }
    for case in tempering_cases() {
        let layout = case.layout();
        let mut cpu = CpuMultispinEngine::new(layout.clone());
        let mut cuda = MultispinCudaEngine::new(device(), layout.clone(), 64).unwrap();
        let name = format!("CUDA {}", case.name());
        compare_tempering(&name, &layout.systems, &mut cpu, &mut cuda);
    }
}

/// Swap rounds at zero field right after another round, whose counts the observables kernel
/// takes instead of the update before them (the tally), as on the CPU; the rounds after the
/// measurements are tallied, and those measurements take their satisfied bonds from the tally.
#[test]
fn cuda_swap_rounds_counted_apart_match_the_cpu() {
    use common::tempering::{compare_tempering_plans, rounds_after_rounds, tempering_cases};
    if !cuda_present("cuda_swap_rounds_counted_apart_match_the_cpu") {
        return;
    }
    let cases = tempering_cases();
    for case in cases.iter().filter(|case| case.field == 0.0).take(3) {
        let layout = case.layout();
        let mut cpu = CpuMultispinEngine::new(layout.clone());
        let mut cuda = MultispinCudaEngine::new(device(), layout.clone(), 64).unwrap();
        let name = format!("CUDA {} rounds after rounds", case.name());
        let plans = rounds_after_rounds();
        compare_tempering_plans(&name, &layout.systems, &mut cpu, &mut cuda, &plans);
    }
}

/// Parallel tempering of the spin glass through the whole run loop on CUDA, with a round every
/// sweep (each tallied by the sweep before it, decided by the sweep after it, some across a
/// measurement), every second sweep, and every sweep on two temperatures (whose rounds of odd
/// parity have no pairs): a run halted after a checkpoint and resumed writes the uninterrupted
/// run's files, and those are the CPU's.
#[test]
fn cuda_tempering_runs_resume_and_equal_the_cpu() {
    use common::runs::{TEMPERING, cpu_and_gpu_identical, resumed_equals_uninterrupted};
    if !cuda_present("cuda_tempering_runs_resume_and_equal_the_cpu") {
        return;
    }
    let cuda = TEMPERING.replace("backend: Wgpu", "backend: Cuda");
    for (every, count) in [(1, 4), (2, 4), (1, 2)] {
        let text = cuda
            .replace("Tempering(every: 2)", &format!("Tempering(every: {every})"))
            .replace("count: 4", &format!("count: {count}"));
        eprintln!("a round every {every} sweeps, {count} temperatures");
        resumed_equals_uninterrupted(&text);
        cpu_and_gpu_identical(&text);
    }
}

/// Swap rounds every third sweep, the first sweep after each making the round's exchange as it
/// loads the spins (the paired update), on every exchange kind, as on the CPU.
#[test]
fn cuda_rounds_every_third_sweep_match_the_cpu() {
    use common::tempering::{compare_tempering_plans, rounds_every_third_sweep, tempering_cases};
    if !cuda_present("cuda_rounds_every_third_sweep_match_the_cpu") {
        return;
    }
    for case in tempering_cases() {
        let layout = case.layout();
        let mut cpu = CpuMultispinEngine::new(layout.clone());
        let mut cuda = MultispinCudaEngine::new(device(), layout.clone(), 64).unwrap();
        let name = format!("CUDA {} rounds every third sweep", case.name());
        let plans = rounds_every_third_sweep();
        compare_tempering_plans(&name, &layout.systems, &mut cpu, &mut cuda, &plans);
    }
}

/// Parallel tempering with its word systems, and the pairs of the paired updates, in several
/// groups a stream (an L2 of 20 MiB assumed), swap rounds after every sweep and after every
/// third (sweeps after a paired one, grouped by word system again), as on the CPU.
#[test]
fn cuda_tempering_in_groups_matches_the_cpu() {
    use common::tempering::{
        TemperingCase, compare_tempering_plans, plans, rounds_every_third_sweep,
    };
    if !cuda_present("cuda_tempering_in_groups_matches_the_cpu") {
        return;
    }
    let case = TemperingCase {
        dims: 3,
        size: 32,
        layout: AMSC_SAMPLES,
        disorder: Disorder::Bimodal,
        field: 0.0,
        counts: (384, 2, 4),
        randoms: Randoms::Packed,
    };
    let layout = case.layout();
    let mut device = device();
    device.l2_bytes = 20 << 20;
    let mut cpu = CpuMultispinEngine::new(layout.clone());
    let mut cuda = MultispinCudaEngine::new(device, layout.clone(), 64).unwrap();
    let name = format!("CUDA {} in groups", case.name());
    compare_tempering_plans(&name, &layout.systems, &mut cpu, &mut cuda, &plans());
    let plans = rounds_every_third_sweep();
    compare_tempering_plans(&name, &layout.systems, &mut cpu, &mut cuda, &plans);
    let groups = cuda.sweep_groups();
    eprintln!("{name}: {groups} groups of word systems");
    assert!(groups >= 4, "{groups} groups, one a stream");
}

/// A CPU engine and a CUDA engine of `systems`, simple or multispin laid out as `layout`, both
/// holding the hot start; the multispin one opened for changing betas, as an anneal opens it.
fn annealing_engines(systems: &IsingSystems, layout: Option<Layout>) -> [Box<dyn Engine>; 2] {
    use common::annealing::{multispin_layout, with_cpu};
    let cuda: Box<dyn Engine> = match layout {
        None => Box::new(SimpleCudaEngine::new(device(), systems.clone(), 64).unwrap()),
        Some(layout) => Box::new(
            MultispinCudaEngine::with_betas(
                device(),
                multispin_layout(systems, layout),
                64,
                Betas::Changing,
            )
            .unwrap(),
        ),
    };
    with_cpu(systems, layout, cuda)
}

/// The shared annealing cases, and SMSC with 300 temperatures, whose threshold tables are too
/// large for constant memory (new betas then go to the global table).
fn annealing_cases() -> Vec<(IsingSystems, Option<Layout>)> {
    let betas = (0..300).map(|t| 0.2 + 0.001 * f64::from(t)).collect();
    let global = IsingSystems::ferromagnet(Lattice::new(2, 64), 0.0, betas, 1, 6);
    let options = MultispinOptions {
        layout: Layout::Smsc,
        randoms: Randoms::Exact,
    };
    let tables = MultispinLayout::new(global.clone(), options)
        .threshold_tables()
        .len();
    assert!(
        tables > CONSTANT_TABLE_WORDS,
        "{tables} words fit constant memory"
    );
    let mut cases = common::annealing::cases();
    cases.push((global, Some(Layout::Smsc)));
    cases
}

/// Copies (random maps, permutations, one source to many), then copies, new betas, sweeps and
/// a measurement per step, in every layout.
#[test]
fn cuda_copies_and_annealing_steps_match_cpu_bit_for_bit() {
    use common::annealing::{compare_annealing_steps, compare_copies};
    if !cuda_present("cuda_copies_and_annealing_steps") {
        return;
    }
    for (systems, layout) in annealing_cases() {
        let case = format!("CUDA {layout:?}, {} temperatures", systems.betas.len());
        compare_copies(&mut annealing_engines(&systems, layout), &systems, &case);
        compare_annealing_steps(&mut annealing_engines(&systems, layout), &systems, &case);
        if systems.systems() % 64 == 0 && layout.is_some() {
            let engines = &mut annealing_engines(&systems, layout);
            common::annealing::check_resampling_refusals(engines, &systems);
        }
    }
}

/// An engine opened for fixed betas with one temperature compiles its thresholds in, and so
/// refuses new ones, saying why, instead of sweeping at the old beta.
#[test]
fn cuda_engine_for_fixed_betas_refuses_new_betas() {
    if !cuda_present("cuda_engine_for_fixed_betas") {
        return;
    }
    let systems = IsingSystems::ferromagnet(Lattice::new(2, 8), 0.0, vec![0.4], 32, 3);
    let layout = common::annealing::multispin_layout(&systems, AMSC_REPLICAS);
    let mut cuda = MultispinCudaEngine::new(device(), layout, 64).unwrap();
    let error = cuda.set_betas(&[0.5]).unwrap_err().to_string();
    assert!(error.contains("compiled its thresholds"), "{error}");
}

/// Whole anneals (fixed and adaptive schedules, floor/ceil and multinomial resampling; simple,
/// AMSC lanes holding replicas and samples, SMSC) write the CPU's annealing.csv,
/// annealing_populations.csv and annealing.json byte for byte.
#[test]
fn cuda_anneals_match_cpu_bit_for_bit() {
    use common::annealing::{AMSC_ANNEALS, SIMPLE_ANNEALS, SMSC_ANNEALS, assert_anneals_equal};
    if !cuda_present("cuda_anneals") {
        return;
    }
    for text in SIMPLE_ANNEALS
        .iter()
        .chain(&AMSC_ANNEALS)
        .chain(&SMSC_ANNEALS)
    {
        assert_anneals_equal(text, "Cuda");
    }
}

/// The hot start kernel on CUDA writes the CPU engines' lattices (`initial_spins`'s), bit for
/// bit, for the simple engine and every multispin layout.
#[test]
fn cuda_hot_start_matches_cpu_bit_for_bit() {
    if !cuda_present("cuda_hot_start") {
        return;
    }
    let (simple, layouts) = common::hot_start_cases();
    /// A case's name and lattice, the CPU engine and the CUDA engine.
    type Pair = (String, Lattice, Box<dyn Engine>, Box<dyn Engine>);
    let mut pairs: Vec<Pair> = Vec::new();
    for systems in simple {
        let cuda = SimpleCudaEngine::new(device(), systems.clone(), 64).unwrap();
        let name = format!(
            "simple {}D L={}",
            systems.lattice.dims, systems.lattice.size
        );
        let cpu = CpuEngine::new(systems.clone());
        pairs.push((name, systems.lattice, Box::new(cpu), Box::new(cuda)));
    }
    for layout in layouts {
        let cuda = MultispinCudaEngine::new(device(), layout.clone(), 64).unwrap();
        let name = format!("{} L={}", layout.describe(), layout.lattice().size);
        let cpu = CpuMultispinEngine::new(layout.clone());
        pairs.push((name, layout.lattice(), Box::new(cpu), Box::new(cuda)));
    }
    for (name, lattice, mut cpu, mut cuda) in pairs {
        cpu.hot_start().unwrap();
        cuda.hot_start().unwrap();
        let expected = cpu.spins().unwrap();
        if let Some(diff) = common::first_difference(&lattice, &expected, &cuda.spins().unwrap()) {
            panic!("{name}: the CUDA hot start differs at {diff}");
        }
    }
}

/// Sample slices on CUDA (`IsingSystems::sample_slice`): an engine of samples `first .. first +
/// count` ends every plan with the bits those samples have in the whole run on the CPU
/// (lattices, observations, overlaps, tempering state), for the simple engine and every
/// multispin layout, with and without tempering.
#[test]
fn cuda_sample_slices_equal_the_whole_run() {
    use common::slices::{SliceCase, compare_case, cpu, slice_cases};
    if !cuda_present("cuda_sample_slices_equal_the_whole_run") {
        return;
    }
    let mut cuda = |case: &SliceCase, systems: &IsingSystems| -> Box<dyn Engine> {
        match case.layout {
            None => Box::new(SimpleCudaEngine::new(device(), systems.clone(), 64).unwrap()),
            Some(layout) => {
                let layout = case.multispin(systems, layout);
                Box::new(MultispinCudaEngine::new(device(), layout, 64).unwrap())
            }
        }
    };
    for case in slice_cases() {
        for tempering in [false, true] {
            compare_case(&case, tempering, &mut cpu, &mut cuda);
        }
    }
}

/// Lattices split into slabs on CUDA (`IsingSystems::plane_slab`): multispin engines holding one
/// slab each (threads, each with its own CUDA engine, trading halos through `LocalHalos`) end
/// every plan with the bits of the whole lattices on the CPU (spins, summed observations,
/// overlap planes and link overlaps): SMSC in 2D and 3D and every AMSC lanes kind, ferromagnet
/// and spin glass, exact and shared randoms.
#[test]
fn cuda_slabs_equal_the_whole_lattices() {
    use common::slabs::{SlabCase, compare_slabs, slab_cases};
    use spinflip::engine::Halo;
    if !cuda_present("cuda_slabs_equal_the_whole_lattices") {
        return;
    }
    let open = |case: &SlabCase, slab: &IsingSystems, halo: Box<dyn Halo>| -> Box<dyn Engine> {
        let layout = case.layout(slab);
        Box::new(MultispinCudaEngine::slab(device(), layout, 64, halo).unwrap())
    };
    for case in slab_cases(true) {
        let whole = CpuMultispinEngine::new(case.layout(&case.systems));
        compare_slabs(&case, Box::new(whole), &open);
    }
}

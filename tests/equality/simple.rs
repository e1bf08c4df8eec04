//! The simple GPU engines produce the CPU engine's lattices and observations, bit for bit: 2D
//! and 3D lattices of several sizes (odd multiples of the colour half-width among them), with and
//! without a field, plans of one batch of launches and of several, every block size; wgpu on
//! both WGSL Philox paths, and CUDA against wgpu too. Sweeps done as pieces ([`Step::Part`]),
//! cut in several ways and over several plans, give the whole sweeps' lattices, measurements
//! and tempering state on the CPU and on each backend.

use crate::common;
use crate::common::backend::Gpu;
use crate::common::pieces::{cuts, in_pieces};
use crate::common::tempering::tempering_systems;
use spinflip::config::Disorder;
use spinflip::engine::cpu::CpuEngine;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::tempering::Chains;
use spinflip::engine::{Engine, Measurements, Plan, SpinBits, tempering_of};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;

backends! {
    both: [
        engine_2d_matches_cpu_bit_for_bit,
        engine_3d_matches_cpu_bit_for_bit,
        long_plan_matches_cpu_bit_for_bit,
        block_size_does_not_change_results,
        pieces_of_sweeps_match_cpu_whole_sweeps,
        systems_past_the_grid_z_limit_match_cpu_bit_for_bit,
    ],
    wgpu: [u32_philox_path_matches_cpu_bit_for_bit],
    cuda: [matches_wgpu_bit_for_bit],
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

/// 2D sizes, odd multiples of the colour half-width included, with and without a field.
const CASES_2D: [(u32, u32, f64); 6] = [
    (2, 2, 0.0),
    (2, 6, 0.0),
    (2, 8, 0.0),
    (2, 32, 0.0),
    (2, 16, 0.3),
    (2, 256, -0.1),
];

/// 3D sizes, likewise.
const CASES_3D: [(u32, u32, f64); 6] = [
    (3, 2, 0.0),
    (3, 4, 0.0),
    (3, 6, 0.0),
    (3, 10, 0.0),
    (3, 8, -0.7),
    (3, 32, 0.2),
];

/// Lattices and measurements of `engine` after each of two rounds of `plan`.
fn rounds(engine: &mut dyn Engine, plan: &Plan) -> Vec<(SpinBits, Measurements)> {
    (0..2)
        .map(|_| {
            let measured = engine.execute(plan).unwrap();
            (engine.spins().unwrap().into_bits().unwrap(), measured)
        })
        .collect()
}

/// `engine` against `reference` (the CPU engine or another backend's), both of the systems of
/// the case `(dims, size, field)`, from the hot start through two rounds of `sweeps` sweeps.
fn compare(
    (dims, size, field): (u32, u32, f64),
    sweeps: u32,
    reference: (&str, &mut dyn Engine),
    engine: (&str, &mut dyn Engine),
) {
    let case = format!("{dims}D L={size} h={field}");
    compare_systems(
        &systems(dims, size, field),
        &case,
        sweeps,
        reference,
        engine,
    );
}

/// [`compare`] for `systems`, named `case`.
fn compare_systems(
    systems: &IsingSystems,
    case: &str,
    sweeps: u32,
    reference: (&str, &mut dyn Engine),
    engine: (&str, &mut dyn Engine),
) {
    let spins = initial_spins(systems);
    let plan = common::sweep_plan(3, sweeps, 4);
    reference.1.set_spins(&spins.clone().into()).unwrap();
    engine.1.set_spins(&spins.clone().into()).unwrap();
    let expected = rounds(reference.1, &plan);
    let got = rounds(engine.1, &plan);
    for (round, (expected, got)) in expected.iter().zip(&got).enumerate() {
        let case = format!("{case} round {round}: {} vs {}", reference.0, engine.0);
        if let Some(diff) = common::first_difference(&systems.lattice, &expected.0, &got.0) {
            panic!("{case}: lattices differ at {diff}");
        }
        assert_ne!(got.0, spins, "{case}: nothing moved");
        assert_eq!(expected.1, got.1, "{case}: observations differ");
        assert_eq!(
            got.1.observations.len(),
            plan.slots as usize * systems.systems() as usize
        );
    }
}

/// The engine of `gpu` against the CPU engine for the case.
fn compare_with_cpu<B: Gpu>(gpu: B, case: (u32, u32, f64), sweeps: u32) {
    let systems = systems(case.0, case.1, case.2);
    let mut cpu = CpuEngine::new(systems.clone());
    let mut engine = gpu.simple(&systems, 64);
    let name = gpu.to_string();
    compare(case, sweeps, ("CPU", &mut cpu), (&name, engine.as_mut()));
}

fn engine_2d_matches_cpu_bit_for_bit<B: Gpu>() {
    for case in CASES_2D {
        compare_with_cpu(B::default(), case, 20);
    }
}

fn engine_3d_matches_cpu_bit_for_bit<B: Gpu>() {
    for case in CASES_3D {
        compare_with_cpu(B::default(), case, 20);
    }
}

/// More systems than a grid takes along z (65535 on every GPU and on lavapipe): the hot start,
/// the sweeps and the measurements run in pieces, with the same bits.
fn systems_past_the_grid_z_limit_match_cpu_bit_for_bit<B: Gpu>() {
    let lattice = Lattice::new(2, 4);
    let systems = IsingSystems::ferromagnet(lattice, 0.2, vec![0.44], (1 << 16) + 5, 7);
    assert_eq!(systems.systems(), (1 << 16) + 5);
    let mut cpu = CpuEngine::new(systems.clone());
    let gpu = B::default();
    let mut engine = gpu.simple(&systems, 64);
    let (name, case) = (gpu.to_string(), "2D L=4, 65541 systems");
    compare_systems(
        &systems,
        case,
        4,
        ("CPU", &mut cpu),
        (&name, engine.as_mut()),
    );
}

/// 600 sweeps are 1200 launches: more than one batch (submission) of at most 1024.
fn long_plan_matches_cpu_bit_for_bit<B: Gpu>() {
    compare_with_cpu(B::default(), (2, 8, 0.1), 600);
}

fn block_size_does_not_change_results<B: Gpu>() {
    let systems = systems(2, 18, 0.0);
    let spins = initial_spins(&systems);
    let mut results = Vec::new();
    for &block_size in B::BLOCK_SIZES {
        let mut engine = B::default().simple(&systems, block_size);
        engine.set_spins(&spins.clone().into()).unwrap();
        results.push(rounds(engine.as_mut(), &common::sweep_plan(3, 20, 4)));
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

/// wgpu's second WGSL Philox path (the default is Int64).
fn u32_philox_path_matches_cpu_bit_for_bit() {
    use crate::common::backend::Wgpu;
    use spinflip::config::PhiloxPath;
    compare_with_cpu(Wgpu::with(PhiloxPath::U32), (2, 16, 0.1), 20);
    compare_with_cpu(Wgpu::with(PhiloxPath::U32), (3, 6, 0.0), 20);
}

/// CUDA against wgpu, on every case.
#[cfg(feature = "cuda")]
fn matches_wgpu_bit_for_bit() {
    use crate::common::backend::{Cuda, Wgpu};
    for case in CASES_2D.into_iter().chain(CASES_3D) {
        let systems = systems(case.0, case.1, case.2);
        let mut wgpu = Wgpu::default().simple(&systems, 64);
        let mut cuda = Cuda.simple(&systems, 64);
        let name = Wgpu::default().to_string();
        compare(case, 20, (&name, wgpu.as_mut()), ("CUDA", cuda.as_mut()));
    }
}

/// Lattices whose planes hold a whole number of groups of four colour sites or not (2D L = 6:
/// three a plane, so cuts fall inside groups; L = 34 over several workgroups of 32), with and
/// without a field: `(dims, size, field)`.
const PIECE_CASES: [(u32, u32, f64); 3] = [(2, 6, 0.0), (2, 34, 0.2), (3, 6, 0.1)];

/// Whole sweeps with parallel tempering: a swap round after each sweep, a measurement after
/// every second, in two plans.
fn whole_sweeps() -> [Plan; 2] {
    common::tempering::plans()
}

/// What `plans` measured on `engine` (plan after plan, as one run's), its lattices and its
/// tempering state after them, from the hot start and tempering's initial state.
fn run_of(
    engine: &mut dyn Engine,
    systems: &IsingSystems,
    plans: &[Plan],
) -> (Measurements, SpinBits, Vec<u32>) {
    engine.set_spins(&initial_spins(systems).into()).unwrap();
    let state = Chains::of(systems).initial_state();
    tempering_of(engine).unwrap().set_tempering(&state).unwrap();
    let mut measured = Measurements::default();
    for plan in plans {
        let plan_measured = engine.execute(plan).unwrap();
        measured.observations.extend(plan_measured.observations);
        measured.labels.extend(plan_measured.labels);
    }
    let spins = engine.spins().unwrap().into_bits().unwrap();
    let state = tempering_of(engine).unwrap().tempering_state().unwrap();
    (measured, spins, state)
}

/// The sweeps of [`whole_sweeps`] cut every way of [`cuts`], on the engines `engine` opens for
/// case `i` of [`PIECE_CASES`], give the CPU engine's whole sweeps bit for bit: lattices,
/// observations, temperature history and tempering state.
fn compare_pieces(name: &str, engine: impl Fn(usize, &IsingSystems) -> Box<dyn Engine>) {
    let whole = whole_sweeps();
    let sweeps = whole.iter().map(Plan::sweeps).sum();
    for (i, (dims, size, field)) in PIECE_CASES.into_iter().enumerate() {
        let systems = tempering_systems(dims, size, Disorder::Ferromagnet, field, (1, 2, 3));
        let expected = run_of(&mut CpuEngine::new(systems.clone()), &systems, &whole);
        assert_ne!(expected.1, initial_spins(&systems), "nothing moved");
        for (cut, cuts) in cuts(size, sweeps) {
            let case = format!("{name} {dims}D L={size} h={field}, {cut}");
            let pieces = in_pieces(&whole, size, &cuts);
            let got = run_of(engine(i, &systems).as_mut(), &systems, &pieces);
            if let Some(diff) = common::first_difference(&systems.lattice, &expected.1, &got.1) {
                panic!("{case}: lattices differ at {diff}");
            }
            assert_eq!(expected.0, got.0, "{case}: measurements differ");
            assert_eq!(expected.2, got.2, "{case}: tempering states differ");
        }
    }
}

/// Pieces of sweeps on the CPU engine give its whole sweeps.
#[test]
fn pieces_of_sweeps_match_whole_sweeps() {
    compare_pieces("CPU", |_, systems| {
        Box::new(CpuEngine::new(systems.clone()))
    });
}

/// Pieces of sweeps on the backend, alternating the Philox paths over the cases, in blocks of
/// 32 threads, give the CPU engine's whole sweeps.
fn pieces_of_sweeps_match_cpu_whole_sweeps<B: Gpu>() {
    compare_pieces(&B::default().to_string(), |i, systems| {
        B::alternating(i).simple(systems, 32)
    });
}

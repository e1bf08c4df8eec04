//! Parallel tempering on the wgpu engines takes the same decisions as on the CPU engines, bit
//! for bit: the lattices after sweeps and swap rounds, the observations, the temperature history
//! and the tempering state (labels, round trips, acceptances), for the simple engine and every
//! multispin exchange kind (lanes holding samples, replicas or temperatures, SMSC), with and
//! without a field, on both WGSL Philox paths (lavapipe in CI).

mod common;

use common::{AMSC_REPLICAS, AMSC_SAMPLES, AMSC_TEMPERATURES};
use spinflip::config::{Layout, MultispinOptions, PhiloxPath, Randoms};
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::gpu::{MultispinGpuEngine, SimpleGpuEngine};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::tempering::Chains;
use spinflip::engine::{Engine, Plan};
use spinflip::model::Lattice;
use spinflip::model::couplings::Disorder;
use spinflip::model::ising::IsingSystems;
use spinflip::sim::{Schedule, initial_spins};

fn systems(
    dims: u32,
    size: u32,
    disorder: Disorder,
    field: f64,
    (samples, replicas, temperatures): (u32, u32, usize),
) -> IsingSystems {
    let lattice = Lattice::new(dims, size);
    // Gaps that shrink with the energy's fluctuations (~ sqrt N), so both outcomes occur.
    let gap = 0.18 / (lattice.sites() as f64).sqrt();
    IsingSystems {
        lattice,
        field,
        betas: (0..temperatures).map(|t| 0.3 + gap * t as f64).collect(),
        disorder,
        samples,
        replicas,
        seed: 0x5eed_0000_7e3b,
    }
}

/// Sweeps with a swap round after each and a measurement after every second, twice over.
fn plans() -> [Plan; 2] {
    let schedule = Schedule {
        thermalize: 3,
        measure: 10,
        every: 2,
        swap_every: Some(1),
    };
    [schedule.plan(0, 6), schedule.plan(6, schedule.total())]
}

fn compare(name: &str, systems: &IsingSystems, cpu: &mut dyn Engine, gpu: &mut dyn Engine) {
    let spins = initial_spins(systems);
    let state = Chains::of(systems).initial_state();
    cpu.set_spins(&spins).unwrap();
    gpu.set_spins(&spins).unwrap();
    cpu.set_tempering(&state).unwrap();
    gpu.set_tempering(&state).unwrap();
    let mut accepted = 0;
    for (i, plan) in plans().iter().enumerate() {
        let cpu_measured = cpu.execute(plan).unwrap();
        let gpu_measured = gpu.execute(plan).unwrap();
        let (cpu_spins, gpu_spins) = (cpu.spins().unwrap(), gpu.spins().unwrap());
        if let Some(diff) = common::first_difference(&systems.lattice, &cpu_spins, &gpu_spins) {
            panic!("{name} plan {i}: lattices differ at {diff}");
        }
        assert_eq!(cpu_measured, gpu_measured, "{name} plan {i}: measurements");
        assert!(!cpu_measured.labels.is_empty(), "{name}: no history");
        let (cpu_state, gpu_state) = (cpu.tempering().unwrap(), gpu.tempering().unwrap());
        assert_eq!(cpu_state, gpu_state, "{name} plan {i}: tempering state");
        let chains = Chains::of(systems);
        accepted = cpu_state[3 * chains.section_words()..].iter().sum::<u32>();
    }
    let rounds = 13;
    let attempts = Chains::of(systems).sets * (systems.betas.len() as u32 - 1) * rounds / 2;
    eprintln!("{name}: {accepted} of about {attempts} swaps accepted");
    assert!(
        accepted > 0 && accepted < attempts,
        "{name}: both outcomes should occur ({accepted} of about {attempts})"
    );
}

fn compare_multispin(
    dims: u32,
    size: u32,
    layout: Layout,
    disorder: Disorder,
    field: f64,
    counts: (u32, u32, usize),
    philox: PhiloxPath,
) {
    let systems = systems(dims, size, disorder, field, counts);
    let options = MultispinOptions {
        layout,
        randoms: Randoms::Exact,
    };
    let layout = MultispinLayout::new(systems.clone(), options);
    let name = format!(
        "{dims}D L={size} {} {disorder:?} h={field} {philox:?}",
        layout.describe()
    );
    let mut cpu = CpuMultispinEngine::new(layout.clone());
    let mut gpu = MultispinGpuEngine::new(common::gpu(philox), layout, 64).unwrap();
    compare(&name, &systems, &mut cpu, &mut gpu);
}

#[test]
fn simple_engine_swaps_like_the_cpu() {
    for (field, philox) in [(0.0, PhiloxPath::Int64), (0.2, PhiloxPath::U32)] {
        let systems = systems(2, 6, Disorder::Ferromagnet, field, (1, 3, 4));
        let mut cpu = CpuEngine::new(systems.clone());
        let mut gpu = SimpleGpuEngine::new(common::gpu(philox), systems.clone(), 64).unwrap();
        let name = format!("simple h={field} {philox:?}");
        compare(&name, &systems, &mut cpu, &mut gpu);
    }
}

#[test]
fn multispin_lanes_swap_like_the_cpu() {
    let bimodal = Disorder::Bimodal;
    compare_multispin(
        2,
        6,
        AMSC_SAMPLES,
        bimodal,
        0.0,
        (32, 2, 4),
        PhiloxPath::Int64,
    );
    compare_multispin(
        3,
        4,
        AMSC_SAMPLES,
        bimodal,
        0.3,
        (32, 2, 3),
        PhiloxPath::U32,
    );
    let ferro = Disorder::Ferromagnet;
    compare_multispin(
        2,
        8,
        AMSC_REPLICAS,
        ferro,
        0.0,
        (1, 32, 5),
        PhiloxPath::Int64,
    );
}

#[test]
fn multispin_temperature_lanes_and_smsc_swap_like_the_cpu() {
    let bimodal = Disorder::Bimodal;
    compare_multispin(
        2,
        6,
        AMSC_TEMPERATURES,
        bimodal,
        0.0,
        (3, 2, 6),
        PhiloxPath::Int64,
    );
    compare_multispin(
        3,
        4,
        AMSC_TEMPERATURES,
        bimodal,
        0.25,
        (2, 2, 5),
        PhiloxPath::U32,
    );
    compare_multispin(
        2,
        64,
        Layout::Smsc,
        bimodal,
        0.0,
        (2, 2, 3),
        PhiloxPath::Int64,
    );
    let ferro = Disorder::Ferromagnet;
    compare_multispin(2, 64, Layout::Smsc, ferro, 0.1, (1, 2, 3), PhiloxPath::U32);
}

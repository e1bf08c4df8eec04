//! The hot start kernel (`hot_start`): the wgpu engines write the same lattices as the CPU
//! engines (and as `sim::initial_spins`, the natural-order reference), bit for bit, for the
//! simple engine's `i32` lattices and every multispin layout, on both WGSL Philox paths.

mod common;

use spinflip::config::PhiloxPath;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::wgpu::{MultispinWgpuEngine, SimpleWgpuEngine};
use spinflip::engine::{Betas, Engine};
use spinflip::model::Lattice;

/// `cpu` and `gpu` after their hot starts: equal, and `initial_spins`'s lattices.
fn check(
    lattice: &Lattice,
    cpu: &mut dyn Engine,
    gpu: &mut dyn Engine,
    expected: &spinflip::engine::SpinBits,
    case: &str,
) {
    cpu.hot_start().unwrap();
    gpu.hot_start().unwrap();
    let (cpu_spins, gpu_spins) = (cpu.spins().unwrap(), gpu.spins().unwrap());
    if let Some(diff) = common::first_difference(lattice, &cpu_spins, &gpu_spins) {
        panic!("{case}: the hot starts differ at {diff}");
    }
    if let Some(diff) = common::first_difference(lattice, expected, &cpu_spins) {
        panic!("{case}: the CPU hot start differs from initial_spins at {diff}");
    }
    let up = cpu_spins.up_count();
    assert!(0 < up && up < cpu_spins.len(), "{case}: {up} up spins");
}

#[test]
fn hot_starts_on_wgpu_equal_the_cpu_engines() {
    let (simple, layouts) = common::hot_start_cases();
    for philox in [PhiloxPath::Int64, PhiloxPath::U32] {
        for systems in &simple {
            let case = format!(
                "simple {}D L={} {philox:?}",
                systems.lattice.dims, systems.lattice.size
            );
            let mut cpu = CpuEngine::new(systems.clone());
            let mut gpu = SimpleWgpuEngine::new(common::gpu(philox), systems.clone(), 64).unwrap();
            check(
                &systems.lattice,
                &mut cpu,
                &mut gpu,
                &initial_spins(systems),
                &case,
            );
        }
        for layout in &layouts {
            let case = format!(
                "{} {}D L={} {philox:?}",
                layout.describe(),
                layout.lattice().dims,
                layout.lattice().size
            );
            let mut cpu = CpuMultispinEngine::new(layout.clone());
            let mut gpu =
                MultispinWgpuEngine::new(common::gpu(philox), layout.clone(), 64, Betas::Fixed)
                    .unwrap();
            let expected = initial_spins(&layout.systems);
            check(&layout.lattice(), &mut cpu, &mut gpu, &expected, &case);
        }
    }
}

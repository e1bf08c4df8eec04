//! The hot start kernel (`hot_start`): the GPU engines write the same lattices as the CPU engines
//! (and as `initial_spins`, the natural-order reference), bit for bit, for the simple engine's
//! `i32` lattices and every multispin layout; wgpu on both WGSL Philox paths.

use crate::common;
use crate::common::backend::Gpu;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::{Betas, Engine, SpinBits};
use spinflip::model::Lattice;

backends! {
    both: [hot_starts_equal_the_cpu_engines],
    wgpu: [],
    cuda: [],
}

/// `cpu` and `gpu` after their hot starts: equal, and `initial_spins`'s lattices.
fn check(
    lattice: &Lattice,
    cpu: &mut dyn Engine,
    gpu: &mut dyn Engine,
    expected: &SpinBits,
    case: &str,
) {
    cpu.hot_start().unwrap();
    gpu.hot_start().unwrap();
    let (cpu_spins, gpu_spins) = (
        cpu.spins().unwrap().into_bits().unwrap(),
        gpu.spins().unwrap().into_bits().unwrap(),
    );
    if let Some(diff) = common::first_difference(lattice, &cpu_spins, &gpu_spins) {
        panic!("{case}: the hot starts differ at {diff}");
    }
    if let Some(diff) = common::first_difference(lattice, expected, &cpu_spins) {
        panic!("{case}: the CPU hot start differs from initial_spins at {diff}");
    }
    let up = cpu_spins.up_count();
    assert!(0 < up && up < cpu_spins.len(), "{case}: {up} up spins");
}

fn hot_starts_equal_the_cpu_engines<B: Gpu>() {
    let (simple, layouts) = common::hot_start_cases();
    for gpu in B::philox_paths() {
        for systems in &simple {
            let case = format!(
                "simple {}D L={} {gpu}",
                systems.lattice.dims, systems.lattice.size
            );
            let mut cpu = CpuEngine::new(systems.clone());
            let mut engine = gpu.simple(systems, 64);
            let expected = initial_spins(systems);
            check(
                &systems.lattice,
                &mut cpu,
                engine.as_mut(),
                &expected,
                &case,
            );
        }
        for layout in &layouts {
            let case = format!(
                "{} {}D L={} {gpu}",
                layout.describe(),
                layout.lattice().dims,
                layout.lattice().size
            );
            let mut cpu = CpuMultispinEngine::new(layout.clone());
            let mut engine = gpu.multispin(layout, 64, Betas::Fixed);
            let expected = initial_spins(&layout.systems);
            check(
                &layout.lattice(),
                &mut cpu,
                engine.as_mut(),
                &expected,
                &case,
            );
        }
    }
}

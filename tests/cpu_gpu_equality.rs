//! The simple wgpu engine and the CPU engine produce the same lattices and observations, bit for
//! bit, for 2D and 3D lattices of several sizes, with and without a field, on both WGSL Philox
//! paths.

mod common;

use spinflip::config::PhiloxPath;
use spinflip::engine::Engine;
use spinflip::engine::cpu::CpuEngine;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::wgpu::SimpleWgpuEngine;
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;

fn systems(dims: u32, size: u32, field: f64) -> IsingSystems {
    IsingSystems::ferromagnet(
        Lattice::new(dims, size),
        field,
        vec![0.2, 0.44, 0.9],
        2,
        0xdead_beef_0000_0001,
    )
}

fn compare(dims: u32, size: u32, field: f64, philox: PhiloxPath) {
    let systems = systems(dims, size, field);
    let spins = initial_spins(&systems);
    let mut cpu = CpuEngine::new(systems.clone());
    cpu.set_spins(&spins).unwrap();
    let mut gpu = SimpleWgpuEngine::new(common::gpu(philox), systems.clone(), 64).unwrap();
    gpu.set_spins(&spins).unwrap();
    let plan = common::sweep_plan(3, 20, 4);
    for round in 0..2 {
        let cpu_obs = cpu.execute(&plan).unwrap();
        let gpu_obs = gpu.execute(&plan).unwrap();
        let (cpu_spins, gpu_spins) = (cpu.spins().unwrap(), gpu.spins().unwrap());
        let case = format!("{dims}D L={size} h={field} {philox:?} round {round}");
        if let Some(diff) = common::first_difference(&systems.lattice, &cpu_spins, &gpu_spins) {
            panic!("{case}: lattices differ at {diff}");
        }
        assert_ne!(cpu_spins, spins, "{case}: nothing moved");
        assert_eq!(cpu_obs, gpu_obs, "{case}: observations differ");
        assert_eq!(
            cpu_obs.observations.len(),
            plan.slots as usize * systems.systems() as usize
        );
    }
}

#[test]
fn simple_engine_2d_matches_cpu_bit_for_bit() {
    for size in [2, 6, 8, 32] {
        compare(2, size, 0.0, PhiloxPath::Int64);
    }
    compare(2, 16, 0.3, PhiloxPath::Int64);
}

#[test]
fn simple_engine_3d_matches_cpu_bit_for_bit() {
    for size in [2, 4, 6, 10] {
        compare(3, size, 0.0, PhiloxPath::Int64);
    }
    compare(3, 8, -0.7, PhiloxPath::Int64);
}

#[test]
fn simple_engine_u32_philox_path_matches_cpu_bit_for_bit() {
    compare(2, 16, 0.1, PhiloxPath::U32);
    compare(3, 6, 0.0, PhiloxPath::U32);
}

#[test]
fn workgroup_size_does_not_change_results() {
    let systems = systems(2, 18, 0.0);
    let spins = initial_spins(&systems);
    let mut results = Vec::new();
    for workgroup_size in [32, 64, 256] {
        let ctx = common::gpu(PhiloxPath::Auto);
        let mut gpu = SimpleWgpuEngine::new(ctx, systems.clone(), workgroup_size).unwrap();
        gpu.set_spins(&spins).unwrap();
        let obs = gpu.execute(&common::sweep_plan(3, 20, 4)).unwrap();
        results.push((gpu.spins().unwrap(), obs));
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

//! The simple CUDA engine produces the same lattices and observations as the CPU engine and the
//! simple wgpu engine, bit for bit, for 2D and 3D lattices with and without a field; its Philox
//! reproduces the known-answer vectors.
//!
//! These tests SKIP, printing a notice, where the machine has no CUDA driver (`libcuda.so`) or no
//! CUDA device. This is the one place spinflip's tests may skip: CI has no NVIDIA GPU, and
//! `cargo test --features cuda` must still pass there. Anything else that goes wrong on a machine
//! with a device (no NVRTC, a compile error, a kernel fault) fails the test.
#![cfg(feature = "cuda")]

mod common;

use spinflip::config::PhiloxPath;
use spinflip::engine::cpu::CpuEngine;
use spinflip::engine::cuda::philox_kat::philox_blocks;
use spinflip::engine::cuda::{CudaDevice, SimpleCudaEngine, device_count, driver_loadable};
use spinflip::engine::gpu::SimpleGpuEngine;
use spinflip::engine::{Engine, Observation, Plan};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;
use spinflip::rng::{PHILOX_KNOWN_ANSWERS, philox4x32_10};
use spinflip::sim::initial_spins;

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

/// `sweeps` sweeps starting at sweep 3, measuring after every 4th.
fn plan(sweeps: u32) -> Plan {
    let mut plan = Plan::default();
    for sweep in 3..3 + sweeps {
        plan.sweep(sweep);
        if sweep % 4 == 0 {
            plan.measure();
        }
    }
    plan
}

/// The first site where two engines' lattices differ, named by system and coordinates.
fn first_difference(a: &[i32], b: &[i32], lattice: &Lattice) -> Option<String> {
    let n = lattice.sites() as usize;
    a.iter().zip(b).position(|(x, y)| x != y).map(|i| {
        format!(
            "system {} site {:?}: {} vs {}",
            i / n,
            lattice.coords((i % n) as u64),
            a[i],
            b[i]
        )
    })
}

/// Lattices and observations of `engine` after each of two rounds of `plan`.
fn rounds(engine: &mut dyn Engine, plan: &Plan) -> Vec<(Vec<i32>, Vec<Observation>)> {
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
                Box::new(SimpleGpuEngine::new(ctx, systems.clone(), 64).unwrap())
            }
        }
    }
}

/// CUDA against `reference` for `sweeps` sweeps (two rounds) of a `size^dims` lattice.
fn compare(reference: Reference, dims: u32, size: u32, field: f64, sweeps: u32) {
    let systems = systems(dims, size, field);
    let spins = initial_spins(&systems);
    let plan = plan(sweeps);
    let mut cuda = SimpleCudaEngine::new(device(), systems.clone(), 64).unwrap();
    let mut other = reference.engine(&systems);
    cuda.set_spins(&spins).unwrap();
    other.set_spins(&spins).unwrap();
    let expected = rounds(other.as_mut(), &plan);
    let got = rounds(&mut cuda, &plan);
    for (round, (expected, got)) in expected.iter().zip(&got).enumerate() {
        let case = format!("{dims}D L={size} h={field} round {round}: {reference:?} vs CUDA");
        if let Some(diff) = first_difference(&expected.0, &got.0, &systems.lattice) {
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
        results.push(rounds(&mut cuda, &plan(20)));
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

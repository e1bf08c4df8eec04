//! The cluster updates of the simple GPU engines produce the CPU engine's lattices, observations
//! and cluster sizes, bit for bit: Swendsen-Wang and Wolff on 2D and 3D lattices (L = 2, whose
//! neighbours are joined by two bonds, included), at temperatures below, near and above the
//! transition, alone and mixed with Metropolis sweeps, in plans that record and that do not;
//! every block size gives the same bits. wgpu runs both WGSL Philox paths; CUDA is compared
//! with the CPU and with wgpu.

use crate::common::backend::Gpu;
use spinflip::config::ClusterUpdate;
use spinflip::engine::cpu::CpuEngine;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::{Engine, Measurements, Plan, SpinBits, clusters_of};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;

backends! {
    both: [
        swendsen_wang_matches_cpu_bit_for_bit,
        wolff_matches_cpu_bit_for_bit,
        block_size_does_not_change_clusters,
    ],
    wgpu: [],
    cuda: [matches_wgpu_bit_for_bit],
}

/// (dims, L) of the cases: 2D and 3D, L = 2 among them, and lattices of many workgroups, whose
/// concurrent unions build long chains below the transition. The labelling's tiles
/// (`engine::clusters::tile_shape`: 32 x 32, 16 x 8 x 8) cover some lattices whole (L = 2, 8;
/// 3D L = 2), divide others (64, 160) and are clipped at the edge of the rest (2D L = 50, 3D
/// L = 12, 18), whose bond words also straddle rows (L mod 4 = 2).
const CASES: [(u32, u32); 8] = [
    (2, 2),
    (2, 8),
    (2, 50),
    (2, 64),
    (2, 160),
    (3, 2),
    (3, 12),
    (3, 18),
];

fn systems(dims: u32, size: u32) -> IsingSystems {
    let betas = vec![0.2, 0.4406868, 0.9];
    IsingSystems::ferromagnet(Lattice::new(dims, size), 0.0, betas, 2, 0x5eed_c1a5_7e25)
}

/// Two steps of three cluster updates and a Metropolis sweep, the second measured (its updates
/// recording), then a step of one unrecorded update: clusters counted apart from sweeps, from
/// `first` on.
fn plan(first: u32) -> Plan {
    let mut plan = Plan::default();
    for step in 0..2 {
        for k in 0..3 {
            plan.cluster(3 * (first + step) + k, step == 1);
        }
        plan.sweep(first + step);
    }
    plan.measure();
    plan.cluster(3 * (first + 2), false);
    plan
}

/// Lattices and measurements of `engine`, from the hot start, after each of three plans.
fn rounds(
    engine: &mut dyn Engine,
    systems: &IsingSystems,
    update: ClusterUpdate,
) -> Vec<(SpinBits, Measurements)> {
    engine.set_spins(&initial_spins(systems).into()).unwrap();
    clusters_of(engine).unwrap().set_clusters(update).unwrap();
    (0..3)
        .map(|round| {
            let measured = engine.execute(&plan(3 * round)).unwrap();
            (engine.spins().unwrap().into_bits().unwrap(), measured)
        })
        .collect()
}

/// `engine` against `reference` on the systems of `case`.
fn compare(
    case: (u32, u32),
    update: ClusterUpdate,
    reference: (&str, &mut dyn Engine),
    engine: (&str, &mut dyn Engine),
) {
    let systems = systems(case.0, case.1);
    let expected = rounds(reference.1, &systems, update);
    let got = rounds(engine.1, &systems, update);
    for (round, (expected, got)) in expected.iter().zip(&got).enumerate() {
        let what = format!(
            "{update:?} {}D L={} round {round}: {} vs {}",
            case.0, case.1, reference.0, engine.0
        );
        if let Some(diff) = crate::common::first_difference(&systems.lattice, &expected.0, &got.0) {
            panic!("{what}: lattices differ at {diff}");
        }
        assert_eq!(expected.1, got.1, "{what}: measurements differ");
        assert_eq!(got.1.cluster_sizes.len(), systems.systems() as usize);
        assert!(
            got.1.cluster_sizes.iter().all(|&s| s > 0),
            "{what}: no sizes"
        );
    }
    assert_ne!(got[0].0, initial_spins(&systems), "nothing moved");
}

fn compare_with_cpu<B: Gpu>(gpu: B, case: (u32, u32), update: ClusterUpdate) {
    let systems = systems(case.0, case.1);
    let mut cpu = CpuEngine::new(systems.clone());
    let mut engine = gpu.simple(&systems, 64);
    let name = gpu.to_string();
    compare(case, update, ("CPU", &mut cpu), (&name, engine.as_mut()));
}

fn swendsen_wang_matches_cpu_bit_for_bit<B: Gpu>() {
    for (i, case) in CASES.into_iter().enumerate() {
        compare_with_cpu(B::alternating(i), case, ClusterUpdate::SwendsenWang);
    }
}

fn wolff_matches_cpu_bit_for_bit<B: Gpu>() {
    for (i, case) in CASES.into_iter().enumerate() {
        compare_with_cpu(B::alternating(i), case, ClusterUpdate::Wolff);
    }
}

fn block_size_does_not_change_clusters<B: Gpu>() {
    let systems = systems(2, 18);
    let results: Vec<_> = B::BLOCK_SIZES
        .iter()
        .map(|&block_size| {
            let mut engine = B::default().simple(&systems, block_size);
            rounds(engine.as_mut(), &systems, ClusterUpdate::SwendsenWang)
        })
        .collect();
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

/// CUDA against wgpu, on every case and both updates.
#[cfg(feature = "cuda")]
fn matches_wgpu_bit_for_bit() {
    use crate::common::backend::{Cuda, Wgpu};
    for case in CASES {
        for update in [ClusterUpdate::SwendsenWang, ClusterUpdate::Wolff] {
            let systems = systems(case.0, case.1);
            let mut wgpu = Wgpu::default().simple(&systems, 64);
            let mut cuda = Cuda.simple(&systems, 64);
            let name = Wgpu::default().to_string();
            compare(
                case,
                update,
                (&name, wgpu.as_mut()),
                ("CUDA", cuda.as_mut()),
            );
        }
    }
}

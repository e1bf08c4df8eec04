//! The cluster updates of the simple GPU engines produce the CPU engine's lattices, observations
//! and cluster sizes, bit for bit: Swendsen-Wang and Wolff on 2D and 3D lattices (L = 2, whose
//! neighbours are joined by two bonds, included), at temperatures below, near and above the
//! transition, alone and mixed with Metropolis sweeps, in plans that record and that do not.
//! wgpu runs both WGSL Philox paths; CUDA is compared with the CPU and with wgpu. The CPU's pieces of updates (`Step::ClusterPart`), over several
//! plans, make its whole updates; the device engines make whole updates only and refuse pieces.

use crate::common::backend::Gpu;
use spinflip::config::ClusterUpdate;
use spinflip::engine::cpu::CpuEngine;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::{Engine, Measurements, Plan, SpinBits, Step, clusters_of};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;

backends! {
    both: [
        swendsen_wang_matches_cpu_bit_for_bit,
        wolff_matches_cpu_bit_for_bit,
        devices_refuse_pieces_of_updates,
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

/// The three updates of a measured step as pieces on the CPU, each piece a plan of its own, cut
/// at units `cuts` (of two passes over the planes: the labelling, then the roots; the second
/// update's labelling given up after its first piece, by the lattices written back, and its
/// next piece refused until the update starts again), then the step's sweep and measurement:
/// the lattices and measurements of the whole step's plan.
fn pieces_make_whole_updates(case: (u32, u32), update: ClusterUpdate, cuts: &[u64]) {
    let systems = systems(case.0, case.1);
    let size = systems.lattice.size;
    let start = |engine: &mut CpuEngine| {
        engine.set_spins(&initial_spins(&systems).into()).unwrap();
        clusters_of(engine).unwrap().set_clusters(update).unwrap();
    };
    let mut whole = CpuEngine::new(systems.clone());
    start(&mut whole);
    let mut step = Plan::default();
    (0..3).for_each(|n| step.cluster(n, true));
    step.sweep(0);
    step.measure();
    let expected = whole.execute(&step).unwrap();
    let mut cut = CpuEngine::new(systems.clone());
    start(&mut cut);
    let mut sizes = vec![0u64; systems.systems() as usize];
    let units = 2 * u64::from(size);
    let bounds: Vec<u64> = [0].iter().chain(cuts).chain([&units]).copied().collect();
    for n in 0..3 {
        for (k, planes) in bounds.windows(2).enumerate() {
            let mut piece = Plan::default();
            piece.cluster_units(n, true, size, planes[0]..planes[1]);
            if n == 1 && k == 1 {
                // Written back: the labelling is given up, and the update starts again.
                let spins = cut.spins().unwrap();
                cut.set_spins(&spins).unwrap();
                let refusal = cut.execute(&piece).unwrap_err().to_string();
                assert!(refusal.contains("continues no labelling"), "{refusal}");
                let mut again = Plan::default();
                again.cluster_units(n, true, size, 0..planes[0]);
                assert!(
                    cut.execute(&again)
                        .unwrap()
                        .cluster_sizes
                        .iter()
                        .all(|&s| s == 0)
                );
            }
            let measured = cut.execute(&piece).unwrap();
            assert_eq!(piece.size_slots(), 1);
            sizes
                .iter_mut()
                .zip(&measured.cluster_sizes)
                .for_each(|(s, v)| *s += v);
        }
    }
    let mut rest = Plan::default();
    rest.sweep(0);
    rest.measure();
    let measured = cut.execute(&rest).unwrap();
    let what = format!("{update:?} {}D L={} cut at {cuts:?}", case.0, case.1);
    assert_eq!(measured.observations, expected.observations, "{what}");
    assert_eq!(sizes, expected.cluster_sizes, "{what}");
    assert_eq!(
        cut.spins().unwrap().into_bits().unwrap(),
        whole.spins().unwrap().into_bits().unwrap(),
        "{what}"
    );
}

/// Cuts at every plane of both passes, between the passes, and in pieces that hold no
/// thread's first site (2D L = 50: 50 sites a plane, a thread's four straddling planes; 3D
/// L = 12, L = 2).
#[test]
fn cpu_pieces_of_updates_make_its_whole_updates() {
    for update in [ClusterUpdate::SwendsenWang, ClusterUpdate::Wolff] {
        pieces_make_whole_updates((2, 8), update, &Vec::from_iter(1..16));
        pieces_make_whole_updates((2, 50), update, &[1, 17, 50, 99]);
        pieces_make_whole_updates((3, 12), update, &[5, 6, 13]);
        pieces_make_whole_updates((3, 2), update, &[1, 2, 3]);
    }
}

/// A device engine makes whole updates (milliseconds each): it says so, and refuses a piece
/// before anything runs.
fn devices_refuse_pieces_of_updates<B: Gpu>() {
    let systems = systems(2, 8);
    let mut engine = B::default().simple(&systems, 64);
    engine.set_spins(&initial_spins(&systems).into()).unwrap();
    let clusters = clusters_of(engine.as_mut()).unwrap();
    clusters.set_clusters(ClusterUpdate::SwendsenWang).unwrap();
    assert!(!clusters.update_parts());
    let mut plan = Plan::default();
    plan.sweep(0);
    plan.steps.push(Step::ClusterPart {
        update: 0,
        sizes: None,
        pass: 0,
        planes: [0, 4],
    });
    let refusal = engine.execute(&plan).unwrap_err().to_string();
    assert!(refusal.contains("whole cluster updates only"), "{refusal}");
    assert_eq!(
        engine.spins().unwrap().into_bits().unwrap(),
        initial_spins(&systems),
        "nothing ran"
    );
}

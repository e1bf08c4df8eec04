//! Parallel tempering on the wgpu engines takes the same decisions as on the CPU engines, bit
//! for bit: the lattices after sweeps and swap rounds, the observations, the temperature history
//! and the tempering state (labels, round trips, acceptances), for the simple engine and every
//! multispin exchange kind (lanes holding samples, replicas or temperatures, SMSC), with and
//! without a field, on both WGSL Philox paths (lavapipe in CI).

mod common;

use common::tempering::{
    TemperingCase, compare_tempering, compare_tempering_plans, plans, rounds_after_rounds,
    tempering_cases, tempering_systems,
};
use spinflip::config::{Disorder, PhiloxPath};
use spinflip::engine::Betas;
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::wgpu::{MultispinWgpuEngine, SimpleWgpuEngine};

fn compare_multispin(case: &TemperingCase, philox: PhiloxPath) {
    let layout = case.layout();
    let name = format!("{} {philox:?}", case.name());
    let mut cpu = CpuMultispinEngine::new(layout.clone());
    let mut gpu =
        MultispinWgpuEngine::new(common::gpu(philox), layout.clone(), 64, Betas::Fixed).unwrap();
    compare_tempering(&name, &layout.systems, &mut cpu, &mut gpu);
}

#[test]
fn simple_engine_swaps_like_the_cpu() {
    for (field, philox) in [(0.0, PhiloxPath::Int64), (0.2, PhiloxPath::U32)] {
        let systems = tempering_systems(2, 6, Disorder::Ferromagnet, field, (1, 3, 4));
        let mut cpu = CpuEngine::new(systems.clone());
        let mut gpu = SimpleWgpuEngine::new(common::gpu(philox), systems.clone(), 64).unwrap();
        let name = format!("simple h={field} {philox:?}");
        compare_tempering(&name, &systems, &mut cpu, &mut gpu);
    }
}

/// Swap rounds at zero field whose counts the observables kernel takes instead of the update
/// before them (the tally): workgroups of 128 threads, and rounds right after another round.
#[test]
fn swap_rounds_counted_apart_match_the_cpu() {
    let cases = tempering_cases();
    let zero_field = cases.iter().filter(|case| case.field == 0.0).take(3);
    for case in zero_field {
        let layout = case.layout();
        for (workgroup_size, plans) in [(128, plans()), (64, rounds_after_rounds())] {
            let mut cpu = CpuMultispinEngine::new(layout.clone());
            let gpu = common::gpu(PhiloxPath::Int64);
            let mut gpu =
                MultispinWgpuEngine::new(gpu, layout.clone(), workgroup_size, Betas::Fixed)
                    .unwrap();
            let name = format!("{} workgroups of {workgroup_size}", case.name());
            compare_tempering_plans(&name, &layout.systems, &mut cpu, &mut gpu, &plans);
        }
    }
}

/// Every multispin exchange kind, alternating the Philox paths.
#[test]
fn multispin_engines_swap_like_the_cpu() {
    for (i, case) in tempering_cases().iter().enumerate() {
        let philox = [PhiloxPath::Int64, PhiloxPath::U32][i % 2];
        compare_multispin(case, philox);
    }
}

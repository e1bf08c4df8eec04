//! Parallel tempering on the GPU engines takes the same decisions as on the CPU engines, bit for
//! bit: the lattices after sweeps and swap rounds, the observations, the temperature history and
//! the tempering state (labels, round trips, acceptances), for the simple engine and every
//! multispin exchange kind (lanes holding samples, replicas or temperatures, SMSC), with and
//! without a field, rounds right after rounds and every third sweep; whole tempering runs write
//! the CPU's files and resume to the uninterrupted run's. wgpu alternates its WGSL Philox paths;
//! CUDA also goes group by group of word systems.

use crate::common;
use crate::common::backend::Gpu;
use common::tempering::{
    compare_tempering, compare_tempering_plans, plans, rounds_after_rounds,
    rounds_every_third_sweep, tempering_cases, tempering_systems,
};
use spinflip::config::Disorder;
use spinflip::engine::Betas;
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};

backends! {
    both: [
        simple_engine_swaps_like_the_cpu,
        multispin_engines_swap_like_the_cpu,
        swap_rounds_counted_apart_match_the_cpu,
        rounds_every_third_sweep_match_the_cpu,
        runs_resume_and_equal_the_cpu,
    ],
    wgpu: [],
    cuda: [tempering_in_groups_matches_the_cpu],
}

/// With and without a field, alternating the Philox paths.
fn simple_engine_swaps_like_the_cpu<B: Gpu>() {
    for (i, field) in [0.0, 0.2].into_iter().enumerate() {
        let gpu = B::alternating(i);
        let systems = tempering_systems(2, 6, Disorder::Ferromagnet, field, (1, 3, 4));
        let mut cpu = CpuEngine::new(systems.clone());
        let mut engine = gpu.simple(&systems, 64);
        let name = format!("{gpu} simple h={field}");
        compare_tempering(&name, &systems, &mut cpu, engine.as_mut());
    }
}

/// Every multispin exchange kind, alternating the Philox paths.
fn multispin_engines_swap_like_the_cpu<B: Gpu>() {
    for (i, case) in tempering_cases().iter().enumerate() {
        let gpu = B::alternating(i);
        let layout = case.layout();
        let mut cpu = CpuMultispinEngine::new(layout.clone());
        let mut engine = gpu.multispin(&layout, 64, Betas::Fixed);
        let name = format!("{gpu} {}", case.name());
        compare_tempering(&name, &layout.systems, &mut cpu, engine.as_mut());
    }
}

/// Swap rounds at zero field whose counts the observables kernel takes instead of the update
/// before them (the tally): blocks of 128 threads, and rounds right after another round (the
/// rounds after the measurements are tallied, and those measurements take their satisfied bonds
/// from the tally).
fn swap_rounds_counted_apart_match_the_cpu<B: Gpu>() {
    let cases = tempering_cases();
    let zero_field = cases.iter().filter(|case| case.field == 0.0).take(3);
    for case in zero_field {
        let layout = case.layout();
        for (block_size, plans) in [(128, plans()), (64, rounds_after_rounds())] {
            let mut cpu = CpuMultispinEngine::new(layout.clone());
            let mut engine = B::default().multispin(&layout, block_size, Betas::Fixed);
            let name = format!("{} {} blocks of {block_size}", B::default(), case.name());
            compare_tempering_plans(&name, &layout.systems, &mut cpu, engine.as_mut(), &plans);
        }
    }
}

/// Swap rounds every third sweep, the first sweep after each making the round's exchange as it
/// loads the spins (CUDA's paired update), on every exchange kind, as on the CPU.
fn rounds_every_third_sweep_match_the_cpu<B: Gpu>() {
    for case in tempering_cases() {
        let layout = case.layout();
        let mut cpu = CpuMultispinEngine::new(layout.clone());
        let mut engine = B::default().multispin(&layout, 64, Betas::Fixed);
        let name = format!("{} {} rounds every third sweep", B::default(), case.name());
        let plans = rounds_every_third_sweep();
        compare_tempering_plans(&name, &layout.systems, &mut cpu, engine.as_mut(), &plans);
    }
}

/// Parallel tempering of the spin glass through the whole run loop, with a round every sweep
/// (on CUDA each tallied by the sweep before it, decided by the sweep after it, some across a
/// measurement), every second sweep, and every sweep on two temperatures (whose rounds of odd
/// parity have no pairs): a run halted after a checkpoint and resumed writes the uninterrupted
/// run's files, and those are the CPU's.
fn runs_resume_and_equal_the_cpu<B: Gpu>() {
    use common::runs::{TEMPERING, cpu_and_gpu_identical, resumed_equals_uninterrupted};
    let backend = format!("backend: {:?}", B::BACKEND);
    let config = TEMPERING.replace("backend: Wgpu", &backend);
    for (every, count) in [(1, 4), (2, 4), (1, 2)] {
        let text = config
            .replace("Tempering(every: 2)", &format!("Tempering(every: {every})"))
            .replace("count: 4", &format!("count: {count}"));
        eprintln!("a round every {every} sweeps, {count} temperatures");
        resumed_equals_uninterrupted(&text);
        cpu_and_gpu_identical(&text);
    }
}

/// Parallel tempering with its word systems, and the pairs of the paired updates, in several
/// groups a stream (an L2 of 20 MiB assumed), swap rounds after every sweep and after every
/// third (sweeps after a paired one, grouped by word system again), as on the CPU.
#[cfg(feature = "cuda")]
fn tempering_in_groups_matches_the_cpu() {
    use crate::common::AMSC_SAMPLES;
    use crate::common::backend::device;
    use common::tempering::TemperingCase;
    use spinflip::config::Randoms;
    use spinflip::engine::cuda::MultispinCudaEngine;
    let case = TemperingCase {
        dims: 3,
        size: 32,
        layout: AMSC_SAMPLES,
        disorder: Disorder::Bimodal,
        field: 0.0,
        counts: (384, 2, 4),
        randoms: Randoms::Packed,
        shape: spinflip::model::Shape::Hypercubic,
        boundaries: spinflip::config::Boundaries::PERIODIC,
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

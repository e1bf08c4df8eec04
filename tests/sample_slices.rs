//! Sample slices (`IsingSystems::sample_slice`, for runs spread over processes by disorder
//! sample): an engine opened on samples `first .. first + count` of a run ends every plan with
//! exactly the bits those samples have in an engine of the whole run (lattices, observations,
//! overlap planes, link overlaps, tempering state), on the CPU and wgpu (lavapipe) engines: the
//! simple engine and every multispin layout, with and without parallel tempering. The wgpu
//! slices are compared with the whole run on the CPU and on wgpu.

mod common;

use common::slices::{SliceCase, compare_case, cpu, execute, slice_cases};
use spinflip::config::PhiloxPath;
use spinflip::engine::wgpu::{MultispinWgpuEngine, SimpleWgpuEngine};
use spinflip::engine::{Betas, Engine};
use spinflip::model::ising::IsingSystems;

/// A wgpu engine of `systems` on the Philox path `philox`.
fn wgpu(case: &SliceCase, systems: &IsingSystems, philox: PhiloxPath) -> Box<dyn Engine> {
    let ctx = common::gpu(philox);
    match case.layout {
        None => Box::new(SimpleWgpuEngine::new(ctx, systems.clone(), 64).unwrap()),
        Some(layout) => {
            let layout = case.multispin(systems, layout);
            Box::new(MultispinWgpuEngine::new(ctx, layout, 64, Betas::Fixed).unwrap())
        }
    }
}

#[test]
fn cpu_slices_equal_the_whole_run() {
    for case in slice_cases() {
        for tempering in [false, true] {
            compare_case(&case, tempering, &mut cpu, &mut cpu);
        }
    }
}

/// Against the whole run on the CPU (with tempering) and on wgpu (without); both WGSL Philox
/// paths, alternating over the cases.
#[test]
fn wgpu_slices_equal_the_whole_run() {
    for (i, case) in slice_cases().iter().enumerate() {
        let philox = [PhiloxPath::Int64, PhiloxPath::U32][i % 2];
        let mut open = |case: &SliceCase, systems: &IsingSystems| wgpu(case, systems, philox);
        compare_case(case, true, &mut cpu, &mut open);
        let mut reference = |case: &SliceCase, systems: &IsingSystems| wgpu(case, systems, philox);
        compare_case(case, false, &mut reference, &mut open);
    }
}

/// The comparison sees the offsets: a slice past sample 0 opened as if it were a run of its
/// own (its samples numbered from 0) ends elsewhere.
#[test]
fn a_slice_numbered_from_zero_is_another_run() {
    for case in slice_cases() {
        let &(first, count) = case.slices.last().unwrap();
        let slice = case.systems.sample_slice(first, count);
        let alone = IsingSystems {
            first_sample: 0,
            all_samples: count,
            slab: None,
            ..slice.clone()
        };
        let sliced = execute(cpu(&case, &slice).as_mut(), &slice, true);
        let renumbered = execute(cpu(&case, &alone).as_mut(), &alone, true);
        assert_ne!(sliced.spins, renumbered.spins, "{}", case.name());
    }
}

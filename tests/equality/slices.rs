//! Sample slices (`IsingSystems::sample_slice`, for runs spread over processes by disorder
//! sample): an engine opened on samples `first .. first + count` of a run ends every plan with
//! exactly the bits those samples have in an engine of the whole run (lattices, observations,
//! overlap planes, link overlaps, tempering state), on the CPU and GPU engines: the simple engine
//! and every multispin layout, with and without parallel tempering (cases and comparison in
//! `tests/common/slices.rs`). The GPU slices are compared with the whole run on the CPU and on
//! the same backend.

use crate::common::backend::Gpu;
use crate::common::slices::{SliceCase, compare_case, cpu, execute, slice_cases};
use spinflip::engine::{Betas, Engine};
use spinflip::model::ising::IsingSystems;

backends! {
    both: [slices_equal_the_whole_run],
    wgpu: [],
    cuda: [],
}

/// An engine of `gpu` of `systems` (the case's run or a slice of it).
fn open<B: Gpu>(gpu: B, case: &SliceCase, systems: &IsingSystems) -> Box<dyn Engine> {
    match case.layout {
        None => gpu.simple(systems, 64),
        Some(layout) => gpu.multispin(&case.multispin(systems, layout), 64, Betas::Fixed),
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

/// Against the whole run on the CPU (with and without tempering) and on the same backend
/// (without); wgpu alternates its WGSL Philox paths over the cases.
fn slices_equal_the_whole_run<B: Gpu>() {
    for (i, case) in slice_cases().iter().enumerate() {
        let gpu = B::alternating(i);
        let mut slice = |case: &SliceCase, systems: &IsingSystems| open(gpu, case, systems);
        for tempering in [true, false] {
            compare_case(case, tempering, &mut cpu, &mut slice);
        }
        let mut whole = |case: &SliceCase, systems: &IsingSystems| open(gpu, case, systems);
        compare_case(case, false, &mut whole, &mut slice);
    }
}

/// The comparison sees the offsets: a slice past sample 0 opened as if it were a run of its
/// own (its samples numbered from 0) ends elsewhere.
#[test]
fn a_slice_numbered_from_zero_is_another_run() {
    for case in slice_cases() {
        let &(first, count) = case.slices.last().unwrap();
        let slice = case.systems.sample_slice(first, count);
        let mut alone = slice.clone();
        (alone.first_sample, alone.all_samples) = (0, count);
        let sliced = execute(cpu(&case, &slice).as_mut(), &slice, true);
        let renumbered = execute(cpu(&case, &alone).as_mut(), &alone, true);
        assert_ne!(sliced.spins, renumbered.spins, "{}", case.name());
    }
}

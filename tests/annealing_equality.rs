//! Population annealing on the wgpu engines equals the CPU bit for bit: the engines' copies
//! (random maps, permutations, one source copied to many destinations) and new temperatures
//! in every layout, and whole anneals run from a config: per-beta records, populations,
//! resampling (population sizes, families) and the annealing.csv/json contents. The cases and
//! comparisons are shared with the CUDA tests (`tests/common/annealing.rs`).

mod common;

use common::annealing::{
    AMSC_ANNEALS, SIMPLE_ANNEALS, SMSC_ANNEALS, assert_anneals_equal, cases,
    check_resampling_refusals, compare_annealing_steps, compare_copies, multispin_layout, with_cpu,
};
use spinflip::config::{Layout, PhiloxPath};
use spinflip::engine::wgpu::{MultispinWgpuEngine, SimpleWgpuEngine};
use spinflip::engine::{Betas, Engine};
use spinflip::model::ising::IsingSystems;

/// A CPU engine and a wgpu engine of `systems`, simple or multispin laid out as `layout`,
/// both holding the hot start.
fn engines(systems: &IsingSystems, layout: Option<Layout>) -> [Box<dyn Engine>; 2] {
    let ctx = common::gpu(PhiloxPath::Auto);
    let gpu: Box<dyn Engine> = match layout {
        None => Box::new(SimpleWgpuEngine::new(ctx, systems.clone(), 64).unwrap()),
        Some(layout) => {
            let layout = multispin_layout(systems, layout);
            Box::new(MultispinWgpuEngine::new(ctx, layout, 64, Betas::Changing).unwrap())
        }
    };
    with_cpu(systems, layout, gpu)
}

#[test]
fn copy_systems_on_wgpu_equal_the_cpu_engines() {
    for (systems, layout) in cases() {
        let case = format!("wgpu {layout:?}");
        compare_copies(&mut engines(&systems, layout), &systems, &case);
    }
}

#[test]
fn annealing_steps_on_wgpu_equal_the_cpu_engines() {
    for (systems, layout) in cases() {
        let case = format!("wgpu {layout:?}");
        compare_annealing_steps(&mut engines(&systems, layout), &systems, &case);
    }
}

#[test]
fn resampling_steps_on_wgpu_refuse_as_the_cpu_engines() {
    for (systems, layout) in cases() {
        if systems.systems() % 64 == 0 && layout.is_some() {
            check_resampling_refusals(&mut engines(&systems, layout), &systems);
        }
    }
}

#[test]
fn simple_anneal_on_wgpu_equals_the_cpu_bit_for_bit() {
    for text in SIMPLE_ANNEALS {
        assert_anneals_equal(text, "Wgpu");
    }
}

#[test]
fn amsc_anneal_on_wgpu_equals_the_cpu_bit_for_bit() {
    for text in AMSC_ANNEALS {
        assert_anneals_equal(text, "Wgpu");
    }
}

#[test]
fn smsc_anneal_on_wgpu_equals_the_cpu_bit_for_bit() {
    for text in SMSC_ANNEALS {
        assert_anneals_equal(text, "Wgpu");
    }
}

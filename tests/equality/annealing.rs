//! Population annealing on the GPU engines equals the CPU bit for bit: the engines' copies
//! (random maps, permutations, one source copied to many destinations), new temperatures and
//! the resampling steps they refuse, in every layout, and whole anneals run from a config:
//! per-beta records, populations, resampling (population sizes, families) and the
//! annealing.csv/json contents (cases and comparisons in `tests/common/annealing.rs`), of Ising
//! spins and of the vector engine's discrete states and clock angles. CUDA also
//! with threshold tables too large for constant memory.

use crate::common::annealing::{
    AMSC_ANNEALS, SIMPLE_ANNEALS, SMSC_ANNEALS, STATE_ANNEALS, assert_anneals_equal, cases,
    check_resampling_refusals, compare_annealing_steps, compare_copies, multispin_layout, with_cpu,
};
use crate::common::backend::Gpu;
use spinflip::config::Layout;
use spinflip::engine::{Betas, Engine};
use spinflip::model::ising::IsingSystems;

backends! {
    both: [
        copy_systems_equal_the_cpu_engines,
        annealing_steps_equal_the_cpu_engines,
        resampling_steps_refuse_as_the_cpu_engines,
        simple_anneal_equals_the_cpu_bit_for_bit,
        amsc_anneal_equals_the_cpu_bit_for_bit,
        smsc_anneal_equals_the_cpu_bit_for_bit,
        state_anneal_equals_the_cpu_bit_for_bit,
    ],
    wgpu: [],
    cuda: [large_threshold_tables_anneal_like_the_cpu],
}

/// A CPU engine and an engine of `gpu` of `systems`, simple or multispin laid out as `layout`
/// (opened for changing betas, as an anneal opens it), both holding the hot start.
fn engines<B: Gpu>(gpu: B, systems: &IsingSystems, layout: Option<Layout>) -> [Box<dyn Engine>; 2] {
    let engine = match layout {
        None => gpu.simple(systems, 64),
        Some(layout) => gpu.multispin(&multispin_layout(systems, layout), 64, Betas::Changing),
    };
    with_cpu(systems, layout, engine)
}

/// The name of a case on `gpu`.
fn name<B: Gpu>(gpu: B, systems: &IsingSystems, layout: Option<Layout>) -> String {
    format!("{gpu} {layout:?}, {} temperatures", systems.betas.len())
}

fn copy_systems_equal_the_cpu_engines<B: Gpu>() {
    for (systems, layout) in cases() {
        let name = name(B::default(), &systems, layout);
        compare_copies(
            &mut engines(B::default(), &systems, layout),
            &systems,
            &name,
        );
    }
}

fn annealing_steps_equal_the_cpu_engines<B: Gpu>() {
    for (systems, layout) in cases() {
        let name = name(B::default(), &systems, layout);
        let engines = &mut engines(B::default(), &systems, layout);
        compare_annealing_steps(engines, &systems, &name);
    }
}

fn resampling_steps_refuse_as_the_cpu_engines<B: Gpu>() {
    for (systems, layout) in cases() {
        if systems.systems() % 64 == 0 && layout.is_some() {
            check_resampling_refusals(&mut engines(B::default(), &systems, layout), &systems);
        }
    }
}

/// The config's name of the backend (`Wgpu`, `Cuda`).
fn backend<B: Gpu>() -> String {
    format!("{:?}", B::BACKEND)
}

fn simple_anneal_equals_the_cpu_bit_for_bit<B: Gpu>() {
    for text in SIMPLE_ANNEALS {
        assert_anneals_equal(text, &backend::<B>());
    }
}

fn amsc_anneal_equals_the_cpu_bit_for_bit<B: Gpu>() {
    for text in AMSC_ANNEALS {
        assert_anneals_equal(text, &backend::<B>());
    }
}

fn smsc_anneal_equals_the_cpu_bit_for_bit<B: Gpu>() {
    for text in SMSC_ANNEALS {
        assert_anneals_equal(text, &backend::<B>());
    }
}

fn state_anneal_equals_the_cpu_bit_for_bit<B: Gpu>() {
    for text in STATE_ANNEALS {
        assert_anneals_equal(text, &backend::<B>());
    }
}

/// SMSC with 300 temperatures, whose threshold tables are too large for constant memory (new
/// betas then go to the global table): copies, then copies, new betas, sweeps and a
/// measurement per step.
#[cfg(feature = "cuda")]
fn large_threshold_tables_anneal_like_the_cpu() {
    use crate::common::backend::Cuda;
    use spinflip::config::{MultispinOptions, Randoms};
    use spinflip::engine::cuda::CONSTANT_TABLE_WORDS;
    use spinflip::engine::multispin::MultispinLayout;
    use spinflip::model::Lattice;
    let betas = (0..300).map(|t| 0.2 + 0.001 * f64::from(t)).collect();
    let systems = IsingSystems::ferromagnet(Lattice::new(2, 64), 0.0, betas, 1, 6);
    let options = MultispinOptions {
        layout: Layout::Smsc,
        randoms: Randoms::Exact,
    };
    let tables = MultispinLayout::new(systems.clone(), options)
        .threshold_tables()
        .len();
    assert!(
        tables > CONSTANT_TABLE_WORDS,
        "{tables} words fit constant memory"
    );
    let layout = Some(Layout::Smsc);
    let name = name(Cuda, &systems, layout);
    compare_copies(&mut engines(Cuda, &systems, layout), &systems, &name);
    // 300 systems are no whole blocks of 64: no resampling steps to refuse.
    compare_annealing_steps(&mut engines(Cuda, &systems, layout), &systems, &name);
}

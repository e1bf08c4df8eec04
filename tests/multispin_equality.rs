//! The multispin wgpu engine and the CPU multispin engine produce the same spin words, the same
//! per-lane observations and the same overlap counts, bit for bit: 2D and 3D, AMSC (lanes as
//! replicas, samples, temperatures) and SMSC, ferromagnet and Edwards-Anderson, with and without
//! a field, exact, packed and shared random numbers, both WGSL Philox paths (lavapipe in CI).

mod common;

use common::{AMSC_REPLICAS, AMSC_SAMPLES, AMSC_TEMPERATURES};
use spinflip::config::{Disorder, Layout, MultispinOptions, PhiloxPath, Randoms};
use spinflip::engine::cpu::CpuMultispinEngine;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::dispatch::{measured_slots, submissions};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::wgpu::MultispinWgpuEngine;
use spinflip::engine::wgpu::launch::MAX_DISPATCHES;
use spinflip::engine::{Betas, Engine, Plan};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;

struct Case {
    dims: u32,
    size: u32,
    layout: Layout,
    randoms: Randoms,
    disorder: Disorder,
    field: f64,
    temperatures: usize,
    samples: u32,
    replicas: u32,
}

impl Case {
    fn layout(&self) -> MultispinLayout {
        let systems = IsingSystems {
            lattice: Lattice::new(self.dims, self.size),
            field: self.field,
            betas: (0..self.temperatures)
                .map(|t| 0.15 + 0.12 * t as f64)
                .collect(),
            disorder: self.disorder,
            samples: self.samples,
            replicas: self.replicas,
            seed: 0x0123_4567_89ab_cdef,
            first_sample: 0,
            all_samples: self.samples,
            slab: None,
        };
        MultispinLayout::new(
            systems,
            MultispinOptions {
                layout: self.layout,
                randoms: self.randoms,
            },
        )
    }
}

fn compare(case: &Case, philox: PhiloxPath) {
    compare_with_checks(case, philox, true);
}

/// The GPU engine against the CPU engine, opened for fixed betas (single-temperature layouts
/// then compile their thresholds in) and for changing ones (threshold tables).
fn compare_with_checks(case: &Case, philox: PhiloxPath, bounds_checks: bool) {
    for betas in [Betas::Fixed, Betas::Changing] {
        let plan = common::sweep_plan(5, 12, 3);
        compare_engines(case, philox, bounds_checks, betas, &plan);
    }
}

fn compare_engines(
    case: &Case,
    philox: PhiloxPath,
    bounds_checks: bool,
    betas: Betas,
    plan: &Plan,
) {
    let layout = case.layout();
    let name = format!(
        "{}D L={} {} {:?} h={} {philox:?} bounds checks {bounds_checks} {betas:?} betas",
        case.dims,
        case.size,
        layout.describe(),
        case.disorder,
        case.field
    );
    let spins = initial_spins(&layout.systems);
    let mut cpu = CpuMultispinEngine::new(layout.clone());
    let ctx = common::gpu_with_checks(philox, bounds_checks);
    let mut gpu = MultispinWgpuEngine::new(ctx, layout.clone(), 64, betas).unwrap();
    cpu.set_spins(&spins).unwrap();
    gpu.set_spins(&spins).unwrap();
    for round in 0..2 {
        let cpu_measured = cpu.execute(plan).unwrap();
        let gpu_measured = gpu.execute(plan).unwrap();
        let (cpu_spins, gpu_spins) = (cpu.spins().unwrap(), gpu.spins().unwrap());
        if let Some(diff) = common::first_difference(&layout.lattice(), &cpu_spins, &gpu_spins) {
            panic!("{name} round {round}: lattices differ at {diff}");
        }
        assert_ne!(cpu_spins, spins, "{name}: nothing moved");
        assert_eq!(
            cpu_measured.observations, gpu_measured.observations,
            "{name} round {round}: observations"
        );
        assert_eq!(
            cpu_measured.overlap_planes, gpu_measured.overlap_planes,
            "{name} round {round}: overlaps"
        );
        assert_eq!(
            cpu_measured.link_overlaps, gpu_measured.link_overlaps,
            "{name} round {round}: link overlaps"
        );
        assert_eq!(
            cpu_measured.observations.len(),
            plan.slots as usize * layout.systems.systems() as usize
        );
        let overlaps = layout.systems.overlaps() as usize * case.size as usize;
        assert_eq!(
            cpu_measured.overlap_planes.len(),
            plan.slots as usize * overlaps,
            "{name}"
        );
        let links = plan.slots * layout.systems.overlaps();
        assert_eq!(cpu_measured.link_overlaps.len(), links as usize, "{name}");
    }
}

fn case(dims: u32, size: u32, layout: Layout, disorder: Disorder) -> Case {
    let (samples, replicas, temperatures) = common::full_word_systems(layout, disorder);
    Case {
        dims,
        size,
        layout,
        randoms: Randoms::Exact,
        disorder,
        field: 0.0,
        temperatures,
        samples,
        replicas,
    }
}

#[test]
fn amsc_2d_matches_cpu_bit_for_bit() {
    compare(
        &case(2, 6, AMSC_SAMPLES, Disorder::Bimodal),
        PhiloxPath::Int64,
    );
    compare(
        &case(2, 8, AMSC_TEMPERATURES, Disorder::Bimodal),
        PhiloxPath::Int64,
    );
    compare(
        &case(2, 4, AMSC_REPLICAS, Disorder::Ferromagnet),
        PhiloxPath::Int64,
    );
    // Four words of a row per thread (MultispinLayout::word_run).
    compare(
        &case(2, 8, AMSC_REPLICAS, Disorder::Ferromagnet),
        PhiloxPath::Int64,
    );
    compare(
        &Case {
            field: 0.4,
            ..case(2, 10, AMSC_REPLICAS, Disorder::Bimodal)
        },
        PhiloxPath::Int64,
    );
    compare(
        &Case {
            randoms: Randoms::Shared,
            ..case(2, 6, AMSC_TEMPERATURES, Disorder::Ferromagnet)
        },
        PhiloxPath::Int64,
    );
}

/// A plan of several submissions (2 x 700 sweep dispatches and 234 measurements, at most 1024
/// dispatches a submission), whose measurements are read back submission by submission while
/// the device runs the next.
#[test]
fn plans_of_several_submissions_match_cpu_bit_for_bit() {
    let plan = common::sweep_plan(5, 700, 3);
    let submitted = submissions(&plan, 0, 1, MAX_DISPATCHES, u64::MAX);
    let measuring = submitted.iter().filter(|s| measured_slots(s).is_some());
    assert!(
        measuring.count() >= 2,
        "measurements in two submissions at least"
    );
    let case = case(2, 6, AMSC_SAMPLES, Disorder::Bimodal);
    assert!(
        case.layout().systems.overlaps() > 0,
        "overlaps read back too"
    );
    compare_engines(&case, PhiloxPath::Int64, false, Betas::Fixed, &plan);
}

#[test]
fn amsc_3d_matches_cpu_bit_for_bit() {
    compare(
        &case(3, 4, AMSC_SAMPLES, Disorder::Bimodal),
        PhiloxPath::Int64,
    );
    compare(
        &Case {
            field: -0.7,
            ..case(3, 6, AMSC_TEMPERATURES, Disorder::Bimodal)
        },
        PhiloxPath::Int64,
    );
    compare(
        &case(3, 2, AMSC_REPLICAS, Disorder::Ferromagnet),
        PhiloxPath::Int64,
    );
    compare(
        &Case {
            randoms: Randoms::Shared,
            ..case(3, 4, AMSC_SAMPLES, Disorder::Bimodal)
        },
        PhiloxPath::Int64,
    );
}

#[test]
fn smsc_matches_cpu_bit_for_bit() {
    compare(
        &case(2, 64, Layout::Smsc, Disorder::Ferromagnet),
        PhiloxPath::Int64,
    );
    // Four words of a row per thread (MultispinLayout::word_run).
    compare(
        &case(2, 256, Layout::Smsc, Disorder::Ferromagnet),
        PhiloxPath::Int64,
    );
    compare(
        &Case {
            field: 0.25,
            ..case(2, 128, Layout::Smsc, Disorder::Bimodal)
        },
        PhiloxPath::Int64,
    );
    compare(
        &case(3, 64, Layout::Smsc, Disorder::Bimodal),
        PhiloxPath::Int64,
    );
    compare(
        &Case {
            randoms: Randoms::Shared,
            ..case(2, 64, Layout::Smsc, Disorder::Bimodal)
        },
        PhiloxPath::Int64,
    );
}

/// `randoms: Packed`: runs of four, two and one words per thread, lanes rotated (samples,
/// replicas, SMSC) or not (temperatures), in a field, through both Philox paths.
#[test]
fn packed_randoms_match_cpu_bit_for_bit() {
    let packed = |case: Case| Case {
        randoms: Randoms::Packed,
        ..case
    };
    let cases = [
        packed(case(2, 256, Layout::Smsc, Disorder::Ferromagnet)),
        packed(case(3, 64, Layout::Smsc, Disorder::Bimodal)),
        packed(Case {
            field: 0.25,
            ..case(2, 128, Layout::Smsc, Disorder::Bimodal)
        }),
        packed(case(3, 8, AMSC_SAMPLES, Disorder::Bimodal)),
        packed(case(3, 6, AMSC_SAMPLES, Disorder::Bimodal)),
        packed(case(2, 8, AMSC_REPLICAS, Disorder::Ferromagnet)),
        packed(Case {
            field: -0.7,
            ..case(3, 8, AMSC_TEMPERATURES, Disorder::Bimodal)
        }),
    ];
    for case in &cases {
        assert_ne!(case.layout().pack_rotations(), 0);
        compare(case, PhiloxPath::Int64);
    }
    compare(&cases[0], PhiloxPath::U32);
}

#[test]
fn multispin_u32_philox_path_matches_cpu_bit_for_bit() {
    compare(
        &case(2, 6, AMSC_SAMPLES, Disorder::Bimodal),
        PhiloxPath::U32,
    );
    compare(
        &case(2, 64, Layout::Smsc, Disorder::Ferromagnet),
        PhiloxPath::U32,
    );
}

/// The kernels `bounds_checks: false` compiles without wgpu's runtime checks give the same bits.
#[test]
fn unchecked_kernels_match_cpu_bit_for_bit() {
    compare_with_checks(
        &case(3, 6, AMSC_SAMPLES, Disorder::Bimodal),
        PhiloxPath::Auto,
        false,
    );
    compare_with_checks(
        &case(2, 128, Layout::Smsc, Disorder::Bimodal),
        PhiloxPath::Auto,
        false,
    );
    compare_with_checks(
        &case(2, 6, AMSC_REPLICAS, Disorder::Bimodal),
        PhiloxPath::Auto,
        false,
    );
}

#[test]
fn multispin_workgroup_size_does_not_change_results() {
    let layout = case(3, 4, AMSC_TEMPERATURES, Disorder::Bimodal).layout();
    let spins = initial_spins(&layout.systems);
    let mut results = Vec::new();
    for workgroup_size in [32, 64, 256] {
        let mut gpu = MultispinWgpuEngine::new(
            common::gpu(PhiloxPath::Auto),
            layout.clone(),
            workgroup_size,
            Betas::Fixed,
        )
        .unwrap();
        gpu.set_spins(&spins).unwrap();
        let measured = gpu.execute(&common::sweep_plan(5, 12, 3)).unwrap();
        results.push((gpu.spins().unwrap(), measured));
    }
    assert!(results.windows(2).all(|w| w[0] == w[1]));
}

/// An engine opened for fixed betas with one temperature compiles its thresholds in, and so
/// refuses new ones, saying why, instead of sweeping at the old beta; opened for changing betas
/// it takes them.
#[test]
fn wgpu_engine_for_fixed_betas_refuses_new_betas() {
    let layout = Case {
        temperatures: 1,
        ..case(2, 8, AMSC_REPLICAS, Disorder::Ferromagnet)
    }
    .layout();
    let open =
        |betas| MultispinWgpuEngine::new(common::gpu(PhiloxPath::Auto), layout.clone(), 64, betas);
    let error = open(Betas::Fixed)
        .unwrap()
        .set_betas(&[0.5])
        .unwrap_err()
        .to_string();
    assert!(error.contains("compiled its thresholds"), "{error}");
    open(Betas::Changing).unwrap().set_betas(&[0.5]).unwrap();
}

/// A plan whose measurements would need a larger storage binding than the adapter allows is
/// refused before anything runs, naming the limit; the schedule's longest plan of the same
/// systems (as `spinflip run` and `spinflip bench` split their sweeps) fits and runs.
#[test]
fn plans_beyond_the_binding_limit_are_refused_and_runs_stay_within_it() {
    let layout = Case {
        temperatures: 1,
        samples: 32768,
        replicas: 2,
        ..case(2, 4, AMSC_SAMPLES, Disorder::Ferromagnet)
    }
    .layout();
    let gpu = common::gpu(PhiloxPath::Auto);
    let binding = gpu.limits.max_storage_buffer_binding_size;
    // 16 bytes a lane of every word system, a slot.
    let slot_bytes = 16 * 32 * u64::from(layout.word_systems());
    let too_many = (binding / slot_bytes + 1) as u32;
    let mut engine = MultispinWgpuEngine::new(gpu, layout.clone(), 64, Betas::Changing).unwrap();
    let error = engine
        .execute(&common::sweep_plan(0, too_many, 1))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("max_storage_buffer_binding_size") && error.contains("observations"),
        "{error}"
    );
    let schedule = spinflip::metropolis::Schedule {
        thermalize: 0,
        measure: u64::from(too_many),
        every: 1,
        swap_every: None,
    };
    let longest = schedule.most_sweeps_per_plan(&layout.systems, engine.max_plan_slots());
    assert!(longest < u64::from(too_many), "{longest} sweeps a plan");
    let measured = engine
        .execute(&common::sweep_plan(0, longest as u32, 1))
        .unwrap();
    let systems = u64::from(layout.systems.systems());
    assert_eq!(measured.observations.len() as u64, longest * systems);
}

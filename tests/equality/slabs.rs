//! Lattices split into slabs of planes (`IsingSystems::plane_slab`, for one lattice spread over
//! MPI ranks): engines holding one slab each, in threads trading their boundary planes through
//! `LocalHalos`, end every plan with exactly the bits of one engine of the whole lattices (each
//! slab's spins the matching bit ranges, the summed observations, overlap planes and link
//! overlaps the whole run's), on the CPU and GPU multispin engines, SMSC in 2D and 3D and every
//! AMSC lanes kind, ferromagnet and spin glass, exact, shared and packed randoms, the honeycomb,
//! triangular and kagome lattices (cases and comparison in `tests/common/slabs.rs`), with whole
//! sweeps and with sweeps in pieces (`Step::Part`, each slab updating the planes of a piece
//! that it holds; not on the triangular and kagome lattices, whose sweeps are whole); and what
//! slabs do not support is refused.

use crate::common;
use crate::common::backend::Gpu;
use common::pieces::cuts;
use common::slabs::{SlabCase, compare_slabs, slab_cases, triangular_slab_cases};
use spinflip::config::{Backend, Config, EngineKind, Layout, Randoms};
use spinflip::engine::cpu::CpuMultispinEngine;
use spinflip::engine::open::open_slab_engine;
use spinflip::engine::slabs::LocalHalos;
use spinflip::engine::{Betas, Engine, Halo, Plan, populations_of, tempering_of};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;

backends! {
    both: [
        slabs_equal_the_whole_lattices,
        slab_pieces_equal_the_whole_sweeps,
        open_slab_engine_opens_slabs,
        slab_engines_refuse_what_slabs_do_not_support,
    ],
    wgpu: [],
    cuda: [],
}

fn cpu_slab(case: &SlabCase, slab: &IsingSystems, halo: Box<dyn Halo>) -> Box<dyn Engine> {
    Box::new(CpuMultispinEngine::slab(case.layout(slab), halo).unwrap())
}

fn cpu_whole(case: &SlabCase) -> Box<dyn Engine> {
    Box::new(CpuMultispinEngine::new(case.layout(&case.systems)))
}

/// A config asking for `backend` and SMSC with `randoms` (the lattice comes from the systems).
fn smsc_config(backend: Backend, randoms: Randoms) -> Config {
    let mut config = common::config(common::BASE);
    config.backend = backend;
    config.engine = EngineKind::Multispin {
        layout: Layout::Smsc,
        randoms,
    };
    config
}

/// The cases of whole sweeps: [`slab_cases`] with 3D SMSC, and the triangular and kagome
/// lattices.
fn whole_sweep_cases() -> Vec<SlabCase> {
    let mut cases = slab_cases(true);
    cases.extend(triangular_slab_cases());
    cases
}

#[test]
fn cpu_slabs_equal_the_whole_lattices() {
    for case in whole_sweep_cases() {
        compare_slabs(&case, cpu_whole(&case), &cpu_slab, &[]);
    }
}

/// GPU slabs against the whole lattices on the CPU, and in one 2D case on the same backend too;
/// wgpu alternates its WGSL Philox paths over the cases.
fn slabs_equal_the_whole_lattices<B: Gpu>() {
    for (i, case) in whole_sweep_cases().iter().enumerate() {
        let gpu = B::alternating(i);
        let open = move |case: &SlabCase, slab: &IsingSystems, halo| -> Box<dyn Engine> {
            gpu.slab(&case.layout(slab), 64, halo)
        };
        compare_slabs(case, cpu_whole(case), &open, &[]);
        if i == 2 {
            let whole = gpu.multispin(&case.layout(&case.systems), 64, Betas::Fixed);
            compare_slabs(case, whole, &open, &[]);
        }
    }
}

/// The `i`-th way of [`cuts`], in turn, to cut the case's sweeps.
fn piece_cuts(case: &SlabCase, i: usize) -> Vec<(u64, bool)> {
    let mut ways = cuts(case.systems.lattice.size, case.sweeps.into());
    ways.swap_remove(i % ways.len()).1
}

/// Sweeps in pieces on CPU slabs, each case cut another way, give the whole lattices' whole
/// sweeps: a slab updates the planes of a piece that it holds (perhaps none), and every slab
/// exchanges its halos after the piece that ends a pass.
#[test]
fn cpu_slab_pieces_equal_the_whole_sweeps() {
    for (i, case) in slab_cases(false).iter().enumerate() {
        compare_slabs(case, cpu_whole(case), &cpu_slab, &piece_cuts(case, i));
    }
}

/// The same on the backend's slabs.
fn slab_pieces_equal_the_whole_sweeps<B: Gpu>() {
    for (i, case) in slab_cases(false).iter().enumerate() {
        let gpu = B::alternating(i);
        let open = move |case: &SlabCase, slab: &IsingSystems, halo| -> Box<dyn Engine> {
            gpu.slab(&case.layout(slab), 64, halo)
        };
        compare_slabs(case, cpu_whole(case), &open, &piece_cuts(case, i));
    }
}

/// The same through `open_slab_engine`, the MPI ranks' entry, with `backend: Cpu`.
#[test]
fn open_slab_engine_opens_cpu_slabs() {
    let case = &slab_cases(false)[2];
    let open = |case: &SlabCase, slab: &IsingSystems, halo| {
        let config = smsc_config(Backend::Cpu, case.randoms);
        open_slab_engine(&config, slab.clone(), Betas::Fixed, halo).unwrap()
    };
    compare_slabs(case, cpu_whole(case), &open, &[]);
}

/// The same through `open_slab_engine` with the backend's config.
fn open_slab_engine_opens_slabs<B: Gpu>() {
    let case = &slab_cases(false)[2];
    let open = |case: &SlabCase, slab: &IsingSystems, halo| {
        let config = smsc_config(B::BACKEND, case.randoms);
        open_slab_engine(&config, slab.clone(), Betas::Fixed, halo).unwrap()
    };
    compare_slabs(case, cpu_whole(case), &open, &[]);
}

/// One slab of every plane (one rank), its own neighbour, is the whole lattices.
#[test]
fn one_slab_of_every_plane_is_the_whole_lattices() {
    for mut case in slab_cases(false).into_iter().step_by(3) {
        case.slabs = vec![(0, case.systems.lattice.size)];
        compare_slabs(&case, cpu_whole(&case), &cpu_slab, &[]);
    }
}

/// The comparison sees the halos: slabs that trade nothing (each its own neighbour) end
/// elsewhere.
#[test]
fn slabs_without_their_neighbours_differ() {
    let case = &slab_cases(false)[0];
    let whole = {
        let mut engine = cpu_whole(case);
        common::slabs::execute(engine.as_mut(), case, &case.systems, &[])
    };
    let &(first, planes) = &case.slabs[0];
    let slab = case.systems.plane_slab(first, planes);
    let alone = LocalHalos::ring(1).pop().unwrap();
    let mut engine = cpu_slab(case, &slab, alone);
    let part = common::slabs::execute(engine.as_mut(), case, &slab, &[]);
    let expected = common::slabs::slab_bits(&whole.spins[0], &slab);
    assert_ne!(part.spins[0], expected, "{}", case.name());
}

fn message(error: spinflip::error::Error) -> String {
    error.to_string()
}

#[test]
fn slabs_of_odd_or_missing_planes_are_refused() {
    let run = IsingSystems::ferromagnet(Lattice::new(2, 64), 0.0, vec![0.4], 1, 1);
    let refused = |first, planes| message(run.check_plane_slab(first, planes).unwrap_err());
    assert!(
        refused(1, 4).contains("starts at an even plane"),
        "{}",
        refused(1, 4)
    );
    assert!(refused(2, 3).contains("even number of planes"));
    assert!(refused(0, 0).contains("not at least 2 of the 64 planes"));
    assert!(refused(60, 6).contains("not at least 2 of the 64 planes"));
    let slab = run.plane_slab(2, 4);
    assert_eq!(slab.held_sites(), 4 * 64);
    assert!(message(slab.check_plane_slab(0, 2).unwrap_err()).contains("a slab already"));
    run.check_plane_slab(0, 64).unwrap();
}

/// A run of the spin glass in 2D L = 64 and its first half as a slab.
fn refusal_systems() -> (IsingSystems, IsingSystems) {
    let run = IsingSystems::spin_glass(Lattice::new(2, 64), 0.0, vec![0.4, 0.5], 1, 2, 1);
    let slab = run.plane_slab(0, 32);
    (run, slab)
}

/// What `open_slab_engine` refuses to open, and what the CPU slab engine refuses.
#[test]
fn cpu_slab_engines_refuse_what_slabs_do_not_support() {
    let (run, slab) = refusal_systems();
    let open = |config: &Config, systems: &IsingSystems, betas| {
        let halo = LocalHalos::ring(1).pop().unwrap();
        open_slab_engine(config, systems.clone(), betas, halo).map(|_| ())
    };
    let cpu = smsc_config(Backend::Cpu, Randoms::Exact);
    let refused = |config: &Config, systems: &IsingSystems, betas| {
        message(open(config, systems, betas).unwrap_err())
    };
    assert!(refused(&cpu, &run, Betas::Fixed).contains("needs the systems of a slab"));
    assert!(refused(&cpu, &slab, Betas::Changing).contains("population annealing"));
    let mut simple = cpu.clone();
    simple.engine = EngineKind::Simple;
    assert!(refused(&simple, &slab, Betas::Fixed).contains("need a multispin engine, not Simple"));
    check_slab_refusals(Backend::Cpu);
}

/// What the slab engine of the backend refuses.
fn slab_engines_refuse_what_slabs_do_not_support<B: Gpu>() {
    check_slab_refusals(B::BACKEND);
}

/// The slab engine `open_slab_engine` opens for `backend` refuses tempering, annealing, the
/// spins of whole lattices and pieces beyond the lattice's planes, saying why.
fn check_slab_refusals(backend: Backend) {
    let (run, slab) = refusal_systems();
    let config = smsc_config(backend, Randoms::Exact);
    let halo = LocalHalos::ring(1).pop().unwrap();
    let mut engine = open_slab_engine(&config, slab.clone(), Betas::Fixed, halo).unwrap();
    let state = spinflip::engine::tempering::Chains::of(&slab).initial_state();
    let not_supported = "not supported on lattices split into slabs";
    let refusals = [
        tempering_of(engine.as_mut())
            .unwrap()
            .set_tempering(&state)
            .unwrap_err(),
        populations_of(engine.as_mut())
            .unwrap()
            .set_betas(&[0.3, 0.4])
            .unwrap_err(),
        populations_of(engine.as_mut())
            .unwrap()
            .copy_systems(&[0, 1, 2, 3])
            .unwrap_err(),
    ];
    for error in refusals {
        assert!(message(error).contains(not_supported), "{backend:?}");
    }
    let whole = spinflip::engine::SpinBits::for_systems(&run);
    let error = message(engine.set_spins(&whole.clone().into()).unwrap_err());
    assert!(
        error.contains("lattices of 2048 spins"),
        "{backend:?}: {error}"
    );
    assert!(engine.sweep_parts(), "{backend:?}");
    let mut piece = Plan::default();
    piece.part(0, 0, 60..65);
    let error = message(engine.execute(&piece).unwrap_err());
    let beyond = "no piece of a sweep of 2 passes over planes 0..64";
    assert!(error.contains(beyond), "{backend:?}: {error}");
}

#[cfg(not(feature = "cuda"))]
#[test]
fn cuda_slabs_without_the_feature_say_how_to_rebuild() {
    let run = IsingSystems::ferromagnet(Lattice::new(2, 64), 0.0, vec![0.4], 1, 1);
    let config = smsc_config(Backend::Cuda, Randoms::Exact);
    let halo = LocalHalos::ring(1).pop().unwrap();
    let error = open_slab_engine(&config, run.plane_slab(0, 64), Betas::Fixed, halo);
    let error = message(error.map(|_| ()).unwrap_err());
    assert!(error.contains("without the `cuda` feature"), "{error}");
}

//! The multispin GPU engines and the CPU multispin engine produce the same spin words, the same
//! per-lane observations and the same overlap counts, bit for bit: 2D and 3D, AMSC (lanes as
//! replicas, samples, temperatures) and SMSC, ferromagnet and Edwards-Anderson, with and without
//! a field, the honeycomb lattice's brick wall, the triangular lattice (its four passes, the
//! antiferromagnet), the bipartite antiferromagnets' staggered counts, exact, packed and shared
//! random numbers, engines opened for fixed and for changing betas (a test's cases under each in
//! turn), plans of one batch and of several, sweeps in pieces over several plans, every block
//! size; wgpu on both WGSL Philox paths and without bounds checks, CUDA with threshold tables
//! in constant and global memory, word systems in groups, and against wgpu too.

use crate::common;
use crate::common::backend::Gpu;
use common::tempering::tempering_cases;
use common::{AMSC_REPLICAS, AMSC_SAMPLES, AMSC_TEMPERATURES};
use spinflip::config::{
    Boundaries, Boundary, Disorder, Layout, MultispinOptions, PhiloxPath, Randoms,
};
use spinflip::engine::cpu::CpuMultispinEngine;
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::dispatch::{measured_slots, submissions};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::tempering::Chains;
use spinflip::engine::wgpu::launch::MAX_DISPATCHES;
use spinflip::engine::{
    Betas, Engine, ISING_PASSES, Measurements, Plan, SpinBits, populations_of, tempering_of,
};
use spinflip::model::ising::IsingSystems;
use spinflip::model::systems::SystemIndex;
use spinflip::model::{Lattice, Shape};

backends! {
    both: [
        amsc_2d_matches_cpu_bit_for_bit,
        amsc_3d_matches_cpu_bit_for_bit,
        smsc_matches_cpu_bit_for_bit,
        packed_randoms_match_cpu_bit_for_bit,
        plans_of_several_batches_match_cpu_bit_for_bit,
        pieces_of_sweeps_match_whole_sweeps_on_the_cpu,
        block_size_does_not_change_results,
        engine_for_fixed_betas_refuses_new_betas,
        twisted_tori_match_cpu_bit_for_bit,
        open_edges_match_cpu_bit_for_bit,
        honeycomb_lattices_match_cpu_bit_for_bit,
        triangular_lattices_match_cpu_bit_for_bit,
        bipartite_antiferromagnets_match_cpu_bit_for_bit,
        word_systems_past_the_grid_z_limit_match_cpu_bit_for_bit,
    ],
    wgpu: [
        u32_philox_path_matches_cpu_bit_for_bit,
        unchecked_kernels_match_cpu_bit_for_bit,
        plans_beyond_the_binding_limit_are_refused_and_runs_stay_within_it,
    ],
    cuda: [
        matches_wgpu_bit_for_bit,
        large_threshold_tables_match_cpu_bit_for_bit,
        word_system_groups_match_cpu_bit_for_bit,
    ],
}

/// A multispin case: geometry, word layout, model and randoms, and its system counts.
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
    /// Antiperiodic axes reverse the bonds across their edges (coupling words for the
    /// ferromagnet too).
    boundaries: Boundaries,
    /// The square or cubic lattice, the honeycomb's brick wall, or the triangular lattice.
    shape: Shape,
    /// Every bond reversed.
    antiferromagnet: bool,
}

impl Case {
    fn layout(&self) -> MultispinLayout {
        let betas = (0..self.temperatures)
            .map(|t| 0.15 + 0.12 * (t % 8) as f64)
            .collect();
        let seed = 0x0123_4567_89ab_cdef;
        let index = SystemIndex::new(betas, self.disorder, self.samples, self.replicas, seed);
        let lattice = Lattice::shaped(self.shape, self.dims, self.size);
        let systems = IsingSystems {
            boundaries: self.boundaries,
            antiferromagnet: self.antiferromagnet,
            ..IsingSystems::new(index, lattice, self.field)
        };
        MultispinLayout::new(
            systems,
            MultispinOptions {
                layout: self.layout,
                randoms: self.randoms,
            },
        )
    }

    fn name(&self) -> String {
        format!(
            "{}D L={} {} {:?} h={}",
            self.dims,
            self.size,
            self.layout().describe(),
            self.disorder,
            self.field
        )
    }
}

/// A case with system counts that fill the words of its layout.
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
        boundaries: Boundaries::PERIODIC,
        shape: Shape::Hypercubic,
        antiferromagnet: false,
    }
}

fn packed(case: Case) -> Case {
    Case {
        randoms: Randoms::Packed,
        ..case
    }
}

fn shared(case: Case) -> Case {
    Case {
        randoms: Randoms::Shared,
        ..case
    }
}

fn field(field: f64, case: Case) -> Case {
    Case { field, ..case }
}

/// Lattices and measurements of `engine` after each of two rounds of `plan`.
fn rounds(engine: &mut dyn Engine, plan: &Plan) -> Vec<(SpinBits, Measurements)> {
    (0..2)
        .map(|_| {
            let measured = engine.execute(plan).unwrap();
            (engine.spins().unwrap().into_bits().unwrap(), measured)
        })
        .collect()
}

/// `engine` against `reference` (each named), both of the case's layout, from the hot start
/// through two rounds of `plan`.
fn compare_engines(
    case: &Case,
    reference: (&str, &mut dyn Engine),
    engine: (&str, &mut dyn Engine),
    plan: &Plan,
) {
    let layout = case.layout();
    let spins = initial_spins(&layout.systems);
    reference.1.set_spins(&spins.clone().into()).unwrap();
    engine.1.set_spins(&spins.clone().into()).unwrap();
    let expected = rounds(reference.1, plan);
    let got = rounds(engine.1, plan);
    for (round, (expected, got)) in expected.iter().zip(&got).enumerate() {
        let name = format!(
            "{} round {round}: {} vs {}",
            case.name(),
            reference.0,
            engine.0
        );
        if let Some(diff) = common::first_difference(&layout.lattice(), &expected.0, &got.0) {
            panic!("{name}: lattices differ at {diff}");
        }
        assert_ne!(got.0, spins, "{name}: nothing moved");
        let (expected, got) = (&expected.1, &got.1);
        assert_eq!(
            expected.observations, got.observations,
            "{name}: observations"
        );
        assert_eq!(
            expected.overlap_planes, got.overlap_planes,
            "{name}: overlaps"
        );
        assert_eq!(
            expected.link_overlaps, got.link_overlaps,
            "{name}: link overlaps"
        );
        let systems = layout.systems.systems() as usize;
        assert_eq!(
            got.observations.len(),
            plan.slots as usize * systems,
            "{name}"
        );
        let overlaps = layout.systems.overlaps() as usize * case.size as usize;
        assert_eq!(
            got.overlap_planes.len(),
            plan.slots as usize * overlaps,
            "{name}"
        );
        let links = plan.slots * layout.systems.overlaps();
        assert_eq!(got.link_overlaps.len(), links as usize, "{name}");
    }
}

/// The engine of `gpu` opened for `betas` against the CPU engine, through two rounds of `plan`.
fn compare_plan<B: Gpu>(case: &Case, gpu: B, betas: Betas, plan: &Plan) {
    let layout = case.layout();
    let mut cpu = CpuMultispinEngine::new(layout.clone());
    let mut engine = gpu.multispin(&layout, 64, betas);
    let name = format!("{gpu} {betas:?} betas");
    compare_engines(case, ("CPU", &mut cpu), (&name, engine.as_mut()), plan);
}

/// The engine of `gpu` against the CPU engine, opened for fixed betas (single-temperature
/// layouts then compile their thresholds in) and for changing ones (threshold tables).
fn compare<B: Gpu>(case: &Case, gpu: B) {
    for betas in [Betas::Fixed, Betas::Changing] {
        compare_plan(case, gpu, betas, &common::sweep_plan(5, 12, 3));
    }
}

/// Each of `cases` against the CPU engine under one of the two beta modes of [`compare`] in
/// turn, fixed first, so that a test's cases meet both. Both modes for every case would compile
/// each update twice for one geometry, which on lavapipe (CI's adapter) is most of a test's
/// time: about 1.5 s a compile of the multispin update.
fn compare_each<B: Gpu>(cases: &[Case], gpu: B) {
    for (i, case) in cases.iter().enumerate() {
        let betas = [Betas::Fixed, Betas::Changing][i % 2];
        compare_plan(case, gpu, betas, &common::sweep_plan(5, 12, 3));
    }
}

/// 2D AMSC: lanes as samples, temperatures and replicas, a field, shared randoms.
fn amsc_2d_cases() -> Vec<Case> {
    use Disorder::{Bimodal, Ferromagnet};
    vec![
        case(2, 6, AMSC_SAMPLES, Bimodal),
        case(2, 8, AMSC_TEMPERATURES, Bimodal),
        case(2, 4, AMSC_REPLICAS, Ferromagnet),
        // Four words of a row per thread (MultispinLayout::word_run).
        case(2, 8, AMSC_REPLICAS, Ferromagnet),
        field(0.4, case(2, 10, AMSC_REPLICAS, Bimodal)),
        shared(case(2, 6, AMSC_TEMPERATURES, Ferromagnet)),
    ]
}

/// 3D AMSC, likewise.
fn amsc_3d_cases() -> Vec<Case> {
    use Disorder::{Bimodal, Ferromagnet};
    vec![
        case(3, 4, AMSC_SAMPLES, Bimodal),
        field(-0.7, case(3, 6, AMSC_TEMPERATURES, Bimodal)),
        case(3, 2, AMSC_REPLICAS, Ferromagnet),
        shared(case(3, 4, AMSC_SAMPLES, Bimodal)),
    ]
}

/// SMSC in 2D and 3D, ferromagnet and spin glass, a field, shared randoms.
fn smsc_cases() -> Vec<Case> {
    use Disorder::{Bimodal, Ferromagnet};
    vec![
        case(2, 64, Layout::Smsc, Ferromagnet),
        // Four words of a row per thread (MultispinLayout::word_run).
        case(2, 256, Layout::Smsc, Ferromagnet),
        field(0.25, case(2, 128, Layout::Smsc, Bimodal)),
        case(3, 64, Layout::Smsc, Bimodal),
        shared(case(2, 64, Layout::Smsc, Bimodal)),
        // Planes whose 3 L^2 bonds pass 16 bits: overlap counts a word each, not packed in
        // pairs (MultispinLayout::pair_counts).
        case(3, 192, Layout::Smsc, Ferromagnet),
    ]
}

/// More word systems (and overlap pairs) than a grid takes along z (65535 on every GPU and on
/// lavapipe): the hot start, the updates, the measurements and the overlaps run in pieces, with
/// the same bits. A population anneal of large populations holds that many.
fn word_systems_past_the_grid_z_limit_match_cpu_bit_for_bit<B: Gpu>() {
    let replicas = Case {
        replicas: 32 * (1 << 16) + 32 * 5,
        temperatures: 1,
        ..case(2, 4, AMSC_REPLICAS, Disorder::Ferromagnet)
    };
    let samples = Case {
        samples: 32 * (1 << 16) + 32,
        replicas: 2,
        temperatures: 1,
        ..case(2, 2, AMSC_SAMPLES, Disorder::Bimodal)
    };
    assert_eq!(replicas.layout().word_systems(), (1 << 16) + 5);
    assert_eq!(samples.layout().overlap_word_pairs().len(), (1 << 16) + 1);
    for case in [replicas, samples] {
        compare_plan(
            &case,
            B::default(),
            Betas::Fixed,
            &common::sweep_plan(1, 2, 2),
        );
    }
}

/// `randoms: Packed`: runs of four, two and one words per thread, lanes rotated (samples,
/// replicas, SMSC) or not (temperatures), in a field.
fn packed_cases() -> Vec<Case> {
    use Disorder::{Bimodal, Ferromagnet};
    vec![
        packed(case(2, 256, Layout::Smsc, Ferromagnet)),
        packed(case(3, 64, Layout::Smsc, Bimodal)),
        packed(field(0.25, case(2, 128, Layout::Smsc, Bimodal))),
        packed(case(3, 8, AMSC_SAMPLES, Bimodal)),
        packed(case(3, 6, AMSC_SAMPLES, Bimodal)),
        packed(case(2, 8, AMSC_REPLICAS, Ferromagnet)),
        packed(field(-0.7, case(3, 8, AMSC_TEMPERATURES, Bimodal))),
    ]
}

/// Tori twisted by antiperiodic axes: the ferromagnet with replicas and temperatures in lanes
/// and on SMSC in a field, the 3D glass with samples in lanes, packed randoms.
fn twisted_tori_match_cpu_bit_for_bit<B: Gpu>() {
    use Boundary::{Antiperiodic, Periodic};
    use Disorder::{Bimodal, Ferromagnet};
    let twisted = |axes: &[Boundary], case: Case| Case {
        boundaries: Boundaries::new(axes),
        ..case
    };
    let cases = [
        twisted(
            &[Periodic, Antiperiodic],
            case(2, 4, AMSC_REPLICAS, Ferromagnet),
        ),
        twisted(
            &[Antiperiodic, Antiperiodic],
            shared(case(2, 6, AMSC_TEMPERATURES, Ferromagnet)),
        ),
        twisted(
            &[Antiperiodic, Periodic],
            field(0.25, case(2, 64, Layout::Smsc, Ferromagnet)),
        ),
        twisted(
            &[Antiperiodic, Periodic, Antiperiodic],
            case(3, 4, AMSC_SAMPLES, Bimodal),
        ),
        twisted(
            &[Periodic, Antiperiodic],
            packed(case(2, 8, AMSC_REPLICAS, Ferromagnet)),
        ),
    ];
    compare_each(&cases, B::default());
}

/// Open edges, whose sites leave out the bonds across them (corners two or three): the
/// ferromagnet with replicas in lanes, the glass with samples in lanes in 3D, SMSC in a field
/// with one open axis (its edge sites the first and last bits of a row) and the 3D glass's
/// packed randoms, temperatures in lanes with shared randoms beside an antiperiodic axis, the
/// bipartite antiferromagnet; on the other lattices the honeycomb's brick wall (its one y bond
/// up or down across the y edge), the triangular lattice (its diagonal across either edge, the
/// corners three bonds short) and the kagome lattice (its holes' bonds no bonds), AMSC and
/// SMSC, the glass and the antiferromagnet in a field.
fn open_edges_match_cpu_bit_for_bit<B: Gpu>() {
    use Boundary::{Antiperiodic, Open, Periodic};
    use Disorder::{Bimodal, Ferromagnet};
    use Shape::{Honeycomb, Kagome, Triangular};
    let edged = |axes: &[Boundary], case: Case| Case {
        boundaries: Boundaries::new(axes),
        ..case
    };
    let cases = [
        edged(&[Open, Open], case(2, 6, AMSC_REPLICAS, Ferromagnet)),
        edged(&[Open; 3], case(3, 4, AMSC_SAMPLES, Bimodal)),
        edged(
            &[Open, Periodic],
            field(0.25, case(2, 128, Layout::Smsc, Ferromagnet)),
        ),
        edged(
            &[Open, Periodic, Open],
            packed(case(3, 64, Layout::Smsc, Bimodal)),
        ),
        edged(
            &[Antiperiodic, Open],
            shared(case(2, 6, AMSC_TEMPERATURES, Ferromagnet)),
        ),
        Case {
            antiferromagnet: true,
            ..edged(&[Periodic, Open], case(2, 8, AMSC_REPLICAS, Ferromagnet))
        },
        shaped(
            Honeycomb,
            edged(&[Open, Open], case(2, 6, AMSC_REPLICAS, Ferromagnet)),
        ),
        shaped(
            Honeycomb,
            edged(
                &[Periodic, Open],
                field(0.2, case(2, 64, Layout::Smsc, Bimodal)),
            ),
        ),
        shaped(
            Triangular,
            edged(&[Open, Open], case(2, 6, AMSC_SAMPLES, Bimodal)),
        ),
        Case {
            antiferromagnet: true,
            ..shaped(
                Triangular,
                edged(
                    &[Open, Periodic],
                    field(0.3, case(2, 192, Layout::Smsc, Ferromagnet)),
                ),
            )
        },
        shaped(
            Triangular,
            edged(
                &[Periodic, Open],
                packed(case(2, 12, AMSC_REPLICAS, Ferromagnet)),
            ),
        ),
        shaped(
            Kagome,
            edged(&[Open, Open], case(2, 12, AMSC_SAMPLES, Bimodal)),
        ),
        shaped(
            Kagome,
            edged(
                &[Open, Open],
                field(-0.2, case(2, 192, Layout::Smsc, Ferromagnet)),
            ),
        ),
    ];
    compare_each(&cases, B::default());
}

/// `case` on the lattice of shape `shape`.
fn shaped(shape: Shape, case: Case) -> Case {
    Case { shape, ..case }
}

/// The honeycomb's brick wall, whose sites skip one y bond: replicas and temperatures in lanes,
/// SMSC in a field, packed and shared randoms; the +-J glass (its y bond words read from the
/// site, colour 0, or from its -y neighbour, colour 1) and the twisted torus. Each case fails if
/// a kernel counts the missing bond or reads the wrong bond word (its energies and flips then
/// differ from the CPU's).
fn honeycomb_cases() -> Vec<Case> {
    use Boundary::{Antiperiodic, Periodic};
    use Disorder::{Bimodal, Ferromagnet};
    let honeycomb = |case: Case| Case {
        shape: Shape::Honeycomb,
        ..case
    };
    vec![
        honeycomb(case(2, 4, AMSC_REPLICAS, Ferromagnet)),
        honeycomb(field(0.3, case(2, 6, AMSC_TEMPERATURES, Ferromagnet))),
        honeycomb(field(-0.2, case(2, 64, Layout::Smsc, Ferromagnet))),
        honeycomb(packed(case(2, 8, AMSC_REPLICAS, Ferromagnet))),
        honeycomb(shared(case(2, 8, AMSC_TEMPERATURES, Ferromagnet))),
        honeycomb(case(2, 6, AMSC_SAMPLES, Bimodal)),
        honeycomb(field(0.2, packed(case(2, 64, Layout::Smsc, Bimodal)))),
        Case {
            boundaries: Boundaries::new(&[Antiperiodic, Periodic]),
            ..honeycomb(case(2, 8, AMSC_REPLICAS, Ferromagnet))
        },
        Case {
            boundaries: Boundaries::new(&[Periodic, Antiperiodic]),
            ..honeycomb(case(2, 6, AMSC_TEMPERATURES, Bimodal))
        },
    ]
}

/// The triangular lattice, whose diagonal bonds join sites of one colour, updated in four passes
/// (each colour's even rows, then its odd rows): replicas and temperatures in lanes, SMSC in a
/// field, packed and shared randoms, the antiferromagnet, the +-J glass (its diagonal bond words
/// read from the site's own colour) and the twisted torus; the kagome lattice drawn on it (the
/// antiferromagnet in a field, SMSC, the glass), whose sites keep four bonds and whose holes no
/// pass moves and no measurement counts. A kernel that reads a diagonal neighbour or bond word
/// from the wrong row or colour, updates a row of the other half or counts a missing bond
/// gives other energies and flips than the CPU's.
fn triangular_cases() -> Vec<Case> {
    use Boundary::{Antiperiodic, Periodic};
    use Disorder::{Bimodal, Ferromagnet};
    let triangular = |case: Case| Case {
        shape: Shape::Triangular,
        ..case
    };
    let antiferromagnet = |case: Case| Case {
        antiferromagnet: true,
        ..triangular(case)
    };
    let kagome = |case: Case| Case {
        shape: Shape::Kagome,
        ..case
    };
    vec![
        triangular(case(2, 6, AMSC_REPLICAS, Ferromagnet)),
        antiferromagnet(field(0.3, case(2, 6, AMSC_TEMPERATURES, Ferromagnet))),
        triangular(field(-0.2, case(2, 192, Layout::Smsc, Ferromagnet))),
        antiferromagnet(case(2, 192, Layout::Smsc, Ferromagnet)),
        triangular(packed(case(2, 12, AMSC_REPLICAS, Ferromagnet))),
        triangular(shared(case(2, 12, AMSC_TEMPERATURES, Ferromagnet))),
        triangular(case(2, 6, AMSC_SAMPLES, Bimodal)),
        triangular(field(0.2, packed(case(2, 192, Layout::Smsc, Bimodal)))),
        Case {
            boundaries: Boundaries::new(&[Antiperiodic, Periodic]),
            ..triangular(case(2, 12, AMSC_REPLICAS, Ferromagnet))
        },
        kagome(antiferromagnet(field(
            0.3,
            case(2, 6, AMSC_TEMPERATURES, Ferromagnet),
        ))),
        kagome(packed(case(2, 192, Layout::Smsc, Ferromagnet))),
        kagome(case(2, 12, AMSC_SAMPLES, Bimodal)),
    ]
}

/// The antiferromagnet on the bipartite lattices, whose observations count the staggered up
/// spins (up on colour 0, down on colour 1): the square lattice with replicas in lanes, packed
/// randoms and SMSC, the cubic lattice with temperatures in lanes, the honeycomb's brick wall
/// and the torus twisted along y. A kernel that counts the plain up spins gives other counts
/// than the CPU's.
fn bipartite_antiferromagnets_match_cpu_bit_for_bit<B: Gpu>() {
    use Boundary::{Antiperiodic, Periodic};
    use Disorder::Ferromagnet;
    let antiferromagnet = |case: Case| Case {
        antiferromagnet: true,
        ..case
    };
    let cases = [
        antiferromagnet(case(2, 8, AMSC_REPLICAS, Ferromagnet)),
        antiferromagnet(packed(case(2, 64, Layout::Smsc, Ferromagnet))),
        antiferromagnet(case(3, 4, AMSC_TEMPERATURES, Ferromagnet)),
        antiferromagnet(Case {
            shape: Shape::Honeycomb,
            ..case(2, 6, AMSC_REPLICAS, Ferromagnet)
        }),
        antiferromagnet(Case {
            boundaries: Boundaries::new(&[Periodic, Antiperiodic]),
            ..case(2, 8, AMSC_REPLICAS, Ferromagnet)
        }),
    ];
    compare_each(&cases, B::default());
}

fn triangular_lattices_match_cpu_bit_for_bit<B: Gpu>() {
    compare_each(&triangular_cases(), B::default());
}

fn honeycomb_lattices_match_cpu_bit_for_bit<B: Gpu>() {
    compare_each(&honeycomb_cases(), B::default());
}

fn amsc_2d_matches_cpu_bit_for_bit<B: Gpu>() {
    compare_each(&amsc_2d_cases(), B::default());
}

fn amsc_3d_matches_cpu_bit_for_bit<B: Gpu>() {
    compare_each(&amsc_3d_cases(), B::default());
}

fn smsc_matches_cpu_bit_for_bit<B: Gpu>() {
    compare_each(&smsc_cases(), B::default());
}

/// Every packed case, and the first on every other Philox path too.
fn packed_randoms_match_cpu_bit_for_bit<B: Gpu>() {
    let cases = packed_cases();
    for case in &cases {
        assert_ne!(case.layout().pack_rotations(), 0);
    }
    compare_each(&cases, B::default());
    for gpu in B::philox_paths().into_iter().skip(1) {
        compare(&cases[0], gpu);
    }
}

/// A plan of several batches (2 x 700 sweep launches and 234 measurements, at most 1024 launches
/// a batch, wgpu's submissions), whose measurements are read back batch by batch while the
/// device runs the next; without bounds checks.
fn plans_of_several_batches_match_cpu_bit_for_bit<B: Gpu>() {
    let plan = common::sweep_plan(5, 700, 3);
    let submitted = submissions(
        &plan,
        0,
        (1, ISING_PASSES),
        (MAX_DISPATCHES, u64::MAX),
        &|_, p| p,
    );
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
    compare_plan(&case, B::default().unchecked(), Betas::Fixed, &plan);
}

/// Sweeps 0..6 of a lattice of `l` planes cut into plans at the units `cuts` of the whole run
/// (pass `p` of sweep `s` on plane `k` is unit `(2 s + p) l + k`, as [`Plan::sweep_units`]
/// counts a sweep's), each sweep followed, in the plan that finishes it, by a measurement every
/// second sweep and a swap round where `tempering`; without cuts, the whole sweeps in one plan.
fn cut_plans(l: u32, cuts: &[u64], tempering: bool) -> Vec<Plan> {
    let per_sweep = 2 * u64::from(l);
    let ends = cuts.iter().copied().chain([6 * per_sweep]);
    let mut start = 0;
    ends.map(|end| {
        let mut plan = Plan::default();
        for sweep in start / per_sweep..end.div_ceil(per_sweep) {
            let first = sweep * per_sweep;
            let units = start.max(first) - first..end.min(first + per_sweep) - first;
            let sweep = sweep as u32;
            plan.sweep_units(sweep, (2, l), units.clone());
            if units.end == per_sweep {
                if sweep.is_multiple_of(2) {
                    plan.measure();
                }
                if tempering {
                    plan.swap(sweep, sweep % 2);
                }
            }
        }
        start = end;
        plan
    })
    .collect()
}

/// Cuts of six sweeps of `l >= 4` planes: single planes, empty pieces, cuts inside and between
/// the colours, a plan from a sweep's last plane over its round to the next sweep's colour 0 and
/// first plane of colour 1, plans across sweeps, and whole sweeps between pieces.
fn cuts(l: u64) -> Vec<u64> {
    let cuts = [
        1,
        1,
        l - 1,
        l,
        l + 1,
        2 * l - 1,
        3 * l + 1,
        5 * l + 1,
        5 * l + 2,
    ];
    cuts.into_iter()
        .chain([5 * l + 2, 8 * l, 9 * l, 10 * l - 1])
        .collect()
}

/// `engine`'s lattices after `plans` from the hot start, with tempering from its initial
/// state where `tempering`: the lattices, every plan's measurements one after another, and the
/// tempering state.
fn run_plans(
    engine: &mut dyn Engine,
    systems: &IsingSystems,
    plans: &[Plan],
    tempering: bool,
) -> (SpinBits, Measurements, Vec<u32>) {
    engine.set_spins(&initial_spins(systems).into()).unwrap();
    if tempering {
        let state = Chains::of(systems).initial_state();
        tempering_of(engine).unwrap().set_tempering(&state).unwrap();
    }
    let all = crate::common::execute_all(engine, plans);
    let state = match tempering {
        true => tempering_of(engine).unwrap().tempering_state().unwrap(),
        false => Vec::new(),
    };
    (engine.spins().unwrap().into_bits().unwrap(), all, state)
}

/// Sweeps in pieces ([`spinflip::engine::Step::Part`]), spread over plans with measurements
/// and swap rounds after the sweeps they finish, give the CPU's whole sweeps bit for bit, on
/// the CPU and on the backend: every tempering exchange kind, AMSC and SMSC, exact and packed
/// randoms (rounds after a piece of colour 1 count their bonds apart from the update; the sweep
/// after a round in pieces makes the round's exchange apart from it); and a 3D SMSC spin
/// glass without tempering. (The triangular lattice's engines refuse pieces.)
fn pieces_of_sweeps_match_whole_sweeps_on_the_cpu<B: Gpu>() {
    // The triangular lattice's sweeps are whole (MultispinLayout::sweep_parts).
    let tempering = tempering_cases()
        .into_iter()
        .map(|case| (case.layout(), true))
        .filter(|(layout, _)| layout.sweep_parts());
    let smsc = case(3, 64, Layout::Smsc, Disorder::Bimodal).layout();
    for (i, (layout, tempering)) in tempering.chain([(smsc, false)]).enumerate() {
        let gpu = B::alternating(i);
        let systems = &layout.systems;
        let l = systems.lattice.size;
        let whole = cut_plans(l, &[], tempering);
        let pieces = cut_plans(l, &cuts(l.into()), tempering);
        let mut cpu = CpuMultispinEngine::new(layout.clone());
        let expected = run_plans(&mut cpu, systems, &whole, tempering);
        assert_ne!(expected.0, initial_spins(systems), "nothing moved");
        let mut engines: [(String, Box<dyn Engine>); 2] = [
            (
                "CPU".into(),
                Box::new(CpuMultispinEngine::new(layout.clone())),
            ),
            (gpu.to_string(), gpu.multispin(&layout, 64, Betas::Fixed)),
        ];
        for (name, engine) in &mut engines {
            let got = run_plans(engine.as_mut(), systems, &pieces, tempering);
            let name = format!("{name} {} in pieces", layout.describe());
            if let Some(diff) = common::first_difference(&systems.lattice, &expected.0, &got.0) {
                panic!("{name}: lattices differ at {diff}");
            }
            assert_eq!(got.1, expected.1, "{name}: measurements");
            assert_eq!(got.2, expected.2, "{name}: tempering state");
        }
    }
}

fn block_size_does_not_change_results<B: Gpu>() {
    for case in [
        case(3, 4, AMSC_TEMPERATURES, Disorder::Bimodal),
        case(2, 128, Layout::Smsc, Disorder::Bimodal),
    ] {
        let layout = case.layout();
        let spins = initial_spins(&layout.systems);
        let mut results = Vec::new();
        for &block_size in B::BLOCK_SIZES {
            let mut engine = B::default().multispin(&layout, block_size, Betas::Fixed);
            engine.set_spins(&spins.clone().into()).unwrap();
            results.push(rounds(engine.as_mut(), &common::sweep_plan(5, 12, 3)));
        }
        assert!(results.windows(2).all(|w| w[0] == w[1]), "{}", case.name());
    }
}

/// An engine opened for fixed betas with one temperature compiles its thresholds in, and so
/// refuses new ones, saying why, instead of sweeping at the old beta; opened for changing betas
/// it takes them.
fn engine_for_fixed_betas_refuses_new_betas<B: Gpu>() {
    let layout = Case {
        temperatures: 1,
        ..case(2, 8, AMSC_REPLICAS, Disorder::Ferromagnet)
    }
    .layout();
    let open = |betas| B::default().multispin(&layout, 64, betas);
    let set_betas =
        |mut engine: Box<dyn Engine>| populations_of(engine.as_mut()).unwrap().set_betas(&[0.5]);
    let error = set_betas(open(Betas::Fixed)).unwrap_err().to_string();
    assert!(error.contains("compiled its thresholds"), "{error}");
    set_betas(open(Betas::Changing)).unwrap();
}

/// wgpu's second WGSL Philox path (the default is Int64).
fn u32_philox_path_matches_cpu_bit_for_bit() {
    use crate::common::backend::Wgpu;
    let u32_path = Wgpu::with(PhiloxPath::U32);
    let cases = [
        case(2, 6, AMSC_SAMPLES, Disorder::Bimodal),
        case(2, 64, Layout::Smsc, Disorder::Ferromagnet),
    ];
    compare_each(&cases, u32_path);
}

/// The kernels `bounds_checks: false` compiles without wgpu's runtime checks give the same bits.
fn unchecked_kernels_match_cpu_bit_for_bit() {
    use crate::common::backend::Wgpu;
    let unchecked = Wgpu::with(PhiloxPath::Auto).unchecked();
    let cases = [
        case(3, 6, AMSC_SAMPLES, Disorder::Bimodal),
        case(2, 128, Layout::Smsc, Disorder::Bimodal),
        case(2, 6, AMSC_REPLICAS, Disorder::Bimodal),
    ];
    compare_each(&cases, unchecked);
}

/// A plan whose measurements would need a larger storage binding than the adapter allows is
/// refused before anything runs, naming the limit; the schedule's longest plan of the same
/// systems (as `spinflip run` and `spinflip bench` split their sweeps) fits and runs.
fn plans_beyond_the_binding_limit_are_refused_and_runs_stay_within_it() {
    use spinflip::engine::wgpu::MultispinWgpuEngine;
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
        clusters: None,
    };
    let longest = schedule.most_sweeps_per_plan(&layout.systems, engine.max_plan_slots());
    assert!(longest < u64::from(too_many), "{longest} sweeps a plan");
    let measured = engine
        .execute(&common::sweep_plan(0, longest as u32, 1))
        .unwrap();
    let systems = u64::from(layout.systems.systems());
    assert_eq!(measured.observations.len() as u64, longest * systems);
}

/// CUDA against wgpu, on every case of the tests above (wgpu compiled for fixed betas).
#[cfg(feature = "cuda")]
fn matches_wgpu_bit_for_bit() {
    use crate::common::backend::{Cuda, Wgpu};
    let cases = [
        amsc_2d_cases(),
        amsc_3d_cases(),
        smsc_cases(),
        packed_cases(),
        honeycomb_cases(),
        triangular_cases(),
    ];
    for case in cases.iter().flatten() {
        let layout = case.layout();
        let mut wgpu = Wgpu::default().multispin(&layout, 64, Betas::Fixed);
        let mut cuda = Cuda.multispin(&layout, 64, Betas::Fixed);
        let plan = common::sweep_plan(5, 12, 3);
        let name = Wgpu::default().to_string();
        compare_engines(case, (&name, wgpu.as_mut()), ("CUDA", cuda.as_mut()), &plan);
    }
}

/// Threshold tables too large for constant memory are read from global memory, with the same
/// bits.
#[cfg(feature = "cuda")]
fn large_threshold_tables_match_cpu_bit_for_bit() {
    use crate::common::backend::Cuda;
    use spinflip::engine::cuda::CONSTANT_TABLE_WORDS;
    let case = Case {
        temperatures: 300,
        ..case(2, 64, Layout::Smsc, Disorder::Ferromagnet)
    };
    let tables = case.layout().threshold_tables().len();
    assert!(
        tables > CONSTANT_TABLE_WORDS,
        "{tables} words fit constant memory"
    );
    compare(&case, Cuda);
}

/// Many word systems of a 3D spin glass go group by group, each group's sweeps kept in L2 (on
/// devices with at least 48 MiB of it, such as the H100's 50), with the same bits.
#[cfg(feature = "cuda")]
fn word_system_groups_match_cpu_bit_for_bit() {
    use crate::common::backend::{Cuda, device};
    use spinflip::engine::cuda::MultispinCudaEngine;
    let case = Case {
        samples: 320,
        temperatures: 1,
        ..case(3, 64, AMSC_SAMPLES, Disorder::Bimodal)
    };
    let layout = case.layout();
    assert_eq!(layout.word_systems(), 20);
    let device = device();
    let large_l2 = device.l2_bytes >= 48 << 20;
    let groups = MultispinCudaEngine::new(device, layout, 64)
        .unwrap()
        .sweep_groups();
    eprintln!("{}: {groups} groups of word systems", case.name());
    assert!(!large_l2 || groups > 2, "{groups} groups, one a stream");
    compare(&case, Cuda);
}

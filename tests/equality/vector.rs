//! The GPU vector-spin engines produce the CPU engine's lattices, accepted moves,
//! observations and spin-glass overlaps bit for bit: XY and Heisenberg, 2D and 3D, the
//! ferromagnet in a field, the +-J glass and the Gaussian glass (its fixed-point couplings and
//! coarser local field), uniform and cone proposals, multi-hit, over-relaxation mixed in, the
//! double checkerboard's tiles (2D and 3D, one and three hits, any block size), clock models (their
//! states' angles from 32-bit turns), after a hot start
//! and after spins set from the host, a sample slice of a glass (whose CPU engine ends with its
//! samples' bits of the whole run: `engine::cpu::vector`'s tests), plans measuring at their end
//! and between their sweeps, sweeps done in pieces (`Step::Part`); wgpu on both WGSL Philox
//! paths. Tiny lattices and few sweeps: the
//! fixed-point arithmetic has no size-dependent path, and every operation is met within a sweep.

use crate::common::backend::Gpu;
use spinflip::config::{
    Boundaries, Boundary, ClusterOptions, ClusterUpdate, Disorder, ReplicaMoves,
};
use spinflip::engine::cpu::CpuVectorEngine;
use spinflip::engine::vector::{
    HEAT_BATH, METROPOLIS_WORKGROUP_SIZE, StateSums, UNIFORM, VectorOverlap, VectorSweeps,
    pair_state_words, sweeps_plan,
};
use spinflip::engine::{Engine, Lattices, Measurements, Plan, exchanges_of, proposals_of};
use spinflip::model::vacancies::Vacancies;
use spinflip::model::vector::VectorSystems;
use spinflip::model::vector::fixed::ONE;
use spinflip::model::vector::states::States;
use spinflip::model::{Lattice, Shape};

backends! {
    both: [
        ferromagnets_in_a_field_match_cpu_bit_for_bit,
        spin_glasses_with_cones_match_cpu_bit_for_bit,
        set_spins_and_block_sizes_match_cpu_bit_for_bit,
        tiled_ferromagnets_in_a_field_match_cpu_bit_for_bit,
        tiled_spin_glasses_with_cones_match_cpu_bit_for_bit,
        tiles_on_any_block_size_match_cpu_bit_for_bit,
        gaussian_glasses_match_cpu_bit_for_bit,
        sample_slices_match_cpu_bit_for_bit,
        sweeps_in_pieces_match_cpu_whole_sweeps_bit_for_bit,
        clock_models_match_cpu_bit_for_bit,
        discrete_states_match_cpu_bit_for_bit,
        bit_planes_match_cpu_bit_for_bit,
        cluster_updates_of_discrete_states_match_cpu_bit_for_bit,
        clock_cluster_updates_match_cpu_bit_for_bit,
        replica_moves_of_glasses_match_cpu_bit_for_bit,
        open_and_antiperiodic_edges_match_cpu_bit_for_bit,
        triangular_honeycomb_and_kagome_lattices_match_cpu_bit_for_bit,
        more_systems_than_a_grid_holds_match_cpu_bit_for_bit,
    ],
    wgpu: [u32_philox_path_matches_cpu_bit_for_bit],
    cuda: [layered_systems_past_a_grid_match_cpu_bit_for_bit],
}

/// One equality case: `components`-vectors on an `L^dims` lattice.
#[derive(Debug, Clone, Copy)]
struct Case {
    components: u32,
    dims: u32,
    size: u32,
    field: f64,
    disorder: Disorder,
    /// Cone width in units of 1; `None` for uniform proposals.
    cone: Option<f64>,
    /// Metropolis proposals per site (multi-hit).
    hits: u32,
    /// The double checkerboard's tile side; `None`: the plain checkerboard.
    tile: Option<u32>,
    overrelaxation: u32,
    /// Replicas per temperature and sample (a glass's overlap pairs `p`, `p + R/2`).
    replicas: u32,
    /// `(first, count)`: the engines hold these samples of a glass's two; `None`: both.
    slice: Option<(u32, u32)>,
    /// A clock model's states; 0 for spins of every direction.
    clock: u32,
    /// A clock's or discrete states' heat bath in place of their proposals (at every
    /// temperature).
    heat_bath: bool,
    /// Discrete states in place of vector spins (`components` then 1).
    states: Option<DiscreteCase>,
    /// The probability that a site is empty, drawn per sample (discrete states); 0: none.
    dilution: f64,
    /// Cluster updates of discrete states in every sweep: a step of them and Metropolis sweeps.
    clusters: Option<ClusterOptions>,
    /// Replica moves of a glass of discrete states after every sweep.
    moves: ReplicaMoves,
    /// How the lattice closes along each axis (its couplings across the edges).
    boundaries: Boundaries,
    /// The lattice's shape (the honeycomb's missing bonds and the kagome lattice's missing
    /// sites drawn as the runs draw them).
    shape: Shape,
    /// The ferromagnet's `J`: 1, or -1 for the antiferromagnet.
    coupling: i32,
    /// Discrete states swept in bit planes (`storage: BitPlanes`).
    planes: bool,
}

/// A discrete model of an equality case, in its field.
#[derive(Debug, Clone, Copy)]
enum DiscreteCase {
    Potts(u32),
    /// Blume-Capel at this crystal field.
    BlumeCapel(f64),
    /// The Ising model's two states (a diluted Ising or Edwards-Anderson model's).
    Ising,
}

impl Case {
    fn systems(self) -> VectorSystems {
        let lattice = Lattice::shaped(self.shape, self.dims, self.size);
        let betas = vec![0.3, 1.4];
        let seed = 0x5eed_0000_0040_u64 + u64::from(self.components);
        let run = VectorSystems::uniform(
            lattice,
            self.components,
            (self.coupling, self.field),
            betas,
            self.replicas,
            seed,
        )
        .with_clock(self.clock);
        let run = match self.states {
            Some(DiscreteCase::Potts(q)) => run.with_states(States::potts(q, self.field)),
            Some(DiscreteCase::BlumeCapel(d)) => {
                run.with_states(States::blume_capel(d, self.field))
            }
            Some(DiscreteCase::Ising) => run.with_states(States::ising(self.field)),
            None => run,
        }
        .with_disorder(self.disorder, 2)
        .with_boundaries(self.boundaries);
        let vacancies =
            (self.dilution > 0.0).then(|| Vacancies::draw(&lattice, seed, 2, self.dilution));
        let run = run.with_missing(vacancies);
        match self.slice {
            Some((first, count)) => run.sample_slice(first, count),
            None => run,
        }
    }

    /// Passes of one sweep on the case's lattice.
    fn passes(self) -> usize {
        let colours = Lattice::shaped(self.shape, self.dims, self.size).colours();
        self.updates().passes(colours).len()
    }

    fn updates(self) -> VectorSweeps {
        VectorSweeps {
            hits: self.hits,
            tile: self.tile,
            overrelaxation: self.overrelaxation,
            clusters: self.clusters,
            moves: self.moves,
            heat_bath: self.heat_bath,
            planes: self.planes,
        }
    }

    /// Each temperature's width: the cone, narrower at the colder temperature.
    fn widths(self) -> Vec<i32> {
        if self.heat_bath {
            return vec![HEAT_BATH; 2];
        }
        match self.cone {
            None => vec![UNIFORM; 2],
            Some(w) => vec![
                (w * f64::from(ONE)) as i32,
                (w * f64::from(ONE) / 3.0) as i32,
            ],
        }
    }
}

/// What an engine gives after each round of sweeps: its measurements (accepted moves,
/// observations and, for a glass, the replica pairs' overlaps) and the lattices.
type Round = (Measurements, Lattices);

/// Three rounds: two plans of sweeps measured at their end, the second after a tempering
/// exchange of the first and last systems, then a plan observing the systems alone after its
/// first sweep (a tempering round's energies) and measuring after its last.
fn rounds(engine: &mut dyn Engine, case: Case) -> Vec<Round> {
    let systems = case.systems().systems();
    let mut partners: Vec<u32> = (0..systems).collect();
    partners.swap(0, systems as usize - 1);
    proposals_of(engine)
        .unwrap()
        .set_widths(&case.widths())
        .unwrap();
    let mut between = Plan::default();
    between.sweep(5);
    between.observe();
    (6..8).for_each(|sweep| between.sweep(sweep));
    between.measure();
    [sweeps_plan(0..2, true), sweeps_plan(2..5, true), between]
        .into_iter()
        .enumerate()
        .map(|(round, plan)| {
            if round == 1 {
                exchanges_of(engine).unwrap().exchange(&partners).unwrap();
            }
            let measured = engine.execute(&plan).unwrap();
            (measured, engine.spins().unwrap())
        })
        .collect()
}

/// The GPU engine `gpu` gives the CPU's hot start and rounds for `case`, with `block_size`.
fn assert_matches<G: Gpu>(gpu: G, case: Case, block_size: u32) {
    let systems = case.systems();
    let mut cpu = CpuVectorEngine::new(systems.clone(), case.updates()).unwrap();
    let mut device = gpu.vector(&systems, case.updates(), block_size);
    cpu.hot_start().unwrap();
    device.hot_start().unwrap();
    assert!(
        cpu.spins().unwrap() == device.spins().unwrap(),
        "{gpu} {case:?}: hot start"
    );
    let (expected, got) = (rounds(&mut cpu, case), rounds(device.as_mut(), case));
    for (round, ((e, e_spins), (g, g_spins))) in expected.iter().zip(&got).enumerate() {
        let what = format!("{gpu} {case:?} round {round}");
        assert_eq!(e.accepted, g.accepted, "{what}: accepted moves");
        assert!(e_spins == g_spins, "{what}: lattices differ");
        assert_eq!(
            e.vector_observations, g.vector_observations,
            "{what}: observations"
        );
        assert_eq!(e.vector_overlaps, g.vector_overlaps, "{what}: overlaps");
        assert_eq!(e.vector_states, g.vector_states, "{what}: state sums");
        let pair_states = (&e.vector_pair_states, &g.vector_pair_states);
        assert_eq!(pair_states.0, pair_states.1, "{what}: pairs' state sums");
        assert_eq!(e.cluster_sizes, g.cluster_sizes, "{what}: cluster sizes");
    }
    let (systems, pairs) = (case.systems().systems(), case.systems().overlaps());
    let last = &expected[2].0;
    assert_eq!(last.vector_observations.len(), 2 * systems as usize);
    assert_eq!(
        last.vector_overlaps.len(),
        2 * pairs as usize,
        "{case:?}: overlaps"
    );
    // The observation's slot holds no overlaps; the measurement's holds every pair's.
    let (observed, measured) = last.vector_overlaps.split_at(pairs as usize);
    assert!(
        observed.iter().all(|o| *o == VectorOverlap::default()),
        "{case:?}: overlaps observed"
    );
    let summed = match case.states {
        // Every measured pair's state sums: the counts and the Fourier components.
        Some(_) => {
            let words = pair_state_words(&case.systems());
            let (_, measured) = last.vector_pair_states.split_at(pairs as usize * words);
            let states = words / StateSums::words(1);
            measured.chunks_exact(words).all(|sums| {
                let (counts, fourier) = sums.split_at(states);
                counts.iter().any(|&c| c != 0) && fourier.iter().any(|&f| f != 0)
            })
        }
        None => (measured.iter()).all(|o| o.q[0][0] != 0 && o.fourier[0][0][0][1] != 0),
    };
    assert!(summed, "{case:?}: overlaps all zero");
    // A cluster step's sizes are those of the sweep before the measurement, not the
    // observation's: every system's clusters hold sites. Across an antiperiodic edge Wolff's
    // statistic is s_seed M_C, which may be negative (a wrapping word) or zero.
    let sizes = &last.cluster_sizes;
    let twisted = case.boundaries.any_antiperiodic();
    let recorded = match case
        .clusters
        .filter(|_| case.systems().clusters_record_sizes())
    {
        Some(options) => {
            let (observed, measured) = sizes.split_at(sizes.len() / 2);
            let held = measured.iter().filter(|&&s| s != 0).count();
            let every = match twisted && options.update == ClusterUpdate::Wolff {
                true => 2 * held > measured.len(),
                false => held == measured.len(),
            };
            sizes.len() == 2 * systems as usize && observed.iter().all(|&s| s == 0) && every
        }
        None => sizes.is_empty(),
    };
    assert!(recorded, "{case:?}: cluster sizes {sizes:?}");
    // Cluster updates alone accept no Metropolis move: their lattices move instead.
    let moved = match case.updates().proposals() {
        0 => expected[0].1 != expected[1].1,
        _ => expected[1].0.accepted.iter().all(|&a| a > 0),
    };
    assert!(moved, "{case:?}: nothing accepted");
    if let Some(vacancies) = &case.systems().vacancies {
        // The first round's: the exchange after it swaps lattices of two samples. Every empty
        // site still holds what place_vacancies puts there: the vacancy of discrete states, the
        // zero vector of unit vectors.
        let spins = expected[0].1.vector().unwrap();
        let mut placed = spins.to_vec();
        case.systems().place_vacancies(&mut placed);
        let kept = placed == spins
            && (0..systems).all(|b| !vacancies.sample(case.systems().sample_of(b)).is_empty());
        assert!(
            kept,
            "{case:?}: an empty site lost its vacancy (or none is empty)"
        );
    }
}

const XY_2D_FIELD: Case = Case {
    components: 2,
    dims: 2,
    size: 6,
    field: 0.3,
    disorder: Disorder::Ferromagnet,
    cone: None,
    hits: 1,
    tile: None,
    overrelaxation: 1,
    replicas: 2,
    slice: None,
    clock: 0,
    heat_bath: false,
    states: None,
    dilution: 0.0,
    clusters: None,
    moves: ReplicaMoves::None,
    boundaries: Boundaries::PERIODIC,
    shape: Shape::Hypercubic,
    coupling: 1,
    planes: false,
};

fn ferromagnets_in_a_field_match_cpu_bit_for_bit<G: Gpu>() {
    let heisenberg_3d = Case {
        components: 3,
        dims: 3,
        size: 4,
        field: -0.7,
        cone: Some(0.5),
        overrelaxation: 0,
        ..XY_2D_FIELD
    };
    for case in [XY_2D_FIELD, heisenberg_3d] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// The +-J glass with its overlaps: XY in 3D, Heisenberg in 2D and in 3D (four replicas).
fn spin_glasses_with_cones_match_cpu_bit_for_bit<G: Gpu>() {
    let xy_3d = Case {
        dims: 3,
        size: 4,
        field: 0.0,
        disorder: Disorder::Bimodal,
        cone: Some(1.5),
        overrelaxation: 2,
        ..XY_2D_FIELD
    };
    let heisenberg_2d = Case {
        components: 3,
        dims: 2,
        size: 4,
        field: 0.2,
        cone: None,
        hits: 3,
        ..xy_3d
    };
    // Two overlap pairs per sample: replicas (0, 2) and (1, 3).
    let heisenberg_3d = Case {
        components: 3,
        cone: Some(0.5),
        overrelaxation: 1,
        replicas: 4,
        ..xy_3d
    };
    for case in [xy_3d, heisenberg_2d, heisenberg_3d] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// Spins set from the host (a CPU lattice after sweeps) continue alike, on the smallest and the
/// largest block size.
fn set_spins_and_block_sizes_match_cpu_bit_for_bit<G: Gpu>() {
    let case = Case {
        components: 3,
        cone: Some(0.25),
        disorder: Disorder::Bimodal,
        ..XY_2D_FIELD
    };
    let systems = case.systems();
    let mut cpu = CpuVectorEngine::new(systems.clone(), case.updates()).unwrap();
    cpu.hot_start().unwrap();
    proposals_of(&mut cpu)
        .unwrap()
        .set_widths(&case.widths())
        .unwrap();
    cpu.execute(&sweeps_plan(0..3, false)).unwrap();
    let spins = cpu.spins().unwrap();
    let expected = rounds(&mut cpu, case);
    for &block_size in [G::BLOCK_SIZES[0], *G::BLOCK_SIZES.last().unwrap()].iter() {
        let mut device = G::default().vector(&systems, case.updates(), block_size);
        device.set_spins(&spins).unwrap();
        let got = rounds(device.as_mut(), case);
        assert!(expected == got, "block size {block_size}: rounds differ");
    }
}

/// The double checkerboard of a ferromagnet in a field: XY in 2D with one hit (two tiles of 4^2
/// per side), Heisenberg in 3D with three hits and a cone (two tiles of 2^3 per side).
fn tiled_ferromagnets_in_a_field_match_cpu_bit_for_bit<G: Gpu>() {
    let xy_2d = Case {
        size: 8,
        tile: Some(4),
        ..XY_2D_FIELD
    };
    let heisenberg_3d = Case {
        components: 3,
        dims: 3,
        size: 4,
        field: -0.7,
        cone: Some(0.5),
        hits: 3,
        tile: Some(2),
        overrelaxation: 0,
        ..XY_2D_FIELD
    };
    for case in [xy_2d, heisenberg_3d] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// The double checkerboard of the +-J glass: XY in 3D with cones, three hits and
/// over-relaxation (two tiles of 4^3 per side); Heisenberg in 2D, one hit, four tiles of 2^2
/// per side, in a field.
fn tiled_spin_glasses_with_cones_match_cpu_bit_for_bit<G: Gpu>() {
    let xy_3d = Case {
        dims: 3,
        size: 8,
        field: 0.0,
        disorder: Disorder::Bimodal,
        cone: Some(1.5),
        hits: 3,
        tile: Some(4),
        overrelaxation: 2,
        ..XY_2D_FIELD
    };
    let heisenberg_2d = Case {
        components: 3,
        dims: 2,
        field: 0.2,
        cone: Some(0.25),
        hits: 1,
        tile: Some(2),
        overrelaxation: 0,
        ..xy_3d
    };
    for case in [xy_3d, heisenberg_2d] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// Tiles of more sites than threads and of fewer: tiles of 6^2 (18 sites per colour; Heisenberg,
/// two hits) and of 24^2 (288, past the 256 threads of wgpu's tile workgroups, which take a
/// thread a site of a colour whatever the block size; XY, three hits: a pair sharing a Philox
/// block, the words the first leaves for the second kept for every site of a thread, and a
/// lone hit), each at the smallest and the largest block size.
fn tiles_on_any_block_size_match_cpu_bit_for_bit<G: Gpu>() {
    for (size, tile, components, hits) in [(12, 6, 3, 2), (48, 24, 2, 3)] {
        let case = Case {
            components,
            size,
            disorder: Disorder::Bimodal,
            cone: Some(0.5),
            hits,
            tile: Some(tile),
            ..XY_2D_FIELD
        };
        for &block_size in [G::BLOCK_SIZES[0], *G::BLOCK_SIZES.last().unwrap()].iter() {
            assert_matches(G::default(), case, block_size);
        }
    }
}

/// The Gaussian glass: XY in 2D in a field beyond the integer couplings' range (|h| < 4 there)
/// with over-relaxation, Heisenberg in 3D with cones and two overlap pairs, and the double
/// checkerboard of XY in 3D (three hits, over-relaxation) and of Heisenberg in 2D.
fn gaussian_glasses_match_cpu_bit_for_bit<G: Gpu>() {
    let xy_2d = Case {
        field: 5.5,
        disorder: Disorder::Gaussian,
        overrelaxation: 2,
        ..XY_2D_FIELD
    };
    let heisenberg_3d = Case {
        components: 3,
        dims: 3,
        size: 4,
        field: 0.0,
        cone: Some(0.5),
        replicas: 4,
        ..xy_2d
    };
    let tiled_xy_3d = Case {
        components: 2,
        size: 8,
        hits: 3,
        tile: Some(4),
        replicas: 2,
        ..heisenberg_3d
    };
    let tiled_heisenberg_2d = Case {
        dims: 2,
        field: -0.4,
        cone: None,
        tile: Some(2),
        overrelaxation: 0,
        ..heisenberg_3d
    };
    for case in [xy_2d, heisenberg_3d, tiled_xy_3d, tiled_heisenberg_2d] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

fn u32_philox_path_matches_cpu_bit_for_bit() {
    use crate::common::backend::Wgpu;
    use spinflip::config::PhiloxPath;
    assert_matches(Wgpu::with(PhiloxPath::U32), XY_2D_FIELD, 64);
}

/// A slice of a glass's samples (the second of two, keyed as the run's): XY with the +-J
/// couplings in 2D, Heisenberg with Gaussian ones on the double checkerboard in 3D, two overlap
/// pairs.
fn sample_slices_match_cpu_bit_for_bit<G: Gpu>() {
    let xy_2d = Case {
        disorder: Disorder::Bimodal,
        cone: Some(0.5),
        slice: Some((1, 1)),
        ..XY_2D_FIELD
    };
    let tiled_heisenberg_3d = Case {
        components: 3,
        dims: 3,
        size: 4,
        disorder: Disorder::Gaussian,
        hits: 2,
        tile: Some(2),
        replicas: 4,
        ..xy_2d
    };
    for case in [xy_2d, tiled_heisenberg_3d] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// The plans of sweeps `0 .. 4` that end at units `ends` of the run (`Plan::sweep_units`:
/// `passes` passes over `planes` planes a sweep; the last end the run's), sweeps 2 and 4
/// measured at their end, wherever that falls.
fn plans_ending_at(ends: &[u64], (passes, planes): (u32, u32)) -> Vec<Plan> {
    let per_sweep = u64::from(passes * planes);
    assert_eq!(ends.last(), Some(&(4 * per_sweep)));
    let mut start = 0;
    ends.iter()
        .map(|&end| {
            let mut plan = Plan::default();
            for sweep in start / per_sweep..end.div_ceil(per_sweep) {
                let first = sweep * per_sweep;
                let units = start.max(first) - first..end.min(first + per_sweep) - first;
                plan.sweep_units(sweep as u32, (passes, planes), units);
                if end >= first + per_sweep && sweep % 2 == 1 {
                    plan.measure();
                }
            }
            start = end;
            plan
        })
        .collect()
}

/// `engine` from the hot start through the plans of [`plans_ending_at`] `ends`: the accepted
/// moves, the measurements' observations and overlaps, and the lattices.
fn run_in_plans(engine: &mut dyn Engine, case: Case, ends: &[u64]) -> (Measurements, Lattices) {
    assert!(engine.sweep_parts());
    engine.hot_start().unwrap();
    proposals_of(engine)
        .unwrap()
        .set_widths(&case.widths())
        .unwrap();
    let passes = case.passes() as u32;
    let systems = case.systems().systems() as usize;
    let mut run = Measurements {
        accepted: vec![0; systems],
        ..Measurements::default()
    };
    for plan in plans_ending_at(ends, (passes, case.size)) {
        let measured = engine.execute(&plan).unwrap();
        (run.accepted.iter_mut())
            .zip(measured.accepted)
            .for_each(|(a, m)| *a += m);
        run.vector_observations.extend(measured.vector_observations);
        run.vector_overlaps.extend(measured.vector_overlaps);
        run.vector_states.extend(measured.vector_states);
        run.vector_pair_states.extend(measured.vector_pair_states);
    }
    (run, engine.spins().unwrap())
}

/// Sweeps done as pieces on the CPU and on the GPU give the CPU's whole sweeps bit for bit: lattices, accepted
/// moves, observations and overlaps; XY and Heisenberg, the plain and the double checkerboard,
/// with and without over-relaxation, a ferromagnet in a field and glasses with replicas; cut at
/// every plane of every pass (a tile's planes past its first hold none of it: empty pieces)
/// and at irregular units (an empty plan, sweeps begun in one plan and finished and measured in
/// the next), on the smallest block size, so that pieces span several workgroups of 3D planes.
fn sweeps_in_pieces_match_cpu_whole_sweeps_bit_for_bit<G: Gpu>() {
    let xy_3d = Case {
        dims: 3,
        size: 8,
        field: 0.0,
        disorder: Disorder::Bimodal,
        cone: Some(1.5),
        ..XY_2D_FIELD
    };
    let tiled_heisenberg_3d = Case {
        components: 3,
        dims: 3,
        size: 4,
        field: -0.7,
        cone: Some(0.5),
        hits: 2,
        tile: Some(2),
        overrelaxation: 1,
        replicas: 1,
        ..XY_2D_FIELD
    };
    let tiled_gaussian_xy_2d = Case {
        size: 8,
        disorder: Disorder::Gaussian,
        tile: Some(4),
        overrelaxation: 0,
        ..XY_2D_FIELD
    };
    for case in [
        XY_2D_FIELD,
        xy_3d,
        tiled_heisenberg_3d,
        tiled_gaussian_xy_2d,
    ] {
        let per_sweep = case.passes() as u64 * u64::from(case.size);
        let run = 4 * per_sweep;
        let systems = case.systems();
        let mut cpu = CpuVectorEngine::new(systems.clone(), case.updates()).unwrap();
        let whole = run_in_plans(&mut cpu, case, &[run]);
        assert!(
            whole.0.accepted.iter().all(|&a| a > 0),
            "{case:?}: nothing accepted"
        );
        let every_unit: Vec<u64> = (1..=run).collect();
        let irregular = [
            3,
            3,
            per_sweep + 1,
            2 * per_sweep - 1,
            2 * per_sweep + 5,
            3 * per_sweep + 2,
            run,
        ];
        for ends in [&every_unit[..], &irregular] {
            let mut cpu = CpuVectorEngine::new(systems.clone(), case.updates()).unwrap();
            let cpu_pieces = run_in_plans(&mut cpu, case, ends);
            assert!(
                cpu_pieces == whole,
                "cpu {case:?} ends {ends:?}: pieces differ"
            );
            let mut device = G::default().vector(&systems, case.updates(), G::BLOCK_SIZES[0]);
            let (pieces, spins) = run_in_plans(device.as_mut(), case, ends);
            let what = format!("{} {case:?} ends {ends:?}", G::default());
            assert_eq!(pieces.accepted, whole.0.accepted, "{what}: accepted moves");
            assert!(spins == whole.1, "{what}: lattices differ");
            let observations = &whole.0.vector_observations;
            assert_eq!(
                &pieces.vector_observations, observations,
                "{what}: observations"
            );
            let overlaps = &whole.0.vector_overlaps;
            assert_eq!(&pieces.vector_overlaps, overlaps, "{what}: overlaps");
            assert_eq!(
                pieces.vector_states, whole.0.vector_states,
                "{what}: state sums"
            );
            let pair_states = &whole.0.vector_pair_states;
            assert_eq!(
                &pieces.vector_pair_states, pair_states,
                "{what}: pairs' sums"
            );
        }
    }
}

/// Clock models: 6 states in a field on the plain checkerboard, 5 states of the +-J glass in
/// 3D on tiles with three hits, and the 4-state clock (its angles on the axes) on the largest
/// block size; the heat bath of 7 states in a field, and of the 12-state Gaussian glass on
/// tiles with two hits.
fn clock_models_match_cpu_bit_for_bit<G: Gpu>() {
    let six = Case {
        overrelaxation: 0,
        clock: 6,
        ..XY_2D_FIELD
    };
    let five_glass = Case {
        dims: 3,
        size: 4,
        field: 0.0,
        disorder: Disorder::Bimodal,
        hits: 3,
        tile: Some(2),
        clock: 5,
        ..six
    };
    for case in [six, five_glass] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
    let four = Case { clock: 4, ..six };
    assert_matches(G::default(), four, *G::BLOCK_SIZES.last().unwrap());
    let heat_bath = Case {
        clock: 7,
        heat_bath: true,
        ..six
    };
    let gaussian_heat_bath = Case {
        size: 8,
        disorder: Disorder::Gaussian,
        hits: 2,
        tile: Some(4),
        clock: 12,
        ..heat_bath
    };
    for case in [heat_bath, gaussian_heat_bath] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// Discrete states: the 3-state Potts model in a field by Metropolis, the 5-state Potts glass in
/// 3D with three hits by the heat bath (its replica pairs' overlaps), Blume-Capel by both (every state's value and the
/// crystal field in the sums), each also diluted (a slice of the samples of the diluted Potts
/// model), the diluted Edwards-Anderson glass in a field (two states, replica pairs), a diluted
/// Gaussian 4-state Potts glass and the 10-state Potts glass (100 pairs of states in its
/// overlaps), on two block sizes; and the Potts model swept in pieces.
fn discrete_states_match_cpu_bit_for_bit<G: Gpu>() {
    let potts = Case {
        components: 1,
        overrelaxation: 0,
        states: Some(DiscreteCase::Potts(3)),
        ..XY_2D_FIELD
    };
    let potts_glass = Case {
        dims: 3,
        size: 4,
        field: 0.0,
        disorder: Disorder::Bimodal,
        hits: 3,
        replicas: 2,
        heat_bath: true,
        states: Some(DiscreteCase::Potts(5)),
        ..potts
    };
    let blume_capel = Case {
        field: -0.4,
        states: Some(DiscreteCase::BlumeCapel(0.7)),
        ..potts
    };
    let blume_capel_heat_bath = Case {
        heat_bath: true,
        ..blume_capel
    };
    let diluted_potts = Case {
        dilution: 0.3,
        slice: Some((1, 1)),
        ..potts
    };
    let diluted_glass = Case {
        dilution: 0.2,
        ..potts_glass
    };
    let diluted_blume_capel = Case {
        dilution: 0.25,
        ..blume_capel_heat_bath
    };
    let diluted_edwards_anderson = Case {
        field: 0.3,
        heat_bath: false,
        states: Some(DiscreteCase::Ising),
        ..diluted_glass
    };
    let gaussian_potts_glass = Case {
        disorder: Disorder::Gaussian,
        states: Some(DiscreteCase::Potts(4)),
        ..diluted_edwards_anderson
    };
    // 100 pairs of states: the overlap kernel's two passes of 64.
    let ten_state_glass = Case {
        states: Some(DiscreteCase::Potts(10)),
        ..potts_glass
    };
    let cases = [
        potts,
        potts_glass,
        blume_capel,
        blume_capel_heat_bath,
        diluted_potts,
        diluted_glass,
        diluted_blume_capel,
        diluted_edwards_anderson,
        gaussian_potts_glass,
        ten_state_glass,
    ];
    for case in cases {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
    assert_matches(G::default(), blume_capel, *G::BLOCK_SIZES.last().unwrap());
    let systems = potts.systems();
    let per_sweep = potts.passes() as u64 * u64::from(potts.size);
    let ends = [3, per_sweep + 1, 3 * per_sweep - 2, 4 * per_sweep];
    let mut cpu = CpuVectorEngine::new(systems.clone(), potts.updates()).unwrap();
    let whole = run_in_plans(&mut cpu, potts, &[4 * per_sweep]);
    let mut device = G::default().vector(&systems, potts.updates(), G::BLOCK_SIZES[0]);
    let pieces = run_in_plans(device.as_mut(), potts, &ends);
    assert!(pieces == whole, "{} {potts:?}: pieces differ", G::default());
}

/// Discrete states in bit planes: 3 Potts states (the two others proposed), 2 states in 3D
/// (the other), 8 states with two hits (XOR proposals of 3 bits), 5 states (proposals past the
/// states refused) on rows of two words, and 32 states (two proposal blocks); the Blume-Capel
/// model at D = 1.3 and, with two hits in 3D, at D = -0.4; each after the
/// tempering exchange of `rounds` and with measurements between sweeps (the planes unpacked
/// and packed again); the 3-state model in pieces of sweeps too.
fn bit_planes_match_cpu_bit_for_bit<G: Gpu>() {
    let potts = Case {
        components: 1,
        size: 64,
        field: 0.0,
        overrelaxation: 0,
        states: Some(DiscreteCase::Potts(3)),
        planes: true,
        ..XY_2D_FIELD
    };
    let cases = [
        potts,
        Case {
            dims: 3,
            states: Some(DiscreteCase::Potts(2)),
            replicas: 1,
            ..potts
        },
        Case {
            hits: 2,
            states: Some(DiscreteCase::Potts(8)),
            ..potts
        },
        Case {
            size: 128,
            states: Some(DiscreteCase::Potts(5)),
            ..potts
        },
        Case {
            states: Some(DiscreteCase::Potts(32)),
            ..potts
        },
        Case {
            states: Some(DiscreteCase::BlumeCapel(1.3)),
            ..potts
        },
        Case {
            dims: 3,
            hits: 2,
            states: Some(DiscreteCase::BlumeCapel(-0.4)),
            replicas: 1,
            ..potts
        },
    ];
    for case in cases {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
    let systems = potts.systems();
    let per_sweep = potts.passes() as u64 * u64::from(potts.size);
    let ends = [3, per_sweep + 1, 3 * per_sweep - 2, 4 * per_sweep];
    let mut cpu = CpuVectorEngine::new(systems.clone(), potts.updates()).unwrap();
    let whole = run_in_plans(&mut cpu, potts, &ends[3..]);
    let mut device = G::default().vector(&systems, potts.updates(), G::BLOCK_SIZES[0]);
    let pieces = run_in_plans(device.as_mut(), potts, &ends);
    assert!(pieces == whole, "{} {potts:?}: pieces differ", G::default());
}

/// Open and antiperiodic edges (couplings per bond across them, a ferromagnet's too): the XY
/// ferromagnet in a field with cones, the Heisenberg +-J glass in 3D on tiles with three hits,
/// the 6-state clock twisted along both axes by the heat bath, the 3-state Potts model with an
/// open axis, and the diluted Gaussian Edwards-Anderson glass (two states).
fn open_and_antiperiodic_edges_match_cpu_bit_for_bit<G: Gpu>() {
    use Boundary::{Antiperiodic, Open, Periodic};
    let xy = Case {
        cone: Some(0.8),
        boundaries: Boundaries::new(&[Open, Antiperiodic]),
        ..XY_2D_FIELD
    };
    let heisenberg_glass = Case {
        components: 3,
        dims: 3,
        size: 4,
        field: 0.0,
        disorder: Disorder::Bimodal,
        hits: 3,
        tile: Some(2),
        boundaries: Boundaries::new(&[Antiperiodic, Open, Periodic]),
        ..xy
    };
    let clock = Case {
        overrelaxation: 0,
        clock: 6,
        heat_bath: true,
        boundaries: Boundaries::new(&[Antiperiodic, Antiperiodic]),
        ..XY_2D_FIELD
    };
    let potts = Case {
        components: 1,
        overrelaxation: 0,
        states: Some(DiscreteCase::Potts(3)),
        boundaries: Boundaries::new(&[Periodic, Open]),
        ..XY_2D_FIELD
    };
    let gaussian_ising = Case {
        dims: 3,
        size: 4,
        disorder: Disorder::Gaussian,
        dilution: 0.2,
        states: Some(DiscreteCase::Ising),
        boundaries: Boundaries::new(&[Open, Open, Antiperiodic]),
        ..potts
    };
    for case in [xy, heisenberg_glass, clock, potts, gaussian_ising] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// The triangular, honeycomb and kagome lattices match the CPU's bit for bit: the XY
/// antiferromagnet in a field on the triangular lattice (three colours, over-relaxation and
/// cones), a Heisenberg +-J glass on it (three bond directions drawn) with open and
/// antiperiodic edges (the diagonal crossing both seams), the 3-state Potts antiferromagnet on
/// the honeycomb brick wall by the heat bath, the XY antiferromagnet there (its x bonds'
/// sines summed apart by the parity of their site), a diluted Gaussian Edwards-Anderson glass
/// on the kagome lattice (its missing sites and the drawn ones), one sample of two, and unit
/// vectors on the kagome lattice (below).
fn triangular_honeycomb_and_kagome_lattices_match_cpu_bit_for_bit<G: Gpu>() {
    use Boundary::{Antiperiodic, Open};
    let xy = Case {
        size: 6,
        cone: Some(0.8),
        shape: Shape::Triangular,
        coupling: -1,
        ..XY_2D_FIELD
    };
    let heisenberg_glass = Case {
        components: 3,
        field: 0.0,
        disorder: Disorder::Bimodal,
        hits: 3,
        boundaries: Boundaries::new(&[Open, Antiperiodic]),
        ..xy
    };
    let potts = Case {
        components: 1,
        overrelaxation: 0,
        cone: None,
        heat_bath: true,
        states: Some(DiscreteCase::Potts(3)),
        shape: Shape::Honeycomb,
        ..xy
    };
    let honeycomb_xy = Case {
        shape: Shape::Honeycomb,
        ..xy
    };
    let kagome_glass = Case {
        heat_bath: false,
        coupling: 1,
        disorder: Disorder::Gaussian,
        dilution: 0.2,
        states: Some(DiscreteCase::Ising),
        shape: Shape::Kagome,
        slice: Some((1, 1)),
        ..potts
    };
    // Unit vectors on the kagome lattice, its missing quarter zero vectors: the Heisenberg
    // antiferromagnet in a field with cones and over-relaxation, the 6-state clock by the heat
    // bath.
    let kagome_heisenberg = Case {
        components: 3,
        size: 6,
        field: 0.4,
        cone: Some(0.8),
        shape: Shape::Kagome,
        coupling: -1,
        ..XY_2D_FIELD
    };
    let kagome_clock = Case {
        components: 2,
        clock: 6,
        heat_bath: true,
        cone: None,
        overrelaxation: 0,
        ..kagome_heisenberg
    };
    for case in [
        xy,
        heisenberg_glass,
        potts,
        honeycomb_xy,
        kagome_glass,
        kagome_heisenberg,
        kagome_clock,
    ] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// A cluster step of `clusters` updates of kind `update` and `metropolis` Metropolis sweeps.
fn step(update: ClusterUpdate, clusters: u32, metropolis: u32) -> Option<ClusterOptions> {
    Some(ClusterOptions {
        update,
        clusters,
        metropolis,
    })
}

/// Swendsen-Wang and Wolff updates of discrete states, alone or with Metropolis sweeps, match
/// the CPU's bit for bit: the Potts ferromagnet in 2D on a lattice of clipped labelling tiles
/// (48 = 32 + 16, so that clusters cross tiles and wrap), a diluted 4-state Potts model in 3D
/// (tiles 16 x 8 x 8 clipped at 18) open along z, a diluted Ising model of a sample slice
/// open along x; the Potts ferromagnet on the triangular lattice of 48^2 open along y, the Ising
/// model on the honeycomb and on the diluted kagome lattices of 36^2, and (cluster updates
/// alone) on the triangular lattice of 50^2 and the kagome lattice of 40^2, sizes that no
/// Metropolis colouring tiles; the Ising model across antiperiodic edges; at a temperature of
/// small clusters and one of a percolating cluster.
fn cluster_updates_of_discrete_states_match_cpu_bit_for_bit<G: Gpu>() {
    let potts_sw = Case {
        components: 1,
        size: 48,
        field: 0.0,
        overrelaxation: 0,
        states: Some(DiscreteCase::Potts(3)),
        clusters: step(ClusterUpdate::SwendsenWang, 2, 1),
        ..XY_2D_FIELD
    };
    // The diluted lattices with an open axis: no bond crosses its edge.
    let diluted_wolff = Case {
        dims: 3,
        size: 18,
        dilution: 0.2,
        states: Some(DiscreteCase::Potts(4)),
        clusters: step(ClusterUpdate::Wolff, 3, 0),
        boundaries: Boundaries::new(&[Boundary::Periodic, Boundary::Periodic, Boundary::Open]),
        ..potts_sw
    };
    let diluted_ising = Case {
        size: 36,
        dilution: 0.1,
        slice: Some((1, 1)),
        states: Some(DiscreteCase::Ising),
        clusters: step(ClusterUpdate::SwendsenWang, 1, 2),
        boundaries: Boundaries::new(&[Boundary::Open, Boundary::Periodic]),
        ..potts_sw
    };
    // The other lattices: the triangular lattice's diagonal bonds within and between tiles,
    // across the edges that wrap and not across the open one; the honeycomb's gaps; the kagome
    // lattice's holes (and Wolff seeds on them).
    let triangular_sw = Case {
        shape: Shape::Triangular,
        boundaries: Boundaries::new(&[Boundary::Periodic, Boundary::Open]),
        ..potts_sw
    };
    let honeycomb_wolff = Case {
        size: 36,
        states: Some(DiscreteCase::Ising),
        clusters: step(ClusterUpdate::Wolff, 2, 1),
        shape: Shape::Honeycomb,
        ..potts_sw
    };
    let kagome_sw = Case {
        dilution: 0.1,
        clusters: step(ClusterUpdate::SwendsenWang, 1, 0),
        shape: Shape::Kagome,
        ..honeycomb_wolff
    };
    let kagome_wolff = Case {
        clusters: step(ClusterUpdate::Wolff, 3, 0),
        ..kagome_sw
    };
    // Sizes that cluster updates alone take and Metropolis colours do not tile: the triangular
    // lattice of 50^2, the kagome lattice of 40^2 cells.
    let triangular_alone = Case {
        size: 50,
        states: Some(DiscreteCase::Ising),
        clusters: step(ClusterUpdate::SwendsenWang, 2, 0),
        shape: Shape::Triangular,
        ..potts_sw
    };
    let kagome_alone = Case {
        size: 40,
        ..kagome_sw
    };
    // Antiperiodic edges, whose bonds join opposite states: the diluted Ising model on the
    // triangular lattice twisted along both axes (the corner's diagonal crosses both edges and
    // keeps its sign), each Swendsen-Wang cluster moved by its drawn state; Wolff in 3D twisted
    // along y and open along z.
    let twisted_sw = Case {
        dilution: 0.1,
        states: Some(DiscreteCase::Ising),
        shape: Shape::Triangular,
        boundaries: Boundaries::new(&[Boundary::Antiperiodic, Boundary::Antiperiodic]),
        ..potts_sw
    };
    let twisted_wolff = Case {
        states: Some(DiscreteCase::Ising),
        clusters: step(ClusterUpdate::Wolff, 3, 1),
        boundaries: Boundaries::new(&[Boundary::Periodic, Boundary::Antiperiodic, Boundary::Open]),
        ..diluted_wolff
    };
    let cases = [
        potts_sw,
        diluted_wolff,
        diluted_ising,
        triangular_sw,
        honeycomb_wolff,
        kagome_sw,
        kagome_wolff,
        triangular_alone,
        kagome_alone,
        twisted_sw,
        twisted_wolff,
    ];
    for case in cases {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
    assert_matches(G::default(), potts_sw, *G::BLOCK_SIZES.last().unwrap());
}

/// Wolff's embedding of clock spins (their reflections through a mirror of the update), alone or
/// with Metropolis sweeps, matches the CPU's bit for bit: 6 states by Swendsen-Wang in 2D on
/// clipped labelling tiles (48 = 32 + 16), 5 states by Wolff alone in 3D (tiles clipped at 18)
/// open along z, 4 states on the triangular lattice of 50^2 antiperiodic along both axes, 3
/// states by Wolff on the kagome lattice of 36^2 (its holes, and seeds on them), 8 states on
/// the honeycomb brick wall, 256 states (WGSL's largest table of states), 1000 states by Wolff
/// (past WGSL's table, within CUDA's) and 1500 by Swendsen-Wang (past both tables); at a
/// temperature of small clusters and one of a percolating cluster.
fn clock_cluster_updates_match_cpu_bit_for_bit<G: Gpu>() {
    let six_sw = Case {
        size: 48,
        field: 0.0,
        overrelaxation: 0,
        clock: 6,
        clusters: step(ClusterUpdate::SwendsenWang, 2, 1),
        ..XY_2D_FIELD
    };
    let five_wolff = Case {
        dims: 3,
        size: 18,
        clock: 5,
        clusters: step(ClusterUpdate::Wolff, 3, 0),
        boundaries: Boundaries::new(&[Boundary::Periodic, Boundary::Periodic, Boundary::Open]),
        ..six_sw
    };
    let triangular_twisted = Case {
        size: 50,
        clock: 4,
        clusters: step(ClusterUpdate::SwendsenWang, 2, 0),
        shape: Shape::Triangular,
        boundaries: Boundaries::new(&[Boundary::Antiperiodic, Boundary::Antiperiodic]),
        ..six_sw
    };
    let kagome_wolff = Case {
        size: 36,
        clock: 3,
        clusters: step(ClusterUpdate::Wolff, 2, 1),
        shape: Shape::Kagome,
        ..six_sw
    };
    let honeycomb_sw = Case {
        size: 36,
        clock: 8,
        clusters: step(ClusterUpdate::SwendsenWang, 1, 1),
        shape: Shape::Honeycomb,
        ..six_sw
    };
    let full_table = Case {
        clock: 256,
        ..six_sw
    };
    let many_states = Case {
        clock: 1000,
        clusters: step(ClusterUpdate::Wolff, 2, 1),
        ..six_sw
    };
    let past_tables = Case {
        clock: 1500,
        ..six_sw
    };
    let cases = [
        six_sw,
        five_wolff,
        triangular_twisted,
        kagome_wolff,
        honeycomb_sw,
        full_table,
        many_states,
        past_tables,
    ];
    for case in cases {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// Houdayer's moves of a glass's replica pairs match the CPU's bit for bit, and move the
/// lattices: the +-J Edwards-Anderson glass in 2D with two pairs per sample on clipped labelling
/// tiles (48 = 32 + 16), two moves a sweep; the diluted Gaussian glass in 3D as isoenergetic
/// moves at the colder temperature only, on a sample slice; the 3-state Potts glass in 2D, open
/// along y, and on the honeycomb brick wall; the +-J glass on the triangular lattice open along
/// x.
fn replica_moves_of_glasses_match_cpu_bit_for_bit<G: Gpu>() {
    let ising_2d = Case {
        components: 1,
        size: 48,
        field: 0.0,
        disorder: Disorder::Bimodal,
        overrelaxation: 0,
        replicas: 4,
        states: Some(DiscreteCase::Ising),
        moves: ReplicaMoves::Houdayer { per_sweep: 2 },
        ..XY_2D_FIELD
    };
    let gaussian_3d = Case {
        dims: 3,
        size: 18,
        field: 0.4,
        disorder: Disorder::Gaussian,
        replicas: 2,
        slice: Some((1, 1)),
        dilution: 0.1,
        moves: ReplicaMoves::Isoenergetic {
            per_sweep: 1,
            below: 1.0,
        },
        ..ising_2d
    };
    // With an open axis: no bond of the pairs' clusters crosses its edge.
    let potts_2d = Case {
        size: 36,
        replicas: 2,
        states: Some(DiscreteCase::Potts(3)),
        moves: ReplicaMoves::Houdayer { per_sweep: 1 },
        boundaries: Boundaries::new(&[Boundary::Periodic, Boundary::Open]),
        ..ising_2d
    };
    // On the triangular lattice, open along x (its diagonal crosses that seam too), and on the
    // honeycomb brick wall.
    let triangular = Case {
        size: 12,
        shape: Shape::Triangular,
        boundaries: Boundaries::new(&[Boundary::Open, Boundary::Periodic]),
        ..ising_2d
    };
    let honeycomb = Case {
        size: 12,
        shape: Shape::Honeycomb,
        ..potts_2d
    };
    for case in [ising_2d, gaussian_3d, potts_2d, triangular, honeycomb] {
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
        let lattices = |moves| {
            let case = Case { moves, ..case };
            let mut cpu = CpuVectorEngine::new(case.systems(), case.updates()).unwrap();
            cpu.hot_start().unwrap();
            rounds(&mut cpu, case).pop().unwrap().1
        };
        assert!(
            lattices(case.moves) != lattices(ReplicaMoves::None),
            "{case:?}: the moves moved nothing"
        );
    }
}

/// More systems than a grid holds along z (65535 layers on every GPU): the device engines
/// launch every kernel in pieces of layers, each piece's first layer added to the kernels' z.
/// The Heisenberg glass (cone proposals, which every system accepts some of, over-relaxation,
/// observations, overlaps, and the exchange of the first system with the last, which lies in
/// the second piece) and the 3-state Potts ferromagnet's Wolff updates alone, on 4 x 4
/// lattices, whose Metropolis passes lay the systems flat along the grid.
/// [`layered_systems_past_a_grid_match_cpu_bit_for_bit`] has the Metropolis passes that run a
/// layer a system.
fn more_systems_than_a_grid_holds_match_cpu_bit_for_bit<G: Gpu>() {
    let glass = Case {
        components: 3,
        size: 4,
        field: 0.0,
        disorder: Disorder::Bimodal,
        cone: Some(0.5),
        replicas: 16_400,
        ..XY_2D_FIELD
    };
    let potts = Case {
        components: 1,
        size: 4,
        field: 0.0,
        overrelaxation: 0,
        replicas: 32_800,
        states: Some(DiscreteCase::Potts(3)),
        clusters: Some(ClusterOptions {
            update: ClusterUpdate::Wolff,
            clusters: 2,
            metropolis: 0,
        }),
        ..XY_2D_FIELD
    };
    for case in [glass, potts] {
        assert_launch(case, true);
        assert_matches(G::default(), case, G::BLOCK_SIZES[1]);
    }
}

/// `case` has more systems than a grid holds along z, and its Metropolis passes lay them flat
/// along the grid (`flat`) or a layer a system.
fn assert_launch(case: Case, flat: bool) {
    assert!(case.systems().systems() > u32::from(u16::MAX));
    let launch = (case.updates()).metropolis_launch(&case.systems(), 1, METROPOLIS_WORKGROUP_SIZE);
    assert_eq!(launch.flat, flat, "{case:?}");
}

/// [`more_systems_than_a_grid_holds_match_cpu_bit_for_bit`] where the Metropolis passes run a
/// layer a system, in pieces: the XY model on 8^3 lattices, whose colours' 256 sites fill a
/// block of [`METROPOLIS_WORKGROUP_SIZE`]. CUDA only: the spins of the 65 600 systems (268 MB)
/// pass the 128 MiB that lavapipe binds.
#[cfg(feature = "cuda")]
fn layered_systems_past_a_grid_match_cpu_bit_for_bit() {
    use crate::common::backend::Cuda;
    let layered = Case {
        dims: 3,
        size: 8,
        overrelaxation: 0,
        replicas: 32_800,
        ..XY_2D_FIELD
    };
    assert_launch(layered, false);
    assert_matches(Cuda, layered, Cuda::BLOCK_SIZES[0]);
}

//! Lattices split into slabs (`IsingSystems::plane_slab`): engines holding one slab each, in
//! threads trading halo planes through `LocalHalos`, must end with exactly the bits of one
//! engine of the whole lattices (their spins the matching bit ranges, their measurements
//! summed the whole run's), with whole sweeps or sweeps in pieces. Shared by the CPU, wgpu and
//! CUDA tests of `tests/equality/slabs.rs`.

use super::pieces::in_pieces;
use super::{execute_all, sweep_plan};
use spinflip::config::{Boundaries, Boundary, Lanes, Layout, MultispinOptions, Randoms};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::slabs::LocalHalos;
use spinflip::engine::{Engine, Halo, Measurements, Observation, Plan, SpinBits};
use spinflip::model::ising::IsingSystems;
use spinflip::model::{Lattice, Shape};

/// A run and the slabs `(first plane, planes)` that cover its lattices.
#[derive(Debug, Clone)]
pub struct SlabCase {
    pub systems: IsingSystems,
    pub layout: Layout,
    pub randoms: Randoms,
    pub slabs: Vec<(u32, u32)>,
    /// Sweeps of each of the two plans.
    pub sweeps: u32,
}

impl SlabCase {
    /// The case's multispin layout of `systems` (the run's or a slab's).
    pub fn layout(&self, systems: &IsingSystems) -> MultispinLayout {
        let options = MultispinOptions {
            layout: self.layout,
            randoms: self.randoms,
        };
        MultispinLayout::new(systems.clone(), options)
    }

    pub fn name(&self) -> String {
        let (l, s) = (self.systems.lattice, &self.systems);
        format!(
            "{:?} {}D L={} {:?} h={} {:?} slabs {:?}",
            self.layout, l.dims, l.size, s.disorder, s.field, self.randoms, self.slabs
        )
    }
}

/// The cases: SMSC in 2D L = 64 (the smallest SMSC lattice), the ferromagnet with a field and
/// the spin glass with overlaps, in 2 and 3 slabs of uneven sizes, exact and shared randoms, and
/// every AMSC lanes kind on small lattices, two of them with packed randoms, open edges (along
/// the slabs' axis too) and the honeycomb, periodic and open along y;
/// SMSC in 3D L = 64 with few sweeps when `three_d`.
pub fn slab_cases(three_d: bool) -> Vec<SlabCase> {
    let betas = |t: usize| (0..t).map(|k| 0.35 + 0.05 * k as f64).collect::<Vec<_>>();
    let seed = 0x51ab_0000_0011;
    let square = Lattice::new(2, 64);
    let mut cases = vec![
        SlabCase {
            systems: IsingSystems::ferromagnet(square, 0.1, betas(2), 2, seed),
            layout: Layout::Smsc,
            randoms: Randoms::Exact,
            slabs: vec![(0, 32), (32, 32)],
            sweeps: 6,
        },
        SlabCase {
            systems: IsingSystems::ferromagnet(square, 0.05, betas(1), 1, seed + 1),
            layout: Layout::Smsc,
            randoms: Randoms::Shared,
            slabs: vec![(0, 22), (22, 30), (52, 12)],
            sweeps: 6,
        },
        SlabCase {
            systems: IsingSystems::spin_glass(square, 0.0, betas(2), 2, 4, seed + 2),
            layout: Layout::Smsc,
            randoms: Randoms::Exact,
            slabs: vec![(0, 20), (20, 2), (22, 42)],
            sweeps: 6,
        },
        SlabCase {
            systems: IsingSystems::spin_glass(square, 0.2, betas(1), 1, 2, seed + 3),
            layout: Layout::Smsc,
            randoms: Randoms::Shared,
            slabs: vec![(0, 40), (40, 24)],
            sweeps: 6,
        },
    ];
    let amsc = |lanes| Layout::Amsc { lanes };
    let honeycomb = Lattice::shaped(Shape::Honeycomb, 2, 10);
    cases.extend([
        SlabCase {
            systems: IsingSystems::spin_glass(Lattice::new(2, 8), 0.1, betas(2), 32, 2, seed + 6),
            layout: amsc(Lanes::Samples),
            randoms: Randoms::Exact,
            slabs: vec![(0, 2), (2, 4), (6, 2)],
            sweeps: 6,
        },
        SlabCase {
            systems: IsingSystems::spin_glass(Lattice::new(3, 4), 0.0, betas(1), 1, 64, seed + 7),
            layout: amsc(Lanes::Replicas),
            randoms: Randoms::Shared,
            slabs: vec![(0, 2), (2, 2)],
            sweeps: 6,
        },
        SlabCase {
            systems: IsingSystems::ferromagnet(Lattice::new(3, 6), 0.1, betas(3), 1, seed + 8),
            layout: amsc(Lanes::Temperatures),
            randoms: Randoms::Exact,
            slabs: vec![(0, 4), (4, 2)],
            sweeps: 6,
        },
        // Packed randoms: runs of two (spin glass) and four words (ferromagnet) per thread.
        SlabCase {
            systems: IsingSystems::spin_glass(Lattice::new(3, 8), 0.0, betas(1), 32, 2, seed + 9),
            layout: amsc(Lanes::Samples),
            randoms: Randoms::Packed,
            slabs: vec![(0, 2), (2, 6)],
            sweeps: 6,
        },
        SlabCase {
            systems: IsingSystems::ferromagnet(Lattice::new(2, 8), 0.2, betas(2), 32, seed + 10),
            layout: amsc(Lanes::Replicas),
            randoms: Randoms::Packed,
            slabs: vec![(0, 4), (4, 4)],
            sweeps: 6,
        },
        // Open edges: along the slowest axis the edge lies between the last slab and the first.
        SlabCase {
            systems: IsingSystems {
                boundaries: Boundaries::new(&[Boundary::Open, Boundary::Open]),
                ..IsingSystems::ferromagnet(square, 0.1, betas(2), 1, seed + 12)
            },
            layout: Layout::Smsc,
            randoms: Randoms::Exact,
            slabs: vec![(0, 22), (22, 30), (52, 12)],
            sweeps: 6,
        },
        SlabCase {
            systems: IsingSystems {
                boundaries: Boundaries::new(&[Boundary::Periodic, Boundary::Open, Boundary::Open]),
                ..IsingSystems::spin_glass(Lattice::new(3, 4), 0.0, betas(1), 32, 2, seed + 13)
            },
            layout: amsc(Lanes::Samples),
            randoms: Randoms::Packed,
            slabs: vec![(0, 2), (2, 2)],
            sweeps: 6,
        },
        // The honeycomb's brick wall, whose y bonds cross the slabs' edges one way a colour.
        SlabCase {
            systems: IsingSystems::ferromagnet(honeycomb, 0.1, betas(2), 32, seed + 11),
            layout: amsc(Lanes::Replicas),
            randoms: Randoms::Exact,
            slabs: vec![(0, 2), (2, 4), (6, 4)],
            sweeps: 6,
        },
        // Open along y, whose edge lies between the last slab and the first: the brick wall's y
        // bonds up from the last plane and down from the first left out.
        SlabCase {
            systems: IsingSystems {
                boundaries: Boundaries::new(&[Boundary::Periodic, Boundary::Open]),
                ..IsingSystems::ferromagnet(honeycomb, 0.1, betas(1), 32, seed + 14)
            },
            layout: amsc(Lanes::Replicas),
            randoms: Randoms::Packed,
            slabs: vec![(0, 4), (4, 6)],
            sweeps: 6,
        },
    ]);
    if three_d {
        let cube = Lattice::new(3, 64);
        cases.extend([
            SlabCase {
                systems: IsingSystems::spin_glass(cube, 0.1, betas(1), 1, 2, seed + 4),
                layout: Layout::Smsc,
                randoms: Randoms::Exact,
                slabs: vec![(0, 30), (30, 34)],
                sweeps: 2,
            },
            SlabCase {
                systems: IsingSystems::ferromagnet(cube, 0.1, betas(1), 1, seed + 5),
                layout: Layout::Smsc,
                randoms: Randoms::Shared,
                slabs: vec![(0, 20), (20, 24), (44, 20)],
                sweeps: 2,
            },
        ]);
    }
    cases
}

/// The triangular and kagome lattices, whose colours update in two passes of alternate rows
/// and whose diagonal bonds join a colour's rows across the slabs' edges: the triangular
/// ferromagnet in a field (SMSC, 3 slabs, one of two planes) and antiferromagnet (AMSC
/// replicas, packed randoms), the kagome +-J glass (AMSC samples) and antiferromagnet (SMSC,
/// shared randoms), the triangular glass with open edges. Their sweeps are whole
/// (`MultispinLayout::sweep_parts`).
pub fn triangular_slab_cases() -> Vec<SlabCase> {
    let seed = 0x51ab_0000_0021;
    let shaped = |shape, size| Lattice::shaped(shape, 2, size);
    let antiferromagnet = |systems: IsingSystems| IsingSystems {
        antiferromagnet: true,
        ..systems
    };
    let triangular = |size| shaped(Shape::Triangular, size);
    let kagome = |size| shaped(Shape::Kagome, size);
    vec![
        SlabCase {
            systems: IsingSystems::ferromagnet(triangular(64), 0.1, vec![0.25, 0.3], 1, seed),
            layout: Layout::Smsc,
            randoms: Randoms::Exact,
            slabs: vec![(0, 20), (20, 2), (22, 42)],
            sweeps: 6,
        },
        SlabCase {
            systems: antiferromagnet(IsingSystems::ferromagnet(
                triangular(8),
                0.2,
                vec![0.5],
                32,
                seed + 1,
            )),
            layout: Layout::Amsc {
                lanes: Lanes::Replicas,
            },
            randoms: Randoms::Packed,
            slabs: vec![(0, 4), (4, 2), (6, 2)],
            sweeps: 6,
        },
        SlabCase {
            systems: IsingSystems::spin_glass(kagome(8), 0.1, vec![0.6, 0.8], 32, 2, seed + 2),
            layout: Layout::Amsc {
                lanes: Lanes::Samples,
            },
            randoms: Randoms::Exact,
            slabs: vec![(0, 2), (2, 6)],
            sweeps: 6,
        },
        SlabCase {
            systems: antiferromagnet(IsingSystems::ferromagnet(
                kagome(64),
                0.0,
                vec![0.7],
                1,
                seed + 3,
            )),
            layout: Layout::Smsc,
            randoms: Randoms::Shared,
            slabs: vec![(0, 30), (30, 34)],
            sweeps: 6,
        },
        // Open edges, which the diagonal crosses both: between the last slab and the first too.
        SlabCase {
            systems: IsingSystems {
                boundaries: Boundaries::new(&[Boundary::Open, Boundary::Open]),
                ..IsingSystems::spin_glass(triangular(8), 0.1, vec![0.6], 32, 2, seed + 4)
            },
            layout: Layout::Amsc {
                lanes: Lanes::Samples,
            },
            randoms: Randoms::Exact,
            slabs: vec![(0, 4), (4, 4)],
            sweeps: 6,
        },
    ]
}

/// The two runs of plans: sweeps measuring after each, the second continuing the sweep
/// count, each one plan, or in pieces cut at `cuts` ([`in_pieces`]; none: whole sweeps).
pub fn slab_plans(case: &SlabCase, cuts: &[(u64, bool)]) -> [Vec<Plan>; 2] {
    let size = case.systems.lattice.size;
    [0, case.sweeps].map(|first| in_pieces(&[sweep_plan(first, case.sweeps, 1)], size, cuts))
}

/// The lattices every engine takes between its two plans (`set_spins`): a fixed pattern, not
/// where the first plan left them.
pub fn between_plans(systems: &IsingSystems) -> SpinBits {
    let n = systems.spin_count();
    let signs: Vec<i32> = (0..n)
        .map(|i| if (i * 7919 + i / 61) % 11 < 5 { 1 } else { -1 })
        .collect();
    SpinBits::from_signs(systems.systems(), systems.lattice.sites(), &signs)
}

/// What an engine held and measured: after the hot start and the first run of plans, then
/// after `set_spins(between_plans)` and the second.
pub struct Outcome {
    pub spins: Vec<SpinBits>,
    pub measured: Vec<Measurements>,
}

/// Run `engine` (of `systems`, the run's or a slab's) through the case's plans, its sweeps
/// cut at `cuts` ([`slab_plans`]).
pub fn execute(
    engine: &mut dyn Engine,
    case: &SlabCase,
    systems: &IsingSystems,
    cuts: &[(u64, bool)],
) -> Outcome {
    let [first, second] = slab_plans(case, cuts);
    engine.hot_start().unwrap();
    let measured = vec![execute_all(engine, &first)];
    let spins = vec![engine.spins().unwrap().into_bits().unwrap()];
    let mut outcome = Outcome { spins, measured };
    engine
        .set_spins(&slab_bits(&between_plans(&case.systems), systems).into())
        .unwrap();
    outcome.measured.push(execute_all(engine, &second));
    outcome
        .spins
        .push(engine.spins().unwrap().into_bits().unwrap());
    outcome
}

/// The bits of `slab`'s planes of every system of `whole` (the run's lattices); all of them
/// for whole lattices.
pub fn slab_bits(whole: &SpinBits, slab: &IsingSystems) -> SpinBits {
    let held = slab.held_sites();
    let start = slab.slab.map_or(0, |s| u64::from(s.first)) * (held / planes(slab));
    let mut bits = SpinBits::down(slab.systems(), held);
    for b in 0..slab.systems() {
        for site in 0..held {
            bits.set(b, site, whole.up(b, start + site));
        }
    }
    bits
}

/// Planes of the slowest axis `systems` hold.
fn planes(systems: &IsingSystems) -> u64 {
    u64::from(systems.slab.map_or(systems.lattice.size, |s| s.planes))
}

/// Opens the engine of a slab with its halo (in the slab's thread).
pub type OpenSlab = dyn Fn(&SlabCase, &IsingSystems, Box<dyn Halo>) -> Box<dyn Engine> + Sync;

/// Every slab of the case in its own thread, in a ring of [`LocalHalos`], its sweeps cut at
/// `cuts`.
pub fn execute_slabs(case: &SlabCase, open: &OpenSlab, cuts: &[(u64, bool)]) -> Vec<Outcome> {
    let halos = LocalHalos::ring(case.slabs.len());
    std::thread::scope(|scope| {
        let threads: Vec<_> = case
            .slabs
            .iter()
            .zip(halos)
            .map(|(&(first, planes), halo)| {
                scope.spawn(move || {
                    let slab = case.systems.plane_slab(first, planes);
                    execute(open(case, &slab, halo).as_mut(), case, &slab, cuts)
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    })
}

/// The slabs' outcomes against the whole run's: each slab's spins are its planes' bits of the
/// run's lattices, and the slabs' observations, overlap planes and link overlaps add up to the
/// run's, bit for bit.
pub fn check_slabs(case: &SlabCase, whole: &Outcome, parts: &[Outcome]) {
    let name = case.name();
    for (plan, measured) in whole.measured.iter().enumerate() {
        let name = format!("{name} plan {plan}");
        for (&(first, planes), part) in case.slabs.iter().zip(parts) {
            let slab = case.systems.plane_slab(first, planes);
            assert_eq!(
                part.spins[plan],
                slab_bits(&whole.spins[plan], &slab),
                "{name}: spins of the slab at plane {first}"
            );
        }
        let summed = sum(parts.iter().map(|part| &part.measured[plan]));
        assert!(
            !measured.observations.is_empty(),
            "{name}: measured nothing"
        );
        assert_eq!(summed.observations, measured.observations, "{name}");
        assert_eq!(summed.overlap_planes, measured.overlap_planes, "{name}");
        assert_eq!(summed.link_overlaps, measured.link_overlaps, "{name}");
        let pairs = case.systems.overlap_pairs() > 0;
        assert_eq!(
            !measured.link_overlaps.is_empty(),
            pairs,
            "{name}: overlaps"
        );
    }
}

/// The slabs' partial measurements added up.
fn sum<'a>(parts: impl Iterator<Item = &'a Measurements>) -> Measurements {
    parts
        .fold(None, |total: Option<Measurements>, part| {
            let Some(mut total) = total else {
                return Some(part.clone());
            };
            for (t, p) in total.observations.iter_mut().zip(&part.observations) {
                *t = Observation {
                    up: t.up + p.up,
                    satisfied: t.satisfied + p.satisfied,
                };
            }
            add(&mut total.overlap_planes, &part.overlap_planes);
            add(&mut total.link_overlaps, &part.link_overlaps);
            Some(total)
        })
        .expect("at least one slab")
}

fn add<T: Copy + std::ops::Add<Output = T>>(total: &mut [T], part: &[T]) {
    assert_eq!(total.len(), part.len(), "slabs measure the same items");
    for (t, p) in total.iter_mut().zip(part) {
        *t = *t + *p;
    }
}

/// Execute a case on the whole lattices (`whole`, whole sweeps) and in slabs (`open`, their
/// sweeps cut at `cuts`), and compare.
pub fn compare_slabs(
    case: &SlabCase,
    whole: Box<dyn Engine>,
    open: &OpenSlab,
    cuts: &[(u64, bool)],
) {
    let mut whole = whole;
    let reference = execute(whole.as_mut(), case, &case.systems, &[]);
    drop(whole);
    let parts = execute_slabs(case, open, cuts);
    check_slabs(case, &reference, &parts);
}

//! Parallel tempering's bit-equality cases and comparison, shared by the wgpu and CUDA tests.

use spinflip::config::{Boundaries, Boundary, Disorder, Layout, MultispinOptions, Randoms};
use spinflip::engine::cpu::hot_start::initial_spins;
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::tempering::Chains;
use spinflip::engine::{Engine, Plan, Step, tempering_of};
use spinflip::metropolis::Schedule;
use spinflip::model::ising::IsingSystems;
use spinflip::model::systems::SystemIndex;
use spinflip::model::{Lattice, Shape};

use super::{AMSC_REPLICAS, AMSC_SAMPLES, AMSC_TEMPERATURES, first_difference};

pub fn tempering_systems(
    dims: u32,
    size: u32,
    disorder: Disorder,
    field: f64,
    counts: (u32, u32, usize),
) -> IsingSystems {
    shaped_tempering_systems(Lattice::new(dims, size), disorder, field, counts)
}

/// [`tempering_systems`] on `lattice` (the honeycomb's brick wall among them).
pub fn shaped_tempering_systems(
    lattice: Lattice,
    disorder: Disorder,
    field: f64,
    (samples, replicas, temperatures): (u32, u32, usize),
) -> IsingSystems {
    // Gaps that shrink with the energy's fluctuations (~ sqrt N), so both outcomes occur.
    let gap = 0.18 / (lattice.sites() as f64).sqrt();
    let betas = (0..temperatures).map(|t| 0.3 + gap * t as f64).collect();
    let index = SystemIndex::new(betas, disorder, samples, replicas, 0x5eed_0000_7e3b);
    IsingSystems::new(index, lattice, field)
}

/// Sweeps with a swap round after each and a measurement after every second, twice over.
pub fn plans() -> [Plan; 2] {
    let schedule = Schedule {
        thermalize: 3,
        measure: 10,
        every: 2,
        swap_every: Some(1),
        clusters: None,
    };
    [schedule.plan(0, 6), schedule.plan(6, schedule.total())]
}

/// Swap rounds after every third sweep, measurements after every fourth: sweeps between rounds
/// that do not follow one (engines that make a round's exchange in the sweep after it).
pub fn rounds_every_third_sweep() -> [Plan; 2] {
    let schedule = Schedule {
        thermalize: 4,
        measure: 12,
        every: 4,
        swap_every: Some(3),
        clusters: None,
    };
    [schedule.plan(0, 7), schedule.plan(7, schedule.total())]
}

pub fn compare_tempering(
    name: &str,
    systems: &IsingSystems,
    cpu: &mut dyn Engine,
    gpu: &mut dyn Engine,
) {
    compare_tempering_plans(name, systems, cpu, gpu, &plans());
}

/// [`compare_tempering`] over `plans`.
pub fn compare_tempering_plans(
    name: &str,
    systems: &IsingSystems,
    cpu: &mut dyn Engine,
    gpu: &mut dyn Engine,
    plans: &[Plan],
) {
    let spins = initial_spins(systems);
    let state = Chains::of(systems).initial_state();
    cpu.set_spins(&spins.clone().into()).unwrap();
    gpu.set_spins(&spins.clone().into()).unwrap();
    tempering_of(cpu).unwrap().set_tempering(&state).unwrap();
    tempering_of(gpu).unwrap().set_tempering(&state).unwrap();
    let mut accepted = 0;
    for (i, plan) in plans.iter().enumerate() {
        let cpu_measured = cpu.execute(plan).unwrap();
        let gpu_measured = gpu.execute(plan).unwrap();
        let (cpu_spins, gpu_spins) = (
            cpu.spins().unwrap().into_bits().unwrap(),
            gpu.spins().unwrap().into_bits().unwrap(),
        );
        if let Some(diff) = first_difference(&systems.lattice, &cpu_spins, &gpu_spins) {
            panic!("{name} plan {i}: lattices differ at {diff}");
        }
        assert_eq!(cpu_measured, gpu_measured, "{name} plan {i}: measurements");
        assert!(!cpu_measured.labels.is_empty(), "{name}: no history");
        let state_of =
            |engine: &mut dyn Engine| tempering_of(engine).unwrap().tempering_state().unwrap();
        let (cpu_state, gpu_state) = (state_of(cpu), state_of(gpu));
        assert_eq!(cpu_state, gpu_state, "{name} plan {i}: tempering state");
        let chains = Chains::of(systems);
        accepted = cpu_state[3 * chains.section_words()..].iter().sum::<u32>();
    }
    let rounds = plans
        .iter()
        .flat_map(|plan| &plan.steps)
        .filter(|step| matches!(step, Step::Swap { .. }))
        .count() as u32;
    let attempts = Chains::of(systems).sets * (systems.betas.len() as u32 - 1) * rounds / 2;
    eprintln!("{name}: {accepted} of about {attempts} swaps accepted");
    assert!(
        accepted > 0 && accepted < attempts,
        "{name}: both outcomes should occur ({accepted} of about {attempts})"
    );
}

/// Sweeps each followed by a measurement and two swap rounds (both parities), so that every
/// second round follows another round and not an update: engines that tally a round's counts in
/// the update before it count those apart.
pub fn rounds_after_rounds() -> [Plan; 2] {
    [0..6, 6..12].map(|sweeps| {
        let mut plan = Plan::default();
        for sweep in sweeps {
            plan.sweep(sweep);
            plan.measure();
            plan.swap(sweep, sweep % 2);
            plan.swap(sweep, (sweep + 1) % 2);
        }
        plan
    })
}

/// A multispin tempering case: geometry, layout, couplings, field and (samples, replicas,
/// temperatures).
pub struct TemperingCase {
    pub dims: u32,
    pub size: u32,
    pub layout: Layout,
    pub disorder: Disorder,
    pub field: f64,
    pub counts: (u32, u32, usize),
    pub randoms: Randoms,
    pub shape: Shape,
    /// Open axes leave out the bonds across their edges (no colour update tallies the rounds).
    pub boundaries: Boundaries,
}

impl TemperingCase {
    pub fn layout(&self) -> MultispinLayout {
        let lattice = Lattice::shaped(self.shape, self.dims, self.size);
        let systems = IsingSystems {
            boundaries: self.boundaries,
            ..shaped_tempering_systems(lattice, self.disorder, self.field, self.counts)
        };
        let options = MultispinOptions {
            layout: self.layout,
            randoms: self.randoms,
        };
        MultispinLayout::new(systems, options)
    }

    pub fn name(&self) -> String {
        format!(
            "{}D L={} {:?} {} {:?} h={}",
            self.dims,
            self.size,
            self.shape,
            self.layout().describe(),
            self.disorder,
            self.field
        )
    }
}

/// Every exchange kind: lanes holding samples or replicas, neighbour lanes within words (lanes
/// holding temperatures) and whole word systems (SMSC), with and without a field; exact
/// randoms, and packed ones in runs of two (spin glass) and four words (SMSC ferromagnet); the
/// honeycomb's brick wall, whose tally counts three bonds a site; the triangular lattice, whose
/// rounds no colour update tallies and whose first sweep after a round makes no exchange, and
/// the kagome lattice drawn on it; open edges, of the honeycomb too.
pub fn tempering_cases() -> Vec<TemperingCase> {
    let case = |dims, size, layout, disorder, field, counts| TemperingCase {
        dims,
        size,
        layout,
        disorder,
        field,
        counts,
        randoms: Randoms::Exact,
        shape: Shape::Hypercubic,
        boundaries: Boundaries::PERIODIC,
    };
    let packed = |case: TemperingCase| TemperingCase {
        randoms: Randoms::Packed,
        ..case
    };
    let honeycomb = |case: TemperingCase| TemperingCase {
        shape: Shape::Honeycomb,
        ..case
    };
    let triangular = |case: TemperingCase| TemperingCase {
        shape: Shape::Triangular,
        ..case
    };
    let (bimodal, ferro) = (Disorder::Bimodal, Disorder::Ferromagnet);
    vec![
        case(2, 6, AMSC_SAMPLES, bimodal, 0.0, (32, 2, 4)),
        case(3, 4, AMSC_SAMPLES, bimodal, 0.3, (32, 2, 3)),
        case(2, 8, AMSC_REPLICAS, ferro, 0.0, (1, 32, 5)),
        case(2, 6, AMSC_TEMPERATURES, bimodal, 0.0, (3, 2, 6)),
        case(3, 4, AMSC_TEMPERATURES, bimodal, 0.25, (2, 2, 5)),
        case(2, 64, Layout::Smsc, bimodal, 0.0, (2, 2, 3)),
        case(2, 64, Layout::Smsc, ferro, 0.1, (1, 2, 3)),
        packed(case(3, 8, AMSC_SAMPLES, bimodal, 0.0, (32, 2, 3))),
        // Word systems of 2744 words, past the 2048 that each pass of wgpu's swap kernel
        // exchanges, and not a multiple of them.
        case(3, 14, AMSC_SAMPLES, bimodal, 0.0, (32, 2, 3)),
        // Word systems too large for wgpu's swap kernel to exchange them (then
        // tempering_exchange does).
        packed(case(3, 28, AMSC_SAMPLES, bimodal, 0.0, (32, 2, 3))),
        packed(case(2, 256, Layout::Smsc, ferro, 0.0, (1, 2, 3))),
        honeycomb(case(2, 8, AMSC_REPLICAS, ferro, 0.0, (1, 32, 5))),
        honeycomb(packed(case(2, 64, Layout::Smsc, ferro, 0.1, (1, 2, 4)))),
        triangular(case(2, 6, AMSC_SAMPLES, bimodal, 0.0, (32, 2, 4))),
        triangular(case(2, 6, AMSC_TEMPERATURES, bimodal, 0.0, (3, 2, 6))),
        triangular(packed(case(2, 192, Layout::Smsc, ferro, 0.0, (1, 2, 3)))),
        TemperingCase {
            shape: Shape::Kagome,
            ..case(2, 12, AMSC_SAMPLES, bimodal, 0.0, (32, 2, 4))
        },
        TemperingCase {
            boundaries: Boundaries::new(&[Boundary::Open, Boundary::Periodic, Boundary::Open]),
            ..case(3, 4, AMSC_SAMPLES, bimodal, 0.0, (32, 2, 3))
        },
        TemperingCase {
            boundaries: Boundaries::new(&[Boundary::Open, Boundary::Open]),
            ..packed(case(2, 128, Layout::Smsc, ferro, 0.0, (1, 2, 3)))
        },
        TemperingCase {
            boundaries: Boundaries::new(&[Boundary::Open, Boundary::Open]),
            ..honeycomb(case(2, 8, AMSC_REPLICAS, ferro, 0.0, (1, 32, 5)))
        },
    ]
}

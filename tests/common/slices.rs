//! Sample slices (`IsingSystems::sample_slice`): an engine opened on samples `first .. first +
//! count` of a run must end with exactly the bits those samples have in an engine of the whole
//! run. Shared by the CPU, wgpu and CUDA tests of `tests/equality/slices.rs`.

use super::{AMSC_REPLICAS, AMSC_SAMPLES, AMSC_TEMPERATURES};
use spinflip::config::{Disorder, Layout, MultispinOptions, Randoms};
use spinflip::engine::cpu::{CpuEngine, CpuMultispinEngine};
use spinflip::engine::multispin::MultispinLayout;
use spinflip::engine::tempering::Chains;
use spinflip::engine::{
    Engine, Measurements, Plan, SpinBits, Step, tempering_of, tempering_state_of,
};
use spinflip::model::Lattice;
use spinflip::model::ising::IsingSystems;
use spinflip::model::systems::{SliceIndex, SystemIndex};

/// One run of the slice tests: a model, the engine kind and the slices that cover its samples.
#[derive(Debug, Clone)]
pub struct SliceCase {
    pub systems: IsingSystems,
    /// `None`: the simple engine.
    pub layout: Option<Layout>,
    pub randoms: Randoms,
    /// `(first, count)`, covering the run's samples.
    pub slices: Vec<(u32, u32)>,
}

impl SliceCase {
    /// The case's engine description for failure messages.
    pub fn name(&self) -> String {
        let engine = match self.layout {
            None => "simple".to_string(),
            Some(layout) => self.multispin(&self.systems, layout).describe(),
        };
        let l = self.systems.lattice;
        format!(
            "{engine} {}D L={} {:?} h={} S={}",
            l.dims, l.size, self.systems.disorder, self.systems.field, self.systems.samples
        )
    }

    /// The multispin layout of `systems` (the run's or a slice's) in `layout`.
    pub fn multispin(&self, systems: &IsingSystems, layout: Layout) -> MultispinLayout {
        let options = MultispinOptions {
            layout,
            randoms: self.randoms,
        };
        MultispinLayout::new(systems.clone(), options)
    }
}

/// The slice cases: the simple engine (a ferromagnet with several samples, beyond what a config
/// asks, so that its slices are not the whole run), and every multispin layout on the spin
/// glass, with a field in some, shared randoms in one; 2D L = 8 (SMSC: 64) and 3D L = 4.
pub fn slice_cases() -> Vec<SliceCase> {
    let lattice = |dims, size| Lattice::new(dims, size);
    let betas = |t: usize| (0..t).map(|k| 0.3 + 0.04 * k as f64).collect::<Vec<_>>();
    let glass = |l, field, (samples, replicas, t)| {
        IsingSystems::spin_glass(l, field, betas(t), samples, replicas, 0x51ce_0000_0042)
    };
    let ferromagnet = IsingSystems::new(
        SystemIndex::new(betas(3), Disorder::Ferromagnet, 3, 2, 0x51ce_0000_0007),
        lattice(2, 8),
        0.1,
    );
    let case = |systems, layout, randoms, slices: &[(u32, u32)]| SliceCase {
        systems,
        layout,
        randoms,
        slices: slices.to_vec(),
    };
    let exact = Randoms::Exact;
    let thirds: &[(u32, u32)] = &[(0, 2), (2, 1)];
    vec![
        case(ferromagnet, None, exact, thirds),
        case(
            glass(lattice(2, 8), 0.0, (64, 2, 3)),
            Some(AMSC_SAMPLES),
            exact,
            &[(0, 32), (32, 32)],
        ),
        case(
            glass(lattice(3, 4), 0.2, (3, 32, 3)),
            Some(AMSC_REPLICAS),
            exact,
            thirds,
        ),
        case(
            glass(lattice(2, 8), 0.0, (3, 32, 2)),
            Some(AMSC_REPLICAS),
            Randoms::Shared,
            &[(0, 1), (1, 2)],
        ),
        case(
            glass(lattice(3, 4), 0.15, (3, 2, 5)),
            Some(AMSC_TEMPERATURES),
            exact,
            &[(0, 1), (1, 2)],
        ),
        case(
            glass(lattice(2, 64), 0.1, (3, 2, 3)),
            Some(Layout::Smsc),
            exact,
            &[(0, 1), (1, 1), (2, 1)],
        ),
    ]
}

/// The plans every engine executes: sweeps with a measurement every second, and with
/// `tempering` a swap round after each sweep; twice over, so that the second continues the
/// first's state.
pub fn slice_plans(tempering: bool) -> [Plan; 2] {
    super::tempering::plans().map(|plan| Plan {
        steps: plan
            .steps
            .into_iter()
            .filter(|step| tempering || !matches!(step, Step::Swap { .. }))
            .collect(),
        slots: plan.slots,
    })
}

/// What an engine holds after each plan.
pub struct Outcome {
    pub spins: Vec<SpinBits>,
    pub measured: Vec<Measurements>,
    pub states: Vec<Vec<u32>>,
}

/// `engine`, opened on `systems`, from the hot start (and with `tempering` the initial
/// tempering state) through [`slice_plans`].
pub fn execute(engine: &mut dyn Engine, systems: &IsingSystems, tempering: bool) -> Outcome {
    engine.hot_start().unwrap();
    if tempering {
        let state = Chains::of(systems).initial_state();
        tempering_of(engine).unwrap().set_tempering(&state).unwrap();
    }
    let mut outcome = Outcome {
        spins: Vec::new(),
        measured: Vec::new(),
        states: Vec::new(),
    };
    for plan in slice_plans(tempering) {
        outcome.measured.push(engine.execute(&plan).unwrap());
        outcome
            .spins
            .push(engine.spins().unwrap().into_bits().unwrap());
        outcome.states.push(tempering_state_of(engine).unwrap());
    }
    outcome
}

/// Compare a slice's outcome with its systems in the whole run's, bit for bit: lattices,
/// observations, overlap planes, link overlaps, tempering state and (for a slice holding the
/// run's sample 0) the temperature history.
pub fn check_slice(
    name: &str,
    (run, whole): (&IsingSystems, &Outcome),
    (slice, part): (&IsingSystems, &Outcome),
) {
    let systems = slice.slice_index();
    let pairs = run.overlap_pairs();
    let overlaps = SliceIndex {
        block: slice.samples * pairs,
        run_block: run.samples * pairs,
        first: slice.first_sample * pairs,
    };
    let chains = (Chains::of(run), Chains::of(slice));
    for (i, ((whole_spins, part_spins), (whole_measured, part_measured))) in whole
        .spins
        .iter()
        .zip(&part.spins)
        .zip(whole.measured.iter().zip(&part.measured))
        .enumerate()
    {
        let name = format!("{name} plan {i}");
        check_spins(&name, slice, whole_spins, part_spins);
        let slots = part_measured.observations.len() / slice.systems() as usize;
        assert!(slots > 0, "{name}: no measurements");
        let per_slot = |values: &[_], count: u32| values.len() / (slots * count.max(1) as usize);
        check_mapped(
            &format!("{name} observations"),
            (&whole_measured.observations, &part_measured.observations),
            (slots, slice.systems(), 1),
            systems,
        );
        let planes = per_slot(&part_measured.overlap_planes, slice.overlaps());
        check_mapped(
            &format!("{name} overlap planes"),
            (
                &whole_measured.overlap_planes,
                &part_measured.overlap_planes,
            ),
            (slots, slice.overlaps(), planes),
            overlaps,
        );
        check_mapped(
            &format!("{name} link overlaps"),
            (&whole_measured.link_overlaps, &part_measured.link_overlaps),
            (slots, slice.overlaps(), 1),
            overlaps,
        );
        check_state(&name, chains, slice, (&whole.states[i], &part.states[i]));
        if slice.first_sample == 0 {
            assert_eq!(
                whole_measured.labels, part_measured.labels,
                "{name}: temperature history"
            );
        } else {
            assert_eq!(
                whole_measured.labels.len(),
                part_measured.labels.len(),
                "{name}: temperature history length"
            );
        }
    }
}

/// Every spin of every system of the slice against the run's system.
fn check_spins(name: &str, slice: &IsingSystems, whole: &SpinBits, part: &SpinBits) {
    assert_eq!(part.systems(), slice.systems(), "{name}: systems");
    let n = slice.lattice.sites();
    for b in 0..slice.systems() {
        let global = slice.global_system(b);
        for site in (0..n).step_by(64) {
            let count = (n - site).min(64) as u32;
            assert_eq!(
                part.bits_at(u64::from(b) * n + site, count),
                whole.bits_at(u64::from(global) * n + site, count),
                "{name}: system {b} (the run's {global}), sites from {site}"
            );
        }
    }
}

/// `[slot][item][k]` values of a slice (`items` per slot, `width` values each) against the
/// run's items `index.global(item)`.
fn check_mapped<T: PartialEq + std::fmt::Debug>(
    name: &str,
    (whole, part): (&[T], &[T]),
    (slots, items, width): (usize, u32, usize),
    index: SliceIndex,
) {
    assert_eq!(part.len(), slots * items as usize * width, "{name}: length");
    if part.is_empty() {
        return;
    }
    let run_items = whole.len() / (slots * width);
    for slot in 0..slots {
        for item in 0..items {
            let global = index.global(item) as usize;
            let mine = &part[(slot * items as usize + item as usize) * width..][..width];
            let theirs = &whole[(slot * run_items + global) * width..][..width];
            assert_eq!(
                mine, theirs,
                "{name}: slot {slot} item {item} (run's {global})"
            );
        }
    }
}

/// The slice's tempering state, `[section][c][k]`, is its chain sets' section of the run's.
fn check_state(
    name: &str,
    (run, chains): (Chains, Chains),
    slice: &IsingSystems,
    (whole, part): (&[u32], &[u32]),
) {
    assert_eq!(whole.is_empty(), part.is_empty(), "{name}: tempering");
    if part.is_empty() {
        return;
    }
    let words = chains.section_words();
    let first = (slice.global_chain_set(0) * run.temperatures) as usize;
    for section in 0..4 {
        assert_eq!(
            &part[section * words..][..words],
            &whole[section * run.section_words() + first..][..words],
            "{name}: tempering state section {section}"
        );
    }
}

/// A CPU engine of `systems` (the case's run or a slice of it).
pub fn cpu(case: &SliceCase, systems: &IsingSystems) -> Box<dyn Engine> {
    match case.layout {
        None => Box::new(CpuEngine::new(systems.clone())),
        Some(layout) => Box::new(CpuMultispinEngine::new(case.multispin(systems, layout))),
    }
}

/// Opens an engine of a case on its run or on one of its slices.
pub type Open<'a> = &'a mut dyn FnMut(&SliceCase, &IsingSystems) -> Box<dyn Engine>;

/// Execute a case on the whole run (engine opened by `reference`) and on each slice (by
/// `open`), and compare.
pub fn compare_case(case: &SliceCase, tempering: bool, reference: Open, open: Open) {
    let name = format!("{} tempering={tempering}", case.name());
    let run = &case.systems;
    let whole = execute(reference(case, run).as_mut(), run, tempering);
    if tempering {
        let accepted: u32 = whole.states[1][3 * Chains::of(run).section_words()..]
            .iter()
            .sum();
        assert!(
            accepted > 0,
            "{name}: no swap accepted, the test would be weak"
        );
    }
    let mut covered = 0;
    for &(first, count) in &case.slices {
        assert_eq!(first, covered, "{name}: slices must cover the run in order");
        covered += count;
        let slice = run.sample_slice(first, count);
        let part = execute(open(case, &slice).as_mut(), &slice, tempering);
        let name = format!("{name} samples {first}..{}", first + count);
        check_slice(&name, (run, &whole), (&slice, &part));
    }
    assert_eq!(covered, run.samples, "{name}: slices cover the run");
}

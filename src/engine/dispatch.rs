//! Lowering a [`Plan`] into bounded submissions of dispatches, shared by the device backends.
//!
//! Each dispatch carries its small parameters (sweep, colour, slot) as one [`DispatchParams`]:
//! on wgpu an entry of a uniform buffer bound with a dynamic offset (`engine::wgpu::launch`), on
//! CUDA a kernel argument by value (`engine::cuda::launch`). A submission holds at most
//! `max_dispatches` dispatches and about `flip_budget` site updates, so no single submission runs
//! for long (a Windows TDR kills dispatches over ~2 s) however long the run.

use std::ops::Range;

use crate::engine::{Plan, Step};
use crate::rng::seed_key;

/// An engine kind's update threads (of each system) that hold a pass's sites on a range of
/// planes, for lowering [`Step::Part`]: `(pass, planes) -> threads`
/// ([`crate::model::Lattice::plane_units`] for a thread per group of colour sites).
pub type PartThreads<'a> = &'a dyn Fn(u32, Range<u32>) -> Range<u32>;

/// Per-dispatch parameters; mirrors `DispatchParams` in `shaders/wgsl/dispatch.wgsl` and
/// `shaders/cuda/dispatch.cuh`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DispatchParams {
    pub seed_lo: u32,
    pub seed_hi: u32,
    pub sweep: u32,
    pub colour: u32,
    pub slot: u32,
    pub systems: u32,
    /// A sweep's first update thread of each system (a slab's planes, [`Self::planes`]); 0
    /// elsewhere.
    pub first_thread: u32,
    /// A sweep's update threads from `first_thread` on; 0: all of them.
    pub threads: u32,
    /// The grid layer (system, or replica pair) of a launch's first z: a grid of more layers
    /// than the device's z limit runs as several launches ([`layer_pieces`]); 0 elsewhere.
    pub first_layer: u32,
}

impl DispatchParams {
    /// The parameters every dispatch of a plan starts from: the run's seed and the engine's
    /// `systems`.
    pub fn of_run(seed: u64, systems: u32) -> Self {
        let [seed_lo, seed_hi] = seed_key(seed);
        DispatchParams {
            seed_lo,
            seed_hi,
            systems,
            ..DispatchParams::default()
        }
    }

    /// This sweep restricted to the update threads `threads` (of each system).
    pub fn planes(self, threads: std::ops::Range<u32>) -> Self {
        DispatchParams {
            first_thread: threads.start,
            threads: threads.len() as u32,
            ..self
        }
    }

    /// The update threads this sweep launches per system, of `all`.
    pub fn update_threads(&self, all: u32) -> u32 {
        match self.threads {
            0 => all,
            n => n,
        }
    }
}

/// The `layers` of a grid (its z: systems, or replica pairs) cut into launches of at most
/// `max` layers each, where the device's grid stops at `max` (65535 along z on every GPU
/// today) and a population of small systems holds more: each piece's first layer (the
/// kernels' `first_layer`, which they add to their z) and its layers.
pub fn layer_pieces(layers: u32, max: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..layers.div_ceil(max)).map(move |k| (k * max, max.min(layers - k * max)))
}

/// One dispatch of a submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// Update one colour of every system.
    Sweep(DispatchParams),
    /// Measure every system into a slot.
    Measure(DispatchParams),
    /// A tempering swap round after `sweep` on pairs of parity `colour`, from counts measured
    /// into the scratch slot `slot` (the first past the plan's own).
    Swap(DispatchParams),
    /// Cluster update `sweep` ([`Step::Cluster`]) of every system, recording its cluster sizes
    /// into slot `slot` ([`NO_SLOT`]: none): the backend launches its passes (bonds, labels,
    /// flips), at most [`CLUSTER_DISPATCHES`] of them.
    Cluster(DispatchParams),
}

/// A cluster update's `slot` where it records no cluster sizes.
pub const NO_SLOT: u32 = u32::MAX;

/// Most kernel launches of one cluster update, for the bound on a submission's dispatches.
pub const CLUSTER_DISPATCHES: usize = 4;

impl Dispatch {
    /// The parameters of this dispatch.
    pub fn params(&self) -> &DispatchParams {
        match self {
            Dispatch::Sweep(p)
            | Dispatch::Measure(p)
            | Dispatch::Swap(p)
            | Dispatch::Cluster(p) => p,
        }
    }

    /// This dispatch's piece of the layers from `first_layer` on ([`layer_pieces`]).
    pub fn from_layer(self, first_layer: u32) -> Self {
        let params = |p: DispatchParams| DispatchParams { first_layer, ..p };
        match self {
            Dispatch::Sweep(p) => Dispatch::Sweep(params(p)),
            Dispatch::Measure(p) => Dispatch::Measure(params(p)),
            Dispatch::Swap(p) => Dispatch::Swap(params(p)),
            Dispatch::Cluster(p) => Dispatch::Cluster(params(p)),
        }
    }
}

/// The swap round that the whole colour-1 update `dispatches[0]` can tally (the update that
/// multispin engines launch as the round's tally at zero field,
/// `engine::multispin::TALLY_RUNS`, so that the round needs no observables kernel):
/// the round after it with nothing but measurements between, which leave the spins as the
/// update did. Its offset in `dispatches` and its scratch slot.
pub fn swap_tally(dispatches: &[Dispatch]) -> Option<(usize, u32)> {
    match dispatches.first() {
        Some(Dispatch::Sweep(update)) if update.colour == 1 && update.threads == 0 => {}
        _ => return None,
    }
    let next = 1 + dispatches[1..]
        .iter()
        .take_while(|d| matches!(d, Dispatch::Measure(_)))
        .count();
    match dispatches.get(next) {
        Some(Dispatch::Swap(swap)) => Some((next, swap.slot)),
        _ => None,
    }
}

/// The slots measured up to the end of `dispatches`: one past the last slot they measure
/// (`None` where they measure none).
pub fn measured_slots(dispatches: &[Dispatch]) -> Option<u32> {
    dispatches
        .iter()
        .filter_map(|d| match d {
            Dispatch::Measure(params) => Some(params.slot + 1),
            _ => None,
        })
        .max()
}

/// Measurements a submission holds where its plan measures often: the engines reorder a
/// submission's measurements on the host while the device runs the next one, in parallel over
/// its slots (3D spin glass at L = 16, 65536 systems, 16 host cores: 1.6 ms a slot one at a
/// time, 0.42 ms sixteen at a time; in submissions of 16 sweeps, measured every 10, the device
/// waited for the host, +25% over plain sweeps where the measurements' kernels take 9%).
pub const READ_SLOTS: u64 = 8;

/// Submissions grow up to this many times their sweeps within the flip budget to hold
/// [`READ_SLOTS`] measurements.
const READ_BUDGETS: u64 = 8;

/// Sweeps per submission of `plan` (see [`submissions`]): about `flip_budget` site updates of
/// `flips_per_sweep` each, or more where that would hold fewer than [`READ_SLOTS`]
/// measurements, up to [`READ_BUDGETS`] times the budget.
pub fn sweeps_per_submission(plan: &Plan, flips_per_sweep: u64, flip_budget: u64) -> u64 {
    let budget = (flip_budget / flips_per_sweep.max(1)).max(1);
    match plan.slots {
        0 => budget,
        slots => {
            let per_slot = plan.sweeps().div_ceil(u64::from(slots));
            (per_slot * READ_SLOTS).clamp(budget, budget * READ_BUDGETS)
        }
    }
}

/// Split a plan into submissions of at most `max_dispatches` dispatches and roughly
/// `sweeps_per_submission` sweeps each (at least one sweep per submission), a sweep's
/// `sweep_passes` passes (its colours, [`crate::engine::ISING_PASSES`], but four on the
/// triangular lattice's multispin words) each a dispatch whose colour is the pass; a piece of a
/// sweep ([`Step::Part`]) is its pass's update restricted to the threads `part_threads` gives.
pub fn submissions(
    plan: &Plan,
    seed: u64,
    (systems, sweep_passes): (u32, u32),
    (max_dispatches, sweeps_per_submission): (usize, u64),
    part_threads: PartThreads,
) -> Vec<Vec<Dispatch>> {
    let base = DispatchParams::of_run(seed, systems);
    let mut out: Vec<Vec<Dispatch>> = vec![Vec::new()];
    let mut sweeps_in_current = 0;
    for step in &plan.steps {
        let needed = match step {
            // Replayed by the engine before the plan's dispatches.
            Step::Resample { .. } => continue,
            Step::Observe { .. } => unreachable!("refused by the engine: Plan::refuse_observe"),
            Step::ClusterPart { .. } => {
                unreachable!("refused by the engine: Plan::check_cluster_parts")
            }
            Step::Sweep { .. } => sweep_passes as usize,
            Step::Part { .. } => 1,
            Step::Cluster { .. } => CLUSTER_DISPATCHES,
            Step::Measure { .. } | Step::Swap { .. } => 1,
        };
        // A cluster update counts as a sweep: it reads and writes every spin.
        let sweep_like = matches!(
            step,
            Step::Sweep { .. } | Step::Part { .. } | Step::Cluster { .. }
        );
        let current = out.last().map_or(0, Vec::len);
        let full = current + needed > max_dispatches
            || (sweep_like && sweeps_in_current >= sweeps_per_submission);
        if full && current > 0 {
            out.push(Vec::new());
            sweeps_in_current = 0;
        }
        let submission = out
            .last_mut()
            .expect("there is always a current submission");
        match *step {
            Step::Resample { .. } => unreachable!("skipped above"),
            Step::Observe { .. } | Step::ClusterPart { .. } => unreachable!("refused above"),
            Step::Sweep { sweep } => {
                sweeps_in_current += 1;
                for colour in 0..sweep_passes {
                    submission.push(Dispatch::Sweep(DispatchParams {
                        sweep,
                        colour,
                        ..base
                    }));
                }
            }
            Step::Part {
                sweep,
                pass,
                planes: [first, end],
            } => {
                sweeps_in_current += 1;
                let threads = part_threads(pass, first..end);
                // An empty range would read as "every thread" (DispatchParams::threads 0).
                if !threads.is_empty() {
                    let params = DispatchParams {
                        sweep,
                        colour: pass,
                        ..base
                    };
                    submission.push(Dispatch::Sweep(params.planes(threads)));
                }
            }
            Step::Measure { slot } => {
                submission.push(Dispatch::Measure(DispatchParams { slot, ..base }));
            }
            Step::Swap { sweep, parity } => {
                submission.push(Dispatch::Swap(DispatchParams {
                    sweep,
                    colour: parity,
                    slot: plan.slots,
                    ..base
                }));
            }
            Step::Cluster { update, sizes } => {
                sweeps_in_current += 1;
                submission.push(Dispatch::Cluster(DispatchParams {
                    sweep: update,
                    slot: sizes.unwrap_or(NO_SLOT),
                    ..base
                }));
            }
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ISING_PASSES;

    /// A plan of 100 sweeps measured every `every`: submissions of 4 sweeps' flips grow to hold
    /// eight measurements, up to eight times their sweeps.
    #[test]
    fn submissions_grow_to_hold_several_measurements() {
        let plan = |every: u32| {
            let mut plan = Plan::default();
            for sweep in 0..100 {
                plan.sweep(sweep);
                if sweep % every == every - 1 {
                    plan.measure();
                }
            }
            plan
        };
        assert_eq!(sweeps_per_submission(&plan(2), 10, 40), 16);
        assert_eq!(sweeps_per_submission(&plan(1), 10, 40), 8);
        assert_eq!(sweeps_per_submission(&plan(10), 10, 40), 32, "capped");
        assert_eq!(sweeps_per_submission(&Plan::default(), 10, 40), 4);
        assert_eq!(
            sweeps_per_submission(&plan(1), 1000, 40),
            8,
            "sweeps over the budget: one a submission, grown eightfold"
        );
    }

    #[test]
    fn submissions_are_bounded_and_keep_order() {
        let mut plan = Plan::default();
        for sweep in 0..10 {
            plan.sweep(sweep);
            if sweep % 3 == 2 {
                plan.measure();
            }
        }
        let subs = submissions(&plan, 0x1_0000_0002, (4, ISING_PASSES), (5, 100), &|_, p| p);
        assert!(subs.iter().all(|s| s.len() <= 5 && !s.is_empty()));
        let flat: Vec<Dispatch> = subs.concat();
        assert_eq!(flat.len(), 2 * 10 + 3);
        assert_eq!(flat[0].params().seed_lo, 2);
        assert_eq!(flat[0].params().seed_hi, 1);
        assert_eq!(
            flat[6],
            Dispatch::Measure(DispatchParams {
                slot: 0,
                ..*flat[0].params()
            })
        );
        let by_sweeps = submissions(&plan, 0, (4, ISING_PASSES), (1000, 4), &|_, p| p);
        assert_eq!(by_sweeps.len(), 3);
    }

    /// A piece of a sweep is its pass's update on the piece's threads; an empty piece launches
    /// nothing, and a piece of colour 1 tallies no round.
    #[test]
    fn pieces_of_sweeps_are_updates_of_their_threads() {
        let mut plan = Plan::default();
        plan.part(7, 1, 2..5);
        plan.part(7, 1, 5..5);
        plan.swap(7, 0);
        let threads = |pass: u32, planes: Range<u32>| 10 * planes.start + pass..10 * planes.end;
        let d = submissions(&plan, 0, (4, ISING_PASSES), (1000, 100), &threads).concat();
        let piece = DispatchParams {
            sweep: 7,
            colour: 1,
            systems: 4,
            first_thread: 21,
            threads: 29,
            ..DispatchParams::default()
        };
        assert_eq!(d[0], Dispatch::Sweep(piece));
        assert_eq!(d.len(), 2, "the empty piece launches nothing");
        assert_eq!(swap_tally(&d), None);
    }

    /// A colour-1 update tallies the round after it across measurements, not across another
    /// round or a colour-0 update.
    #[test]
    fn tallies_reach_the_round_across_measurements_only() {
        let mut plan = Plan::default();
        plan.sweep(0);
        plan.measure();
        plan.swap(0, 0);
        plan.sweep(1);
        plan.swap(1, 1);
        plan.swap(1, 0);
        plan.sweep(2);
        let d = submissions(&plan, 0, (4, ISING_PASSES), (1000, 100), &|_, p| p).concat();
        let scratch = plan.slots;
        assert_eq!(
            swap_tally(&d[1..]),
            Some((2, scratch)),
            "across a measurement"
        );
        assert_eq!(swap_tally(&d[0..]), None, "a colour-0 update");
        assert_eq!(
            swap_tally(&d[5..]),
            Some((1, scratch)),
            "the round right after"
        );
        assert_eq!(swap_tally(&d[6..]), None, "a round");
        assert_eq!(swap_tally(&d[9..]), None, "nothing after");
        assert_eq!(swap_tally(&[]), None);
    }
}

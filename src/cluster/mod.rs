//! Cluster updates on the host: Swendsen-Wang and Wolff for the Ising ferromagnet
//! (`algorithm: Clusters`), mixed with Metropolis sweeps in a fixed ratio. The loop is that of
//! the sweeps ([`crate::metropolis`]), whose schedule ([`crate::metropolis::Schedule`]) makes
//! each of its steps `clusters` cluster updates ([`crate::engine::Step::Cluster`]) and then
//! `metropolis` sweeps; this home holds what the loop needs besides: the numbering of the updates
//! and sweeps of a step ([`StepCounters`]), the loop's positions inside a step and the pieces
//! of its plans ([`StepUnits`]), the checks of a config ([`checks`]), the improved
//! estimators from the cluster sizes ([`estimators`]), and a plain reference of the partition
//! ([`reference`]) that the engines' labelling is tested against.
//!
//! How every random word of an update is keyed, and what the engines record, is the engine
//! contract's ([`crate::engine::clusters`]); the kernels are `cluster_bonds`, `cluster_label`
//! and `cluster_flip` (WGSL, CUDA and their CPU twins in `engine/cpu/`), the CPU's Wolff growth
//! `engine/cpu/cluster_wolff.rs`.

pub(crate) mod checks;
pub mod estimators;
pub mod reference;

pub use estimators::{ClusterEstimates, cluster_estimates};

use std::ops::Range;

use crate::config::ClusterOptions;
use crate::engine::{CLUSTER_PASSES, ISING_PASSES, Plan};
use crate::stop::Stops;

/// The numbers that key the cluster updates and sweeps of a step: step `s` makes cluster
/// updates `s C .. s C + C - 1`, then sweeps `s M .. s M + M - 1` (`C` clusters, `M` sweeps per
/// step), so cluster updates count apart from sweeps and a run of sweeps alone (`M = 1`, no
/// clusters) keeps the keys of `algorithm: Metropolis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepCounters {
    pub clusters: u32,
    pub metropolis: u32,
}

impl From<ClusterOptions> for StepCounters {
    fn from(options: ClusterOptions) -> Self {
        StepCounters {
            clusters: options.clusters,
            metropolis: options.metropolis,
        }
    }
}

impl StepCounters {
    /// The cluster updates of step `step`.
    pub fn updates(&self, step: u64) -> std::ops::Range<u32> {
        Self::range(step, self.clusters)
    }

    /// The Metropolis sweeps of step `step`.
    pub fn sweeps(&self, step: u64) -> std::ops::Range<u32> {
        Self::range(step, self.metropolis)
    }

    /// Numbers `step per .. step per + per`; a validated run stays below 2^32
    /// ([`checks::validate_clusters`]).
    fn range(step: u64, per: u32) -> std::ops::Range<u32> {
        let first = step * u64::from(per);
        let first = u32::try_from(first).expect("a validated run numbers its updates in 32 bits");
        first..first + per
    }
}

/// The loop's position inside a step, in units: each cluster update is [`CLUSTER_PASSES`]
/// `planes` units, a pass over a plane each ([`crate::engine::Step::ClusterPart`]: the labelling,
/// then the roots and flips), then each Metropolis sweep
/// [`ISING_PASSES`] `planes` units, a pass over a plane each ([`crate::engine::Step::Part`]).
/// Plans end inside an update only where the engine makes pieces of updates
/// ([`crate::engine::Clusters::update_parts`]); a checkpoint there holds the update's start
/// (its lattices are those before the update), from which the resumed run labels it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepUnits {
    pub counters: StepCounters,
    /// Planes of the lattice's slowest axis.
    pub planes: u32,
    /// Whether the engine makes pieces of updates.
    pub update_parts: bool,
}

impl StepUnits {
    /// Units of one step.
    pub fn per_step(&self) -> u64 {
        self.updates_end() + u64::from(self.counters.metropolis) * self.per_sweep()
    }

    fn per_update(&self) -> u64 {
        u64::from(CLUSTER_PASSES * self.planes)
    }

    fn per_sweep(&self) -> u64 {
        u64::from(ISING_PASSES * self.planes)
    }

    /// The unit of a step where its updates end and its sweeps begin.
    fn updates_end(&self) -> u64 {
        u64::from(self.counters.clusters) * self.per_update()
    }

    /// The updates of a step done after `units` of it.
    pub fn updates_done(&self, units: u64) -> u32 {
        (units / self.per_update()).min(u64::from(self.counters.clusters)) as u32
    }

    /// The end of the plan from unit `from` that `stops` paces, `end` at the latest: where it
    /// falls inside an update the engine does not cut, that update's end.
    pub fn plan_end(&self, stops: &Stops, from: u64, end: u64) -> u64 {
        let to = stops.plan_end(from, end);
        let within = to % self.per_step();
        match self.update_parts || within >= self.updates_end() {
            true => to,
            false => (to - within + within.next_multiple_of(self.per_update())).min(end),
        }
    }

    /// Where a checkpoint at unit `units` of a step resumes: inside an update at its start
    /// (the labelling done is given up), elsewhere there.
    pub fn resumable(&self, units: u64) -> u64 {
        match units < self.updates_end() {
            true => units - units % self.per_update(),
            false => units,
        }
    }

    /// Append units `units` of step `step`: its updates (recording where `record`) and sweeps
    /// whole where the units hold all of them, else their pieces.
    pub fn append(&self, plan: &mut Plan, step: u64, record: bool, units: Range<u64>) {
        let update_starts = (0..).map(|k| k * self.per_update());
        for (update, start) in self.counters.updates(step).zip(update_starts) {
            let within = clip(&units, start, self.per_update());
            if !within.is_empty() {
                plan.cluster_units(update, record, self.planes, within);
            }
        }
        let sweep_starts = (0..).map(|k| self.updates_end() + k * self.per_sweep());
        for (sweep, start) in self.counters.sweeps(step).zip(sweep_starts) {
            let within = clip(&units, start, self.per_sweep());
            if !within.is_empty() {
                plan.sweep_units(sweep, (ISING_PASSES, self.planes), within);
            }
        }
    }
}

/// The part of `units` inside `start .. start + len`, counted from `start`.
fn clip(units: &Range<u64>, start: u64, len: u64) -> Range<u64> {
    let end = start + len;
    let first = units.start.clamp(start, end) - start;
    first..(units.end.clamp(start, end) - start).max(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Step::{self, *};

    fn units(update_parts: bool) -> StepUnits {
        StepUnits {
            counters: StepCounters {
                clusters: 2,
                metropolis: 1,
            },
            planes: 4,
            update_parts,
        }
    }

    fn appended(units: StepUnits, record: bool, range: Range<u64>) -> Vec<Step> {
        let mut plan = Plan::default();
        units.append(&mut plan, 3, record, range);
        plan.steps
    }

    /// A step of two updates of 8 units (two passes over 4 planes) and a sweep of 8: whole
    /// where a plan holds them, else pieces of passes of an update, or of the sweep.
    #[test]
    fn units_of_a_step_are_updates_and_sweeps_or_their_pieces() {
        let steps = units(true);
        assert_eq!(steps.per_step(), 24);
        let part = |update, pass, first, end| ClusterPart {
            update,
            sizes: None,
            pass,
            planes: [first, end],
        };
        let whole = |update| Cluster {
            update,
            sizes: None,
        };
        assert_eq!(
            appended(steps, false, 0..24),
            vec![whole(6), whole(7), Sweep { sweep: 3 }]
        );
        assert_eq!(appended(steps, false, 1..3), vec![part(6, 0, 1, 3)]);
        assert_eq!(
            appended(steps, false, 3..18),
            vec![
                part(6, 0, 3, 4),
                part(6, 1, 0, 4),
                whole(7),
                Part {
                    sweep: 3,
                    pass: 0,
                    planes: [0, 2]
                }
            ]
        );
        let recorded = appended(steps, true, 13..16);
        assert_eq!(
            recorded,
            vec![ClusterPart {
                update: 7,
                sizes: Some(0),
                pass: 1,
                planes: [1, 4]
            }]
        );
        assert!(appended(steps, false, 8..8).is_empty());
        assert_eq!(
            [0, 7, 8, 15, 16, 23].map(|u| steps.updates_done(u)),
            [0, 0, 1, 1, 2, 2]
        );
    }

    /// Plans end inside an update only on an engine that cuts updates; checkpoints inside one
    /// resume at its start, inside a sweep where they are.
    #[test]
    fn plans_and_checkpoints_inside_updates() {
        let mut stops = Stops::new(None);
        stops.plan_took(1, std::time::Duration::from_millis(400));
        // Two units fit in a plan.
        assert_eq!(units(true).plan_end(&stops, 24, 72), 26);
        assert_eq!(
            units(false).plan_end(&stops, 24, 72),
            32,
            "the update's end"
        );
        assert_eq!(
            units(false).plan_end(&stops, 24, 25),
            25,
            "the loop's end first"
        );
        assert_eq!(
            units(false).plan_end(&stops, 40, 72),
            42,
            "inside the sweep"
        );
        let steps = units(true);
        assert_eq!(
            [0, 3, 8, 15, 16, 17, 23].map(|u| steps.resumable(u)),
            [0, 0, 8, 8, 16, 17, 23]
        );
    }

    #[test]
    fn steps_number_their_updates_and_sweeps_apart() {
        let counters = StepCounters {
            clusters: 3,
            metropolis: 2,
        };
        assert_eq!(counters.updates(0), 0..3);
        assert_eq!(counters.updates(5), 15..18);
        assert_eq!(counters.sweeps(5), 10..12);
        let alone = StepCounters {
            clusters: 1,
            metropolis: 0,
        };
        assert!(alone.sweeps(7).is_empty());
        assert_eq!(alone.updates(7), 7..8);
    }
}

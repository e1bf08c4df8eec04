//! When to sweep, swap and measure: the only place that knows the run's phases.

use std::ops::Range;

use crate::cluster::{StepCounters, StepUnits};
use crate::config::{ClusterOptions, Config, Sweeps};
use crate::engine::memory::{plan_slots, slot_bytes};
use crate::engine::{ISING_PASSES, Plan, SweepCut, unit_runs};
use crate::model::ising::IsingSystems;
use crate::stop::Stops;

/// The sweep schedule of a run: `thermalize` sweeps, then `measure` sweeps with a measurement
/// after every `every`-th of them; with parallel tempering a swap round after every
/// `swap_every`-th sweep of both phases (after a measurement that follows the same sweep, so
/// that the measurement finds the spins the sweep left, whose satisfied bonds the round's counts
/// may already hold), even pairs in the first round, odd in the second, and so on.
///
/// With cluster updates (`clusters`, `algorithm: Clusters`) the schedule counts steps instead
/// of sweeps: each step is its cluster updates, then its Metropolis sweeps, numbered as
/// [`StepCounters`] says; a measured step's cluster updates record their cluster sizes into its
/// measurement. The loop's positions count units of a sweep or step ([`Cut`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    pub thermalize: u64,
    pub measure: u64,
    pub every: u64,
    pub swap_every: Option<u64>,
    pub clusters: Option<ClusterOptions>,
}

impl From<&Sweeps> for Schedule {
    fn from(s: &Sweeps) -> Self {
        Schedule {
            thermalize: s.thermalize,
            measure: s.measure,
            every: s.every,
            swap_every: None,
            clusters: None,
        }
    }
}

impl From<&Config> for Schedule {
    fn from(config: &Config) -> Self {
        Schedule {
            swap_every: config.algorithm.swap_every(),
            clusters: config.algorithm.clusters(),
            ..Schedule::from(&config.sweeps)
        }
    }
}

impl Schedule {
    /// All sweeps of the run.
    pub fn total(&self) -> u64 {
        self.thermalize + self.measure
    }

    /// Measurements are taken every `every` sweeps on a grid that ends the thermalisation
    /// (`thermalize - 1 + j every`), through both phases: those during thermalisation show it
    /// (and feed the equilibration checks); only the later ones enter the estimates. This is
    /// the first sweep (0-based) of the grid.
    fn first_measured_sweep(&self) -> u64 {
        (self.thermalize + self.every - 1) % self.every
    }

    /// Whether a measurement follows sweep `sweep` (0-based).
    pub fn measures_after(&self, sweep: u64) -> bool {
        sweep % self.every == self.first_measured_sweep()
    }

    /// The sweep after which measurement `m` is taken (0-based).
    pub fn sweep_of_measurement(&self, m: u64) -> u64 {
        self.first_measured_sweep() + m * self.every
    }

    /// Number of measurements taken before sweep `sweep`.
    pub fn measurements_before(&self, sweep: u64) -> u64 {
        (sweep + self.every - 1 - self.first_measured_sweep()) / self.every
    }

    /// Measurements of the thermalisation, which come first in the series.
    pub fn thermalization_measurements(&self) -> u64 {
        self.measurements_before(self.thermalize)
    }

    /// The plan in words, for the line a run starts with.
    pub fn describe(&self) -> String {
        let swaps = self.swap_every.map_or(String::new(), |n| {
            format!("; a swap round every {n} sweeps")
        });
        let (unit, steps) = match self.clusters {
            None => ("sweeps", String::new()),
            Some(c) => (
                "steps",
                format!(
                    "; a step is {} {:?} update{} then {} Metropolis sweep{}",
                    c.clusters,
                    c.update,
                    if c.clusters == 1 { "" } else { "s" },
                    c.metropolis,
                    if c.metropolis == 1 { "" } else { "s" }
                ),
            ),
        };
        format!(
            "{} {unit} thermalising, then {} measuring, a measurement every {} ({} in all){swaps}{steps}",
            self.thermalize,
            self.measure,
            self.every,
            self.measurements_before(self.total()) - self.thermalization_measurements()
        )
    }

    /// Swap rounds completed after `sweeps` sweeps.
    pub fn swap_rounds(&self, sweeps: u64) -> u64 {
        self.swap_every.map_or(0, |every| sweeps / every)
    }

    /// Most sweeps one plan of `systems` holds: a bounded number of measurements and of bytes
    /// of them, and at most `max_slots` slots (the engine's limit,
    /// [`crate::engine::Engine::max_plan_slots`]). Runs and benchmarks split their sweeps into
    /// plans no longer than this.
    pub fn most_sweeps_per_plan(&self, systems: &IsingSystems, max_slots: u64) -> u64 {
        let slots = plan_slots(slot_bytes(systems, self.clusters.is_some()));
        slots.min(max_slots).max(1).saturating_mul(self.every)
    }

    /// The plan of sweeps (steps, with clusters) `from .. to`.
    pub fn plan(&self, from: u64, to: u64) -> Plan {
        let mut plan = Plan::default();
        for sweep in from..to {
            let measured = self.measures_after(sweep);
            match self.clusters.map(StepCounters::from) {
                None => plan.sweep(sweep as u32),
                Some(counters) => {
                    for update in counters.updates(sweep) {
                        plan.cluster(update, measured);
                    }
                    for sweep in counters.sweeps(sweep) {
                        plan.sweep(sweep);
                    }
                }
            }
            self.end_sweep(&mut plan, sweep);
        }
        plan
    }

    /// Append what follows sweep (step) `sweep`: its measurement, and the swap round after it.
    fn end_sweep(&self, plan: &mut Plan, sweep: u64) {
        if self.measures_after(sweep) {
            plan.measure();
        }
        let rounds = self.swap_rounds(sweep + 1);
        if rounds > self.swap_rounds(sweep) {
            plan.swap(sweep as u32, ((rounds - 1) % 2) as u32);
        }
    }

    /// How the loop on an engine that makes pieces of sweeps (`sweep_parts`) and of cluster
    /// updates (`update_parts`) counts its positions on lattices of `planes` planes.
    pub fn cut(&self, planes: u32, sweep_parts: bool, update_parts: bool) -> Cut {
        match self.clusters {
            None => Cut::Sweeps(SweepCut::new(sweep_parts.then_some((ISING_PASSES, planes)))),
            Some(options) => Cut::Steps(StepUnits {
                counters: options.into(),
                planes,
                update_parts,
            }),
        }
    }

    /// The plan of units `from .. to` of a run with cluster updates, its steps counted in
    /// `units`: the units of each step it reaches ([`StepUnits::append`]), then, after each
    /// step it ends, its measurement.
    pub fn plan_step_units(&self, units: &StepUnits, from: u64, to: u64) -> Plan {
        let per_step = units.per_step();
        let mut plan = Plan::default();
        for (step, within) in unit_runs(per_step, from..to) {
            let ends = within.end == per_step;
            units.append(&mut plan, step, self.measures_after(step), within);
            if ends {
                self.end_sweep(&mut plan, step);
            }
        }
        plan
    }

    /// The plan of units `units` of sweep `sweep` of a run without cluster updates, whose sweeps
    /// are cut into `(passes, planes)` units ([`Plan::sweep_units`]): those units, then, where
    /// they end the sweep, the measurement and the swap round after it.
    pub fn plan_units(&self, sweep: u64, (passes, planes): (u32, u32), units: Range<u64>) -> Plan {
        let mut plan = Plan::default();
        plan.sweep_units(sweep as u32, (passes, planes), units.clone());
        if units.end == u64::from(passes) * u64::from(planes) {
            let whole = self.plan(sweep, sweep + 1);
            plan.steps.extend(whole.steps.into_iter().skip(1));
            plan.slots = whole.slots;
        }
        plan
    }
}

/// How a run's loop counts its positions: in units of a sweep without cluster updates (passes
/// over a plane where the engine cuts sweeps, [`SweepCut`]), in units of a step with them
/// ([`StepUnits`]). A position is `sweeps (steps) done * units a sweep (step) + units done`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    Sweeps(SweepCut),
    Steps(StepUnits),
}

impl Cut {
    /// Units of a sweep (step).
    pub fn units(&self) -> u64 {
        match self {
            Cut::Sweeps(cut) => cut.units,
            Cut::Steps(units) => units.per_step(),
        }
    }

    /// The position of `units` units after `sweeps` sweeps (steps).
    pub fn position(&self, sweeps: u64, units: u64) -> u64 {
        sweeps * self.units() + units
    }

    /// The end of the plan from unit `from` that `stops` paces, `end` (a sweep's or step's end)
    /// at the latest.
    pub fn plan_end(&self, stops: &Stops, from: u64, end: u64) -> u64 {
        match self {
            Cut::Sweeps(cut) => stops.piece_end(from, end, cut.units),
            Cut::Steps(units) => units.plan_end(stops, from, end),
        }
    }

    /// The plan of units `from .. to` of `schedule`.
    pub fn plan(&self, schedule: &Schedule, from: u64, to: u64) -> Plan {
        match self {
            Cut::Sweeps(cut) => match cut.pieces_of(from, to) {
                Some((pieces, sweep, units)) => schedule.plan_units(sweep, pieces, units),
                None => schedule.plan(from / cut.units, to / cut.units),
            },
            Cut::Steps(units) => schedule.plan_step_units(units, from, to),
        }
    }

    /// The units of a sweep (step) where a checkpoint written after `units` of it resumes
    /// ([`StepUnits::resumable`]).
    pub fn resumable(&self, units: u64) -> u64 {
        match self {
            Cut::Sweeps(_) => units,
            Cut::Steps(steps) => steps.resumable(units),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Lattice;

    /// 3D EA at L = 16, 32 temperatures, two replicas of 1024 samples (the tempering bench):
    /// 5 MiB of measurements a slot, so plans of 204 slots; fewer where the engine says so.
    #[test]
    fn plans_hold_a_bounded_size_of_measurements() {
        let betas = (0..32).map(|k| 0.3 + 0.02 * f64::from(k)).collect();
        let systems = IsingSystems::spin_glass(Lattice::new(3, 16), 0.0, betas, 1024, 2, 1);
        let schedule = Schedule {
            thermalize: 0,
            measure: 1 << 20,
            every: 10,
            swap_every: Some(1),
            clusters: None,
        };
        assert_eq!(schedule.most_sweeps_per_plan(&systems, u64::MAX), 2040);
        assert_eq!(schedule.most_sweeps_per_plan(&systems, 127), 1270);
        assert_eq!(
            schedule.most_sweeps_per_plan(&systems, 0),
            10,
            "one slot at least"
        );
    }

    #[test]
    fn plans_concatenate_to_the_whole_schedule() {
        let s = Schedule {
            thermalize: 5,
            measure: 20,
            every: 3,
            swap_every: None,
            clusters: None,
        };
        let whole = s.plan(0, s.total());
        // Sweeps 1 and 4 (thermalisation), then 7, 10, ..., 22: after every 3rd from the 5th.
        assert_eq!(whole.slots, 8);
        assert_eq!(s.thermalization_measurements(), 2);
        let (a, b) = (s.plan(0, 11), s.plan(11, s.total()));
        assert_eq!(a.slots + b.slots, whole.slots);
        assert_eq!(s.measurements_before(11), u64::from(a.slots));
        assert_eq!(s.sweep_of_measurement(0), 1);
        assert_eq!(s.sweep_of_measurement(2), 7);
        assert!(s.measures_after(7) && !s.measures_after(8) && s.measures_after(4));
        for sweep in 0..=s.total() {
            let measured = (0..sweep).filter(|&w| s.measures_after(w)).count() as u64;
            assert_eq!(
                s.measurements_before(sweep),
                measured,
                "before sweep {sweep}"
            );
        }
        let aligned = Schedule { thermalize: 0, ..s };
        assert_eq!(aligned.thermalization_measurements(), 0);
        assert_eq!(aligned.sweep_of_measurement(0), 2);
    }

    #[test]
    fn cluster_steps_update_then_sweep_and_record_into_their_measurement() {
        use crate::config::ClusterUpdate;
        use crate::engine::Step::*;
        let s = Schedule {
            thermalize: 1,
            measure: 2,
            every: 2,
            swap_every: None,
            clusters: Some(ClusterOptions {
                update: ClusterUpdate::SwendsenWang,
                clusters: 2,
                metropolis: 1,
            }),
        };
        // Measurements after steps 0 and 2 (the grid that ends the thermalisation).
        let cluster = |update, sizes| Cluster { update, sizes };
        assert_eq!(
            s.plan(0, s.total()).steps,
            vec![
                cluster(0, Some(0)),
                cluster(1, Some(0)),
                Sweep { sweep: 0 },
                Measure { slot: 0 },
                cluster(2, None),
                cluster(3, None),
                Sweep { sweep: 1 },
                cluster(4, Some(1)),
                cluster(5, Some(1)),
                Sweep { sweep: 2 },
                Measure { slot: 1 },
            ]
        );
        assert!(
            s.describe()
                .contains("a step is 2 SwendsenWang updates then 1 Metropolis sweep")
        );
        // Units of whole steps plan the whole steps.
        let Cut::Steps(units) = s.cut(4, true, true) else {
            panic!("a cut of steps")
        };
        assert_eq!(units.per_step(), 24);
        assert_eq!(s.plan_step_units(&units, 0, 72), s.plan(0, s.total()));
        // A plan ending inside the measured step 2 records its updates into the slot after
        // its own, which the plan of the rest measures.
        let (head, tail) = (
            s.plan_step_units(&units, 24, 58),
            s.plan_step_units(&units, 58, 72),
        );
        assert_eq!((head.slots, head.size_slots()), (0, 1));
        assert_eq!(
            head.steps[3..],
            [
                cluster(4, Some(0)),
                ClusterPart {
                    update: 5,
                    sizes: Some(0),
                    pass: 0,
                    planes: [0, 2]
                }
            ]
        );
        assert_eq!((tail.slots, tail.size_slots()), (1, 1));
        assert_eq!(tail.steps.last(), Some(&Measure { slot: 0 }));
    }

    #[test]
    fn swap_rounds_alternate_parity_and_follow_measurements() {
        let s = Schedule {
            thermalize: 2,
            measure: 4,
            every: 2,
            swap_every: Some(2),
            clusters: None,
        };
        use crate::engine::Step::*;
        assert_eq!(
            s.plan(0, s.total()).steps,
            vec![
                Sweep { sweep: 0 },
                Sweep { sweep: 1 },
                Measure { slot: 0 },
                Swap {
                    sweep: 1,
                    parity: 0
                },
                Sweep { sweep: 2 },
                Sweep { sweep: 3 },
                Measure { slot: 1 },
                Swap {
                    sweep: 3,
                    parity: 1
                },
                Sweep { sweep: 4 },
                Sweep { sweep: 5 },
                Measure { slot: 2 },
                Swap {
                    sweep: 5,
                    parity: 0
                },
            ]
        );
        assert_eq!(
            s.plan(3, 6).steps[2],
            Swap {
                sweep: 3,
                parity: 1
            }
        );
        assert_eq!(s.swap_rounds(5), 2);
    }
}

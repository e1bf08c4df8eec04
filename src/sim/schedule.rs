//! When to sweep and when to measure: the only place that knows the run's phases.

use crate::config::Sweeps;
use crate::engine::Plan;

/// The sweep schedule of a run: `thermalize` sweeps, then `measure` sweeps with a measurement
/// after every `every`-th of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    pub thermalize: u64,
    pub measure: u64,
    pub every: u64,
}

impl From<&Sweeps> for Schedule {
    fn from(s: &Sweeps) -> Self {
        Schedule {
            thermalize: s.thermalize,
            measure: s.measure,
            every: s.every,
        }
    }
}

impl Schedule {
    /// All sweeps of the run.
    pub fn total(&self) -> u64 {
        self.thermalize + self.measure
    }

    /// Whether a measurement follows sweep `sweep` (0-based).
    pub fn measures_after(&self, sweep: u64) -> bool {
        sweep >= self.thermalize && (sweep - self.thermalize + 1).is_multiple_of(self.every)
    }

    /// The sweep after which measurement `m` is taken (0-based).
    pub fn sweep_of_measurement(&self, m: u64) -> u64 {
        self.thermalize + (m + 1) * self.every - 1
    }

    /// Number of measurements taken before sweep `sweep`.
    pub fn measurements_before(&self, sweep: u64) -> u64 {
        sweep.saturating_sub(self.thermalize) / self.every
    }

    /// The plan of sweeps `from .. to`.
    pub fn plan(&self, from: u64, to: u64) -> Plan {
        let mut plan = Plan::default();
        for sweep in from..to {
            plan.sweep(sweep as u32);
            if self.measures_after(sweep) {
                plan.measure();
            }
        }
        plan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_concatenate_to_the_whole_schedule() {
        let s = Schedule {
            thermalize: 5,
            measure: 20,
            every: 3,
        };
        let whole = s.plan(0, s.total());
        assert_eq!(whole.slots, 6);
        let (a, b) = (s.plan(0, 11), s.plan(11, s.total()));
        assert_eq!(a.slots + b.slots, whole.slots);
        assert_eq!(s.measurements_before(11), u64::from(a.slots));
        assert_eq!(s.sweep_of_measurement(0), 7);
        assert!(s.measures_after(7) && !s.measures_after(8));
    }
}

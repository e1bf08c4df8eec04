//! Cluster updates on the host: Swendsen-Wang and Wolff for the Ising ferromagnet
//! (`algorithm: Clusters`), mixed with Metropolis sweeps in a fixed ratio. The loop is that of
//! the sweeps ([`crate::metropolis`]), whose schedule ([`crate::metropolis::Schedule`]) makes
//! each of its steps `clusters` cluster updates ([`crate::engine::Step::Cluster`]) and then
//! `metropolis` sweeps; this home holds what the loop needs besides: the numbering of the updates
//! and sweeps of a step ([`StepCounters`]), the checks of a config ([`checks`]), the improved
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

use crate::config::ClusterOptions;

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

#[cfg(test)]
mod tests {
    use super::*;

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

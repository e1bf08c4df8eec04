//! The Monte Carlo algorithm around the sweeps: Metropolis, parallel tempering, population
//! annealing or cluster updates, and the sweep schedule.

use serde::{Deserialize, Serialize};

/// The Monte Carlo algorithm around the Metropolis sweeps.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Algorithm {
    /// Metropolis sweeps at fixed temperatures.
    #[default]
    Metropolis,
    /// Parallel tempering: after every `every` sweeps a swap round between neighbour
    /// temperatures of each chain (replica) of each sample, even and odd pairs alternately.
    /// With `tune`, the inner temperatures of a generated ladder move towards equal swap
    /// acceptance during the first half of the thermalisation; then the ladder is frozen.
    /// `moves` adds replica cluster moves after every sweep (a spin glass's replica pairs).
    Tempering {
        every: u64,
        #[serde(default, skip_serializing_if = "is_false")]
        tune: bool,
        #[serde(default, skip_serializing_if = "ReplicaMoves::is_none")]
        moves: ReplicaMoves,
    },
    /// Population annealing (Barash et al. 2017): `replicas` is the population size R; the fields
    /// are those of [`AnnealingOptions`].
    Annealing {
        theta: u32,
        schedule: AnnealingSchedule,
        #[serde(default, skip_serializing_if = "Resampling::is_default")]
        resampling: Resampling,
        #[serde(default = "one", skip_serializing_if = "is_one")]
        runs: u32,
        #[serde(default, skip_serializing_if = "is_false")]
        overlaps: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reweighting: Option<u32>,
    },
    /// Cluster updates of the Ising and Potts ferromagnets (zero field), alone or mixed with
    /// Metropolis sweeps in a fixed ratio: each step of the schedule (what `sweeps:` counts) is `clusters`
    /// cluster updates of kind `update`, then `metropolis` Metropolis sweeps; the fields are
    /// those of [`ClusterOptions`].
    Clusters {
        update: ClusterUpdate,
        #[serde(default = "one", skip_serializing_if = "is_one")]
        clusters: u32,
        #[serde(default, skip_serializing_if = "is_zero")]
        metropolis: u32,
    },
}

/// Which cluster update `algorithm: Clusters` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClusterUpdate {
    /// Swendsen-Wang (PRL 58, 86 (1987)): bonds between equal neighbours are activated with
    /// probability `1 - exp(-2 beta)` (Potts: `1 - exp(-beta)`), and every connected cluster
    /// flips with probability 1/2 (Potts: takes a state drawn among the `q`).
    SwendsenWang,
    /// Wolff (PRL 62, 361 (1989)): the one cluster of those bonds that holds a random seed
    /// site flips (Potts: moves to one of the other `q - 1` states).
    Wolff,
}

/// Replica cluster moves inside parallel tempering (`Tempering(moves: ..)`): each pair of
/// replicas of one sample at one temperature (replica `r` with `r + replicas/2`, the overlap's
/// pairs) builds the clusters of the neighbouring sites where the two disagree and swaps one of
/// them, grown from a random disagreeing site, between the two; at zero field with two states
/// a cluster of the sites where they agree flips in both instead where agreement is the rarer
/// ([`crate::engine::clusters::PairMoves`]). The move keeps the pair's total energy, so it is
/// rejection-free; it runs on the vector engines' discrete states (an Ising glass runs there
/// when it has moves).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ReplicaMoves {
    /// No replica moves (the default).
    #[default]
    None,
    /// Houdayer's move (EPJ B 22, 479 (2001)) at every temperature, `per_sweep` moves of every
    /// pair after each sweep: the 2D glass, whose clusters of disagreement stay below
    /// percolation.
    Houdayer {
        #[serde(default = "one", skip_serializing_if = "is_one")]
        per_sweep: u32,
    },
    /// Zhu, Ochoa and Katzgraber's isoenergetic cluster moves (PRL 115, 077201 (2015)): the
    /// same move at the temperatures `T <= below` only, where the clusters of disagreement do
    /// not percolate (the 3D glass); `per_sweep` moves after each sweep.
    Isoenergetic {
        #[serde(default = "one", skip_serializing_if = "is_one")]
        per_sweep: u32,
        below: f64,
    },
}

impl ReplicaMoves {
    /// Whether there are no moves (left out of the resolved config).
    pub fn is_none(&self) -> bool {
        *self == ReplicaMoves::None
    }

    /// Moves of every replica pair after each sweep.
    pub fn per_sweep(&self) -> u32 {
        match *self {
            ReplicaMoves::None => 0,
            ReplicaMoves::Houdayer { per_sweep } | ReplicaMoves::Isoenergetic { per_sweep, .. } => {
                per_sweep
            }
        }
    }

    /// Whether the moves act at inverse temperature `beta`: every one for Houdayer's, `1 / beta
    /// <= below` for the isoenergetic moves.
    pub fn acts_at(&self, beta: f64) -> bool {
        match *self {
            ReplicaMoves::None => false,
            ReplicaMoves::Houdayer { .. } => true,
            ReplicaMoves::Isoenergetic { below, .. } => beta * below >= 1.0,
        }
    }
}

/// Cluster updates and Metropolis sweeps in a fixed ratio (`algorithm: Clusters`): one step of
/// the schedule is `clusters` cluster updates, then `metropolis` sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterOptions {
    pub update: ClusterUpdate,
    /// Cluster updates per step (at least 1).
    pub clusters: u32,
    /// Metropolis sweeps per step after its cluster updates (0: cluster updates alone).
    pub metropolis: u32,
}

/// The serde default of counts that are one unless given (`samples`, `runs`).
pub(super) fn one() -> u32 {
    1
}

fn is_one(value: &u32) -> bool {
    *value == 1
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl Algorithm {
    pub(super) fn is_metropolis(&self) -> bool {
        *self == Algorithm::Metropolis
    }

    /// Whether the ladder is tuned during thermalisation.
    pub fn tunes(&self) -> bool {
        matches!(self, Algorithm::Tempering { tune: true, .. })
    }

    /// Sweeps between swap rounds, `None` without tempering.
    pub fn swap_every(&self) -> Option<u64> {
        match *self {
            Algorithm::Tempering { every, .. } => Some(every),
            Algorithm::Metropolis | Algorithm::Annealing { .. } | Algorithm::Clusters { .. } => {
                None
            }
        }
    }

    /// The replica cluster moves of parallel tempering; none for the other algorithms.
    pub fn replica_moves(&self) -> ReplicaMoves {
        match *self {
            Algorithm::Tempering { moves, .. } => moves,
            _ => ReplicaMoves::None,
        }
    }

    /// The cluster updates' options, `None` for the other algorithms.
    pub fn clusters(&self) -> Option<ClusterOptions> {
        match *self {
            Algorithm::Clusters {
                update,
                clusters,
                metropolis,
            } => Some(ClusterOptions {
                update,
                clusters,
                metropolis,
            }),
            _ => None,
        }
    }

    /// Whether the run's updates are cluster updates alone (no Metropolis sweep colours the
    /// sites).
    pub fn clusters_alone(&self) -> bool {
        self.clusters()
            .is_some_and(|options| options.metropolis == 0)
    }

    /// The population-annealing options, `None` for the other algorithms.
    pub fn annealing(&self) -> Option<AnnealingOptions> {
        match self {
            Algorithm::Annealing {
                theta,
                schedule,
                resampling,
                runs,
                overlaps,
                reweighting,
            } => Some(AnnealingOptions {
                theta: *theta,
                schedule: schedule.clone(),
                resampling: *resampling,
                runs: *runs,
                overlaps: *overlaps,
                reweighting: *reweighting,
            }),
            _ => None,
        }
    }
}

/// Population annealing: a population of `replicas` starts at beta = 0 from independent random
/// spins; each temperature step resamples it to the next beta and gives every replica `theta`
/// Metropolis sweeps there, then measures.
#[derive(Debug, Clone, PartialEq)]
pub struct AnnealingOptions {
    /// Metropolis sweeps per temperature step.
    pub theta: u32,
    pub schedule: AnnealingSchedule,
    /// Paper 001's floor/ceil unless the config says otherwise.
    pub resampling: Resampling,
    /// Independent populations (each with its own randoms), for errors over runs.
    pub runs: u32,
    /// The spin-glass overlap at every beta, between slot `j` of run `k` and slot `j` of run
    /// `k + runs/2` of the same sample (Edwards-Anderson, an even number of runs).
    pub overlaps: bool,
    /// Multi-histogram reweighting of every step's energies (Barash et al. 2017) onto this many
    /// betas, `beta_last k / points` for `k = 1..=points` (zero field: integer energies).
    pub reweighting: Option<u32>,
}

/// The inverse temperatures after beta = 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum AnnealingSchedule {
    /// These betas, strictly increasing, all > 0.
    Betas(Vec<f64>),
    /// `count` betas equally spaced in beta: `beta_max k / count` for `k = 1..=count`.
    Linear { beta_max: f64, count: u32 },
    /// Each next beta chosen by bisection so that the overlap of the energy histograms before and
    /// after the step, computed from the reweighting factors (Barash et al. 2017), is `overlap`;
    /// until `beta_max`.
    Adaptive { overlap: f64, beta_max: f64 },
}

/// How a population is resampled to the next temperature from the expected numbers of copies
/// `tau_i = R w_i / sum_j w_j`, `w_i = exp(-(beta' - beta) E_i)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Resampling {
    /// Paper 001: `floor(tau_i)` or `floor(tau_i) + 1` copies, the latter with probability
    /// `tau_i - floor(tau_i)`; the population size fluctuates slightly around R.
    #[default]
    FloorCeil,
    /// `tau_i` rounded to the nearest integer (no randoms; the size may drift from R).
    Nearest,
    /// R independent draws from the weights: the size stays R.
    Multinomial,
}

/// Slack above R in the engine's population slots: the floor/ceil sizes differ from R by a sum
/// of independent terms of variance at most 1/4, so more than `4 sqrt(R)` has probability below
/// `2 exp(-32)` (Hoeffding); a step that still overflows stops the run with an error.
const POPULATION_SLACK_SIGMAS: f64 = 4.0;
/// Population slots come in multiples of this: whole words of replica lanes, and for the spin
/// glass whole pairs of them (the overlap pairs replica r with r + replicas/2).
const POPULATION_SLOT_UNIT: u64 = 64;

impl AnnealingOptions {
    /// Engine slots per population: R plus [`POPULATION_SLACK_SIGMAS`] `sqrt(R)`, rounded up to
    /// [`POPULATION_SLOT_UNIT`]. The population size fluctuates (floor and ceiling of Barash et al.
    /// 2017), the engines' layouts do not: replicas beyond the current size are idle slots.
    pub fn slots(replicas: u32) -> u64 {
        let r = u64::from(replicas);
        let slack = (POPULATION_SLACK_SIGMAS * f64::from(replicas).sqrt()).ceil() as u64 + 1;
        (r + slack).div_ceil(POPULATION_SLOT_UNIT) * POPULATION_SLOT_UNIT
    }
}

impl Resampling {
    fn is_default(&self) -> bool {
        *self == Resampling::default()
    }
}

/// The sweep schedule: `thermalize` sweeps, then `measure` sweeps with a measurement after
/// every `every`-th of them. Left out with `algorithm: Annealing` (whose `theta` says how
/// many sweeps each temperature step takes). With `algorithm: Clusters` it counts steps (each
/// its cluster updates and Metropolis sweeps).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweeps {
    pub thermalize: u64,
    pub measure: u64,
    pub every: u64,
}

impl Sweeps {
    /// Whether the sweeps are left out (as `algorithm: Annealing` wants them).
    pub fn is_default(&self) -> bool {
        *self == Sweeps::default()
    }

    /// Number of measurements per system (`every` must be at least 1: see `Config::validate`).
    pub fn measurements(&self) -> u64 {
        self.measure / self.every.max(1)
    }
}

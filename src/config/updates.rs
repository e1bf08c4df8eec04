//! The updates of the vector-spin models (`XY`, `Heisenberg`): the Metropolis proposal, the
//! order of the Metropolis updates (plain or double checkerboard) and the over-relaxation mixed
//! in.

use serde::{Deserialize, Serialize};

/// How a vector-spin run updates its spins; the Ising models take none of it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorUpdates {
    /// The Metropolis proposal of a new spin.
    #[serde(default)]
    pub proposal: Proposal,
    /// The order of a Metropolis sweep's updates: the plain checkerboard (left out) or paper
    /// 000's double checkerboard with multi-hit.
    #[serde(default, skip_serializing_if = "MetropolisOrder::is_checkerboard")]
    pub metropolis: MetropolisOrder,
    /// Over-relaxation sweeps (every spin reflected about its local field, which keeps the
    /// energy) after each Metropolis sweep; 0 for none.
    #[serde(default)]
    pub overrelaxation: u32,
    /// How discrete states are held while they are swept: a 32-bit word a site, or bit planes
    /// (the Potts ferromagnet and the Blume-Capel model, many times faster).
    #[serde(default, skip_serializing_if = "StateStorage::is_words")]
    pub storage: StateStorage,
}

impl VectorUpdates {
    /// Whether the updates are left as their defaults (left out of the resolved config).
    pub fn is_default(&self) -> bool {
        *self == VectorUpdates::default()
    }
}

/// How the sweeps hold a model's discrete states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum StateStorage {
    /// A 32-bit word a site: every discrete model, field, dilution and lattice.
    #[default]
    Words,
    /// `ceil(log2 q)` bit planes of 32 sites a word (`engine::planes`): the Potts ferromagnet or
    /// the Blume-Capel model (two planes, any crystal field) at zero field, undiluted, on the
    /// periodic square or cubic lattice of a size that is a multiple of 64, swept by Metropolis
    /// (alone or in parallel tempering or population annealing). A site proposes one of the other
    /// states (`q = 2, 3`) or the state `s XOR r` for `ceil(log2 q)` random bits `r` (`q >= 4`,
    /// refused where `r = 0` or the state is past `q - 1`); the measurements see the states as
    /// ever.
    BitPlanes,
}

impl StateStorage {
    /// Whether this is the word a site (left out of the resolved config).
    pub fn is_words(&self) -> bool {
        *self == StateStorage::Words
    }
}

/// The Metropolis proposal of a vector spin.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Proposal {
    /// A new direction uniform on the circle or sphere, independent of the old one (Weigel 2012).
    #[default]
    Uniform,
    /// The old spin plus `width` times a point uniform on the unit sphere, normalised: a cone
    /// around the old direction whose width the first half of the thermalisation tunes,
    /// temperature by temperature, towards `acceptance` (then frozen and recorded in the
    /// summary).
    Cone { acceptance: f64 },
    /// A clock model's heat bath: the new state drawn from its conditional distribution in the
    /// local field, over all `q` states (each state's Boltzmann weight from the fixed-point
    /// acceptance tables, exact integers), so it moves however cold the run, in `O(q)` work per
    /// update.
    HeatBath,
}

/// The order of the Metropolis updates of a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum MetropolisOrder {
    /// Every site of checkerboard colour 0, then of colour 1, one proposal each.
    #[default]
    Checkerboard,
    /// Paper 000's double checkerboard: cubes of `tile` sites a side, coloured like a
    /// checkerboard by the parity of the sum of their coordinates; each tile of colour 0, then
    /// of colour 1, updates its sites `hits` times (colour 0, then 1, per hit) with its halo
    /// held fixed, in on-chip memory on a GPU. `tile` even, dividing the size into an even
    /// number of tiles per side (16 suits 2D, 8 suits 3D).
    DoubleCheckerboard { tile: u32, hits: u32 },
}

impl MetropolisOrder {
    /// Whether this is the plain checkerboard (left out of the resolved config).
    pub fn is_checkerboard(&self) -> bool {
        *self == MetropolisOrder::Checkerboard
    }

    /// Metropolis proposals per site and sweep.
    pub fn hits(&self) -> u32 {
        match self {
            MetropolisOrder::Checkerboard => 1,
            MetropolisOrder::DoubleCheckerboard { hits, .. } => *hits,
        }
    }

    /// The tiles' side, `None` for the plain checkerboard.
    pub fn tile(&self) -> Option<u32> {
        match self {
            MetropolisOrder::Checkerboard => None,
            MetropolisOrder::DoubleCheckerboard { tile, .. } => Some(*tile),
        }
    }
}

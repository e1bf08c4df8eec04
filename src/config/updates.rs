//! The updates of the vector-spin models (`XY`, `Heisenberg`): the Metropolis proposal and the
//! over-relaxation mixed in.

use serde::{Deserialize, Serialize};

/// How a vector-spin run updates its spins; the Ising models take none of it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VectorUpdates {
    /// The Metropolis proposal of a new spin.
    #[serde(default)]
    pub proposal: Proposal,
    /// Over-relaxation sweeps (every spin reflected about its local field, which keeps the
    /// energy) after each Metropolis sweep; 0 for none.
    #[serde(default)]
    pub overrelaxation: u32,
}

impl VectorUpdates {
    /// Whether the updates are left as their defaults (left out of the resolved config).
    pub fn is_default(&self) -> bool {
        *self == VectorUpdates::default()
    }
}

/// The Metropolis proposal of a vector spin.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Proposal {
    /// A new direction uniform on the circle or sphere, independent of the old one (paper 000).
    #[default]
    Uniform,
    /// The old spin plus `width` times a point uniform in the unit ball, normalised: a cone
    /// around the old direction whose width the first half of the thermalisation tunes,
    /// temperature by temperature, towards `acceptance` (then frozen and recorded in the
    /// summary).
    Cone { acceptance: f64 },
}

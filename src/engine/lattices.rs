//! The lattices an engine takes and gives ([`crate::engine::Engine::set_spins`],
//! [`crate::engine::Engine::spins`]): one type for every spin type, so that one contract serves
//! every model. Ising engines hold [`SpinBits`], vector-spin engines fixed-point components
//! ([`crate::model::vector::fixed`], component `a` of site `i` of system `b` at `(b n + a) N + i`);
//! each refuses the other kind with an error that names both.

use super::SpinBits;
use crate::error::{Error, Result};

/// Every system's lattice, of the kind the engine's model has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lattices {
    /// Ising spins, one bit per spin ([`SpinBits`]).
    Bits(SpinBits),
    /// Vector spins: every system's fixed-point components, component-major.
    Vector(Vec<i32>),
}

impl From<SpinBits> for Lattices {
    fn from(bits: SpinBits) -> Self {
        Lattices::Bits(bits)
    }
}

impl From<Vec<i32>> for Lattices {
    fn from(components: Vec<i32>) -> Self {
        Lattices::Vector(components)
    }
}

impl Lattices {
    /// What the lattices hold, for errors.
    fn kind(&self) -> &'static str {
        match self {
            Lattices::Bits(_) => "Ising spins",
            Lattices::Vector(_) => "vector spins",
        }
    }

    /// The error of lattices of this kind where `wanted` were expected.
    fn refused(&self, wanted: &str) -> Error {
        Error::State(format!(
            "expected lattices of {wanted}, got lattices of {}",
            self.kind()
        ))
    }

    /// Spins (Ising) or components (vector spins) of every lattice together.
    pub fn entries(&self) -> u64 {
        match self {
            Lattices::Bits(bits) => bits.len(),
            Lattices::Vector(components) => components.len() as u64,
        }
    }

    /// The Ising spins, or an error for vector spins.
    pub fn bits(&self) -> Result<&SpinBits> {
        match self {
            Lattices::Bits(bits) => Ok(bits),
            other => Err(other.refused("Ising spins")),
        }
    }

    /// The vector spins' components, or an error for Ising spins.
    pub fn vector(&self) -> Result<&[i32]> {
        match self {
            Lattices::Vector(components) => Ok(components),
            other => Err(other.refused("vector spins")),
        }
    }

    /// [`Lattices::bits`], owned.
    pub fn into_bits(self) -> Result<SpinBits> {
        match self {
            Lattices::Bits(bits) => Ok(bits),
            other => Err(other.refused("Ising spins")),
        }
    }

    /// [`Lattices::vector`], owned.
    pub fn into_vector(self) -> Result<Vec<i32>> {
        match self {
            Lattices::Vector(components) => Ok(components),
            other => Err(other.refused("vector spins")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_refuses_the_other_by_name() {
        let bits = Lattices::from(SpinBits::down(1, 4));
        let vector = Lattices::from(vec![1 << 28, 0]);
        assert_eq!(bits.bits().unwrap(), &SpinBits::down(1, 4));
        assert_eq!(vector.vector().unwrap(), [1 << 28, 0]);
        let message = bits.into_vector().unwrap_err().to_string();
        assert!(message.contains("expected lattices of vector spins, got lattices of Ising spins"));
        let message = vector.into_bits().unwrap_err().to_string();
        assert!(message.contains("expected lattices of Ising spins, got lattices of vector spins"));
    }
}

//! CPU mirror of `shaders/wgsl/observables.wgsl`: exact integer counts of one system.

use crate::engine::Observation;
use crate::model::Lattice;

/// Up spins and satisfied bonds (each bond counted once, via the forward neighbours).
pub fn observe(lattice: &Lattice, spins: &[i32]) -> Observation {
    let mut observation = Observation::default();
    for (site, &spin) in spins.iter().enumerate() {
        observation.up += u64::from(spin > 0);
        observation.satisfied += lattice
            .forward_neighbours(site as u64)
            .filter(|&n| spins[n as usize] == spin)
            .count() as u64;
    }
    observation
}

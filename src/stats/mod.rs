//! Statistics of Monte Carlo time series: integrated autocorrelation times, blocking and the
//! jackknife, and the thermodynamic estimators of the Ising ferromagnet built on them.

mod autocorr;
mod equilibration;
mod ising;
mod jackknife;
mod overlap;
mod spin_glass;
mod table;
mod tensor_glass;
mod vector;

pub use autocorr::tau_int;
pub use equilibration::{
    EquilibrationCheck, LogBin, Production, UnitSeries, Verdict, largest_tau, log_binning,
    verdict_lines,
};
pub use ising::{BLOCKS_PER_REPLICA, IsingEstimates, ising_estimates};
pub use jackknife::{Estimate, block_means, group_means, jackknife, unit_means};
pub use overlap::{PlanePhases, overlap};
pub use spin_glass::{
    OverlapEstimates, SampleAverages, SampleSeries, SpinGlassEstimates, overlap_estimates,
    spin_glass_estimates,
};
pub use table::{estimate_cell, no_overlaps_line, table_heading, table_row};
pub use tensor_glass::{
    SampleOverlaps, TensorGlassEstimates, TensorOverlapSeries, tensor_glass_estimates,
};
pub use vector::{
    StaggeredEstimates, VectorEstimates, VectorExtras, VectorMeasurement, vector_estimates,
};

use crate::config::{EngineKind, Lanes, Layout, Randoms};

/// How many consecutive replicas (of one temperature and sample), and how many consecutive
/// samples, make one statistically independent unit of the error estimates. Systems whose
/// Metropolis decisions share random numbers (the lanes of a multispin word with `randoms:
/// Shared`) are correlated, even identical once they meet, so the jackknife must keep them
/// together; treating them as independent understates the errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitSize {
    pub replicas: usize,
    pub samples: usize,
}

impl UnitSize {
    /// Every system on its own random numbers: replicas and samples are independent.
    pub const SYSTEM: UnitSize = UnitSize {
        replicas: 1,
        samples: 1,
    };
}

/// Which systems make one independent unit of the error estimates, and what that unit is
/// (for the summary): with `randoms: Shared` the 32 replicas or samples in the lanes of an
/// AMSC word share every random number, so they are one unit. Temperatures in lanes are
/// different estimates (each takes one lane of a word), and an SMSC word is one system whose
/// sites share randoms, which its own time series already carries: both keep every system
/// independent.
pub fn independent_unit(engine: &EngineKind) -> (UnitSize, String) {
    let alone = "one replica (one sample where errors come from the spread over samples)";
    let shared = engine
        .multispin()
        .filter(|options| options.randoms == Randoms::Shared);
    let lanes = |what: &str| {
        format!(
            "32 {what}: the lanes of a multispin word share their random numbers (randoms: \
             Shared), so a word's 32 {what} count as one unit"
        )
    };
    match shared.map(|options| options.layout) {
        Some(Layout::Amsc {
            lanes: Lanes::Replicas,
        }) => (
            UnitSize {
                replicas: 32,
                samples: 1,
            },
            lanes("replicas"),
        ),
        Some(Layout::Amsc {
            lanes: Lanes::Samples,
        }) => (
            UnitSize {
                replicas: 1,
                samples: 32,
            },
            lanes("samples"),
        ),
        Some(Layout::Amsc {
            lanes: Lanes::Temperatures,
        }) => (
            UnitSize::SYSTEM,
            format!(
                "{alone}: the lanes of a word share their random numbers but hold different \
                 temperatures, so each temperature's estimates take one lane per word \
                 (differences between temperatures are correlated)"
            ),
        ),
        Some(Layout::Smsc) => (
            UnitSize::SYSTEM,
            format!(
                "{alone}: the 32 sites of an SMSC word share a random number within one \
                 system, which that system's own time series carries"
            ),
        ),
        None => (
            UnitSize::SYSTEM,
            format!("{alone}: every system draws its own random numbers"),
        ),
    }
}

/// A small seeded generator for the tests: splitmix64, with Box-Muller Gaussians.
#[cfg(test)]
pub(crate) mod test_rng {
    pub struct TestRng(u64);

    impl TestRng {
        pub fn new(seed: u64) -> Self {
            Self(seed)
        }

        pub fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        /// Uniform in (0, 1]: never 0, so its logarithm is finite.
        pub fn uniform(&mut self) -> f64 {
            ((self.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
        }

        /// Uniform in 0..n (n small: the modulo bias is negligible).
        pub fn below(&mut self, n: u64) -> i64 {
            (self.next_u64() % n) as i64
        }

        /// A standard normal deviate (Box-Muller; the second deviate is discarded for simplicity).
        pub fn gaussian(&mut self) -> f64 {
            let radius = (-2.0 * self.uniform().ln()).sqrt();
            radius * (std::f64::consts::TAU * self.uniform()).cos()
        }
    }
}

//! Exact results used as references: Kaufman's finite-size solution of the 2D Ising model,
//! differentiated exactly with second-order dual numbers, Onsager's infinite-lattice one,
//! enumeration of tiny Ising lattices and of tiny lattices of discrete states, the row
//! transfer matrix of small lattices of any discrete spins, and the runs' estimates against
//! them.

mod deviations;
mod dual;
mod enumeration;
mod kaufman;
mod onsager;
mod states;
mod transfer;

pub use deviations::{EXACT_TOLERANCE_SIGMAS, deviation, ferromagnet_deviations, kaufman_of};
pub use dual::Dual2;
pub use enumeration::{EnumeratedAverages, enumerate};
pub use kaufman::{ExactIsing2d, kaufman, kaufman_twisted, ln_partition_function};
pub use onsager::onsager;
pub use states::{StateAverages, enumerate_states};
pub use transfer::{
    DiscreteSpins, energy_and_heat, kagome_ln_partition_function, triangular_ln_partition_function,
};

/// `got` within `tol` (absolute) of `want`, the tests' check against exact values.
#[cfg(test)]
fn assert_close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got:.15}, want {want:.15} (tol {tol:e})"
    );
}

//! Exact results used as references: Kaufman's finite-size solution of the 2D Ising model,
//! differentiated exactly with second-order dual numbers.

mod dual;
mod enumeration;
mod kaufman;

pub use dual::Dual2;
pub use enumeration::{EnumeratedAverages, enumerate};
pub use kaufman::{ExactIsing2d, kaufman, ln_partition_function};

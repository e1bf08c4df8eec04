//! Metropolis sweeps at fixed temperatures, and with parallel tempering swap rounds between
//! them ([`crate::tempering`]): the schedule of sweeps, rounds and measurements
//! ([`Schedule`]), and the loop that plans a chunk of it, lets the engine replay it, records the
//! exact integer observations, checkpoints (`resume.rs`), and at the end summarises
//! (`summary.rs`) and writes the results (`outputs.rs`); the figures are drawn above it, from
//! what it hands back ([`Finished`]).

pub mod checkpoint;
pub(crate) mod checks;
mod equilibration;
mod exact_checks;
mod outputs;
mod resume;
mod run;
mod schedule;
mod series;
mod state;
mod summary;
mod table;

pub use run::{Finished, run_sweeps};
pub use schedule::{Cut, Schedule};
pub use summary::{Summary, TemperatureSummary};
pub use table::summary_table;

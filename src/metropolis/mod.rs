//! Metropolis sweeps at fixed temperatures, and with parallel tempering swap rounds between
//! them ([`crate::tempering`]): the schedule of sweeps, rounds and measurements
//! ([`Schedule`]), and the loop that plans a chunk of it, lets the engine replay it, records the
//! exact integer observations, checkpoints, and at the end summarises and writes the results.

pub(crate) mod checks;
mod run;
mod schedule;

pub use run::{Summary, TemperatureSummary, run_sweeps, summary_table};
pub use schedule::Schedule;

//! Parallel tempering on the host: the ladder's tuning ([`ladder`]) and the diagnostics of a
//! run (swap acceptance per pair, round trips: [`diagnostics`]). The chains' layout on the
//! engines and the reference swap decision are the engines' contract
//! ([`crate::engine::tempering`]).

pub(crate) mod checks;
pub mod diagnostics;
pub mod ladder;

pub use diagnostics::{
    LOW_ACCEPTANCE, TemperingDiagnostics, attempts, round_trips_of, tempering_diagnostics,
};
pub use ladder::{TUNING_STAGES, retune, tuning_stops};

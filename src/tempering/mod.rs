//! Parallel tempering on the host: the ladder's tuning ([`ladder`], and on the engine while a
//! run goes: [`retune_ladder`]), the diagnostics of a run (swap acceptance per pair, round
//! trips: [`diagnostics`]) and its files and warnings at the end ([`finish_tempering`]). The
//! chains' layout on the engines and the reference swap decision are the engines' contract
//! ([`crate::engine::tempering`]).

pub(crate) mod checks;
pub mod diagnostics;
pub mod ladder;
mod outputs;
mod tuning;

pub use diagnostics::{
    LOW_ACCEPTANCE, TemperingDiagnostics, attempts, round_trips_of, tempering_diagnostics,
};
pub use ladder::{TUNING_STAGES, retune, tuning_stops};
pub use outputs::{TEMPERING_FILES, finish_tempering, tempering_warnings};
pub use tuning::{retune_ladder, retuned_ladder};

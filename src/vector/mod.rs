//! The run loop of the vector-spin models (`XY`, `Heisenberg`): Metropolis sweeps at fixed
//! temperatures with over-relaxation mixed in, the proposal cone tuned while thermalising,
//! measurements as exact integer sums turned into estimates here; then `summary.json`, the
//! series and the final lattices; checkpoints for `--resume` in the container of the Ising
//! runs' ([`crate::io::checkpoint`]). The Ising loop ([`crate::metropolis`]) is untouched by it.

mod annealing;
mod checkpoint;
mod equilibration;
mod finished;
mod outputs;
mod record;
mod resume;
mod run;
mod summary;
mod tempering;
mod tuning;

pub use annealing::AnnealedStates;
pub use finished::VectorFinished;
pub use record::cluster_m2;
pub use run::run_vector;
pub use summary::{ProposalSummary, VectorSummary, vector_table};
pub use tuning::{ConeTuning, TUNING_ROUNDS};

#[cfg(test)]
mod exact_limits;

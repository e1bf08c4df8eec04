//! Population annealing (Barash et al. 2017): the loop of temperature steps (`run.rs`) and the
//! host's work of one step (`steps.rs`), the host's resampling decisions ([`resampling`]), the
//! population statistics and averages over runs ([`stats`]), the multi-histogram reweighting of the
//! energy histograms ([`multihistogram`]), and a finished anneal's summary ([`AnnealingSummary`])
//! and files (`outputs.rs`). The resampling step as the engines replay it is their contract
//! ([`crate::engine::annealing`]).

pub mod checkpoint;
pub(crate) mod checks;
pub mod model;
pub mod multihistogram;
mod outputs;
pub mod resampling;
mod run;
pub mod stats;
mod steps;
mod summary;

pub use model::{AnnealedSystems, ising_annealed};
pub use multihistogram::{DensityOfStates, EnergyHistogram, HistogramStep, Reweighted};
pub use outputs::{ANNEALING_FILES, ANNEALING_JSON, annealing_table};
pub use run::{anneal, anneal_engine};
pub use stats::{
    AnnealingAverage, AnnealingEstimates, AnnealingOverlaps, Levels, PairOverlaps, Population,
    ReweightedAverage, StaggeredAverage, StaggeredMoments, average_over_runs, family_statistics,
    overlaps_over_samples, population_moments, reweighted_over_runs, weighted_over_runs,
};
pub use summary::AnnealingSummary;

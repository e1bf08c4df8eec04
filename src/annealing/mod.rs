//! Population annealing (paper 001): the loop of temperature steps ([`run`]), the host's
//! resampling decisions ([`resampling`]), the population statistics and averages over runs
//! ([`stats`]) and the multi-histogram reweighting of the energy histograms
//! ([`multihistogram`]). The resampling step as the engines replay it is their contract
//! ([`crate::engine::annealing`]).

pub(crate) mod checks;
pub mod multihistogram;
pub mod resampling;
mod run;
pub mod stats;

pub use multihistogram::{DensityOfStates, EnergyHistogram, HistogramStep, Reweighted};
pub use run::{AnnealingSummary, anneal, anneal_engine, annealing_table, engine_systems};
pub use stats::{
    AnnealingAverage, AnnealingEstimates, AnnealingOverlaps, Levels, PairOverlaps, Population,
    ReweightedAverage, average_over_runs, family_statistics, overlaps_over_samples,
    population_moments, reweighted_over_runs, weighted_over_runs,
};

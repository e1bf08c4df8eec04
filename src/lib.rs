//! spinflip: Monte Carlo simulation of Ising-type spin models on GPUs.
//!
//! Layers, from the bottom: [`rng`] (Philox and the counter scheme), [`model`] (geometry and
//! Hamiltonians), [`engine`] (CPU and wgpu backends that replay plans), [`sim`] (the run loop
//! that builds plans, checkpoints and summarises), [`stats`] and [`exact`] (estimators and exact
//! results), [`io`] (files), [`config`] (RON input) and [`cli`].

pub mod bench;
pub mod cli;
pub mod config;
pub mod engine;
pub mod error;
pub mod exact;
pub mod io;
pub mod model;
pub mod rng;
pub mod sim;
pub mod stats;

pub use error::{Error, Result};
